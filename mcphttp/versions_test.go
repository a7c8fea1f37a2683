package mcphttp_test

import (
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSupportedVersionsIsACopy(t *testing.T) {
	t.Parallel()
	v := mcphttp.SupportedVersions()
	require.Equal(t, []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618,
		mcp.Version20250326, mcp.Version20241105}, v, "every revision, newest first")
	require.Equal(t, mcp.Version20260728, v[0])
	v[0] = "1999-01-01"
	assert.Equal(t, mcp.Version20260728, mcphttp.SupportedVersions()[0])
}
