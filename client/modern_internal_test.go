package client

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// The _meta CallTool's common call splices in is the one modernParams
// adds, at every log level.
func TestModernToolCallMatchesModernParams(t *testing.T) {
	c := &Client{opts: Options{
		Info:       mcp.Implementation{Name: "n", Version: "1"},
		Sample:     func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) { return nil, nil },
		Roots:      func(context.Context) ([]mcp.Root, error) { return nil, nil },
		Extensions: map[string]any{"io.example/x": map[string]any{"on": true}, "io.example/y": nil},
	}}
	raw, err := toolParams("add", map[string]any{"a": 1, "b": "<two>", "c": []any{1.5, nil}})
	require.NoError(t, err)
	tc := toolCall{name: "add", raw: raw}
	decode := func(b []byte) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	for _, level := range []mcp.LogLevel{"", "debug", "error", ""} {
		c.state.mu.Lock()
		c.state.logLevel = level
		c.state.mu.Unlock()
		got, err := c.modernToolCall(tc)
		require.NoError(t, err)
		p, err := c.modernParams(tc.raw)
		require.NoError(t, err)
		want, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Equal(t, decode(want), decode(got), "log level %q", level)
	}
}
