package stdio_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// TestServeSessionTools checks per-session tools and rules over stdio: a
// tool registers another for its session, whose list_changed is written
// to stdout; the session's Disable hides a tool; and once the session
// ended, nothing is kept for it.
func TestServeSessionTools(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: discard()})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Tags: []string{"basic"}}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "echo", nil
	})
	ids := make(chan string, 1)
	mcp.AddTool(srv, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		ids <- c.SessionID
		return "unlocked", mcp.TryAddTool(srv.SessionRegistry(c.SessionID), mcp.Tool{Name: "secret"},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "secret", nil })
	})
	h := newHandler(t, srv)
	p := startServe(t, t.Context(), h, nil)
	p.initialize()

	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"unlock","arguments":{}}}`)
	res, before := p.response(`1`)
	require.Nil(t, res.Error)
	id := <-ids
	require.NotEmpty(t, id)
	// The notification may come before or after the response.
	methods := func(ms []msg) (out []string) {
		for _, m := range ms {
			out = append(out, m.Method)
		}
		return out
	}
	if !assert.ObjectsAreEqual([]string{"notifications/tools/list_changed"}, methods(before)) {
		require.Equal(t, "notifications/tools/list_changed", p.next().Method)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"secret","arguments":{}}}`)
	res, _ = p.response(`2`)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"secret"}]}`, string(res.Result))

	require.NoError(t, srv.SessionRegistry(id).Disable(mcp.Match{Tags: []string{"basic"}}))
	require.Equal(t, "notifications/tools/list_changed", p.next().Method)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	res, _ = p.response(`3`)
	var list struct {
		Tools []mcp.Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(res.Result, &list))
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"unlock", "secret"}, names)

	require.NoError(t, p.in.Close())
	select {
	case err := <-p.done:
		require.NoError(t, err)
		p.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after stdin closed")
	}
	// Serve leaves the session to the handler (Start ends it when input
	// ends); closing the handler ends it.
	require.NoError(t, h.Close())
	assert.ErrorIs(t, srv.SessionRegistry(id).Disable(mcp.Match{}), mcp.ErrNoSession)
}
