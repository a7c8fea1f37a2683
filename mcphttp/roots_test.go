package mcphttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRootsChangedHook(t *testing.T) {
	t.Parallel()
	var log hookLog
	c, h := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Hooks: log.hooks()})
	c.initWith(`{"roots":{"listChanged":true}}`, "rooted")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream := c.getStream(ctx)

	m := nextRequest(t, stream) // the fetch after initialization
	require.Equal(t, "roots/list", m.Method)
	c.answer(m.ID, `{"roots":[{"uri":"file:///a"}]}`)
	require.Eventually(t, func() bool {
		s := h.Sessions()
		return len(s) == 1 && len(s[0].Roots) == 1
	}, 5*time.Second, 5*time.Millisecond)
	_, _, roots := log.snapshot()
	assert.Empty(t, roots, "the first fetch is no change")

	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	require.Equal(t, http.StatusAccepted, status)
	m = nextRequest(t, stream)
	require.Equal(t, "roots/list", m.Method)
	c.answer(m.ID, `{"roots":[{"uri":"file:///b"},{"uri":"file:///c"}]}`)
	require.Eventually(t, func() bool { _, _, r := log.snapshot(); return len(r) == 1 }, 5*time.Second, 5*time.Millisecond)
	_, _, roots = log.snapshot()
	assert.Equal(t, c.sid, roots[0].info.ID)
	assert.Equal(t, []mcp.Root{{URI: "file:///b"}, {URI: "file:///c"}}, roots[0].roots)
	assert.Equal(t, roots[0].roots, roots[0].info.Roots)
	assert.Equal(t, roots[0].roots, h.Sessions()[0].Roots)

	// The tool sees the cached roots.
	res, _ := c.call(5, "tools/call", `{"name":"roots"}`)
	assert.Equal(t, "file:///b,file:///c", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
}

// TestRootsDisabled: with Options.Roots.Disabled the server never asks
// the client for its roots: not after initialization, and not when a tool
// calls Context.Roots, which fails with ErrCapability saying why.
func TestRootsDisabled(t *testing.T) {
	t.Parallel()
	var log hookLog
	srv := quietServerWithTools(mcp.Options{Roots: &mcp.RootsOptions{Disabled: true}})
	c, _ := newHTTP(t, srv, &mcphttp.Options{Hooks: log.hooks()})
	c.initWith(`{"roots":{"listChanged":true}}`, "rooted")

	res, before := c.call(5, "tools/call", `{"name":"roots"}`)
	assert.Empty(t, before, "no roots/list request on the tool's stream")
	text := wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text
	assert.Contains(t, text, "capability=true")
	assert.Contains(t, text, "roots are disabled")

	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	require.Equal(t, http.StatusAccepted, status)
	_, _, roots := log.snapshot()
	require.Len(t, roots, 1, "the change is still reported")
	assert.Nil(t, roots[0].roots, "with no roots: the server does not ask")

	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	stream := c.getStream(ctx)
	for {
		ev, ok := stream.next()
		if !ok {
			break
		}
		assert.NotEqual(t, "roots/list", ev.msg(t).Method, "the server asked for roots")
	}
}
