package mcphttp_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/mcphttp"
)

// TestREADMERevisions: the README's opening sentence on revisions lists
// the protocol revisions the handler speaks, every one and no other.
func TestREADMERevisions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	line := regexp.MustCompile(`It speaks the MCP revisions [^.]*\.`).Find(b)
	require.NotNil(t, line, `README.md has no line "It speaks the MCP revisions …"`)
	listed := regexp.MustCompile(`\d{4}-\d{2}-\d{2}`).FindAllString(string(line), -1)
	var want []string
	for _, v := range mcphttp.SupportedVersions() {
		want = append(want, string(v))
	}
	slices.Sort(listed)
	slices.Sort(want)
	require.Equal(t, want, listed, "README.md: %s", line)
}
