package e2e

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestGoSDKSessionToolListChanged: two go-sdk v1.8.0 clients of one
// server (Streamable HTTP, 2025-11-25); a tool registers another for its
// caller's session alone. Only that client gets ToolListChanged, sees the
// new tool and can call it; a server-wide Disable reaches both.
func TestGoSDKSessionToolListChanged(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "visibility", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Tags: []string{"basic"}}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "echo", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "unlocked", mcp.TryAddTool(srv.SessionRegistry(c.SessionID), mcp.Tool{Name: "secret"},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return "the secret", nil })
	})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	type client struct {
		session             *sdk.ClientSession
		toolsChanged, other atomic.Int32
	}
	connect := func() *client {
		c := &client{}
		cl := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "0.0.1"}, &sdk.ClientOptions{
			ToolListChangedHandler:   func(context.Context, *sdk.ToolListChangedRequest) { c.toolsChanged.Add(1) },
			PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { c.other.Add(1) },
		})
		s, err := cl.Connect(testContext(t, 10*time.Second), &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1},
			&sdk.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		c.session = s
		return c
	}
	a, b := connect(), connect()
	ctx := testContext(t, 30*time.Second)
	names := func(c *client) []string {
		res, err := c.session.ListTools(ctx, nil)
		require.NoError(t, err)
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	// Both GET streams are open once a global change reaches both.
	srv.Registry().Remove(access.KindPrompt, "none")
	require.Eventually(t, func() bool { return a.other.Load() == 1 && b.other.Load() == 1 }, 10*time.Second, 10*time.Millisecond)

	res, err := a.session.CallTool(ctx, &sdk.CallToolParams{Name: "unlock", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Eventually(t, func() bool { return a.toolsChanged.Load() == 1 }, 10*time.Second, 10*time.Millisecond)
	// A global change after it reaches b after the per-session one would have.
	srv.Registry().Remove(access.KindPrompt, "none")
	require.Eventually(t, func() bool { return b.other.Load() == 2 }, 10*time.Second, 10*time.Millisecond)
	assert.Zero(t, b.toolsChanged.Load(), "the other session was told of a per-session tool")

	assert.True(t, slices.Contains(names(a), "secret"))
	assert.False(t, slices.Contains(names(b), "secret"))
	res, err = a.session.CallTool(ctx, &sdk.CallToolParams{Name: "secret", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "the secret", res.Content[0].(*sdk.TextContent).Text)
	_, err = b.session.CallTool(ctx, &sdk.CallToolParams{Name: "secret", Arguments: map[string]any{}})
	require.ErrorContains(t, err, `Unknown tool: "secret"`)

	require.NoError(t, srv.Registry().Disable(mcp.Match{Tags: []string{"basic"}}))
	require.Eventually(t, func() bool { return a.toolsChanged.Load() == 2 && b.toolsChanged.Load() == 1 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"unlock"}, names(b))
}
