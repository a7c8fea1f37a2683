package proxy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// TestGatewayMirrorIsBounded: an upstream that
// lists more than Options.MaxMirrorItems objects, or more than
// MaxMirrorBytes of them, fails New with an error naming the option (it
// could list 1,000 pages of 32 MB for each kind); one that grows past
// them later fails Refresh the same way, and the mirror keeps its last
// lists.
func TestGatewayMirrorIsBounded(t *testing.T) {
	t.Parallel()
	upstream := func(tools int, desc string) *mcp.Server {
		srv := mcp.NewServer(mcp.Options{Name: "big", Version: "1.0.0", Logger: quiet})
		for i := range tools {
			mcp.AddTool(srv, mcp.Tool{Name: fmt.Sprintf("t%03d", i), Description: desc}, func(context.Context, *mcp.Context, struct{}) (string, error) {
				return "", nil
			})
		}
		return srv
	}
	open := func(srv *mcp.Server, opts proxy.Options) (*proxy.Gateway, error) {
		h := mcphttp.New(srv, &mcphttp.Options{PageSize: 7})
		t.Cleanup(func() { _ = h.Close() })
		opts.Upstream = func(*mcp.Context) client.Transport { return client.InProcess(h, nil) }
		opts.Server.Logger = quiet
		g, err := proxy.New(context.Background(), opts)
		if g != nil {
			t.Cleanup(func() { _ = g.Close() })
		}
		return g, err
	}
	for _, tc := range []struct {
		name   string
		srv    *mcp.Server
		opts   proxy.Options
		option string
	}{
		{"items", upstream(30, ""), proxy.Options{MaxMirrorItems: 20}, "Options.MaxMirrorItems"},
		{"bytes", upstream(5, strings.Repeat("d", 1000)), proxy.Options{MaxMirrorBytes: 3000}, "Options.MaxMirrorBytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := open(tc.srv, tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.option)
		})
	}

	t.Run("refresh", func(t *testing.T) {
		t.Parallel()
		srv := upstream(10, "")
		// The upstream grows by 15 tools at once (one list_changed): added
		// one by one, the gateway's resync after a list_changed could
		// mirror a list of 11 to 20 tools, within the bound, before the
		// Refresh.
		for i := 10; i < 25; i++ {
			mcp.AddTool(srv, mcp.Tool{Name: fmt.Sprintf("t%03d", i), Tags: []string{"later"}}, func(context.Context, *mcp.Context, struct{}) (string, error) {
				return "", nil
			})
		}
		require.NoError(t, srv.Registry().Disable(mcp.Match{Tags: []string{"later"}}))
		g, err := open(srv, proxy.Options{MaxMirrorItems: 20})
		require.NoError(t, err)
		require.NoError(t, srv.Registry().Enable(mcp.Match{Tags: []string{"later"}}))
		err = g.Refresh(context.Background())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Options.MaxMirrorItems")
		tools := g.Server().ListTools(context.Background(), nil)
		assert.Len(t, tools, 10, "the mirror keeps its last lists")
	})

	t.Run("within the bounds", func(t *testing.T) {
		t.Parallel()
		g, err := open(upstream(20, ""), proxy.Options{MaxMirrorItems: 20})
		require.NoError(t, err)
		assert.Len(t, g.Server().ListTools(context.Background(), nil), 20)
	})
}
