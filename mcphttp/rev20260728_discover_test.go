package mcphttp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRev20260728Discover(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	_, msgs := rev20260728Post(t, ts, rev20260728Body("server/discover", ""))
	require.Len(t, msgs, 1)
	var res struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
	assert.Equal(t, "2026-07-28", res.SupportedVersions[0])
	assert.Contains(t, res.SupportedVersions, "2025-11-25")
	for _, c := range []string{"tools", "prompts", "resources", "completions", "logging"} {
		assert.Contains(t, res.Capabilities, c)
	}
	assert.NotContains(t, res.Capabilities, "tasks", "tasks live under extensions, never as a v1 capability")
}
