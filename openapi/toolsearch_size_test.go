package openapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/toolsearch"
)

// listBytes is the size of the tools array tools/list answers through h.
func listBytes(t *testing.T, h http.Handler) (int, int) {
	t.Helper()
	c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer c.Close()
	var all []json.RawMessage
	cursor := ""
	for {
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		require.NoError(t, c.Call(t.Context(), "tools/list", params, &page))
		all = append(all, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	b, err := json.Marshal(all)
	require.NoError(t, err)
	return len(b), len(all)
}

// TestListSizes: the size of tools/list (its tools array, in bytes and
// in tokens counted as bytes/4) for Discord's, Blockfrost's and a
// generated 1,000-operation document, without and with tool search, and
// of one search's result (five tools found). BENCHMARKS.md has the
// figures; the test holds the surface under 3 KB. It is a test of package
// toolsearch kept here, in the openapi module, because the root module
// (toolsearch's) does not require this one.
func TestListSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		spec  func() []byte
		query string
	}{
		{"discord", func() []byte { b, _ := os.ReadFile("testdata/discord.json"); return b }, "send a message in a channel"},
		{"blockfrost", func() []byte { b, _ := os.ReadFile("testdata/blockfrost.yaml"); return b }, "transactions of an address"},
		{"generated 1000", func() []byte { return bigSpec(1000) }, "get r42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := mcp.NewServer(mcp.Options{Name: "api", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, openapi.Register(srv, tc.spec(), openapi.Options{Lenient: true}))
			h := mcphttp.New(srv, nil)
			t.Cleanup(func() { _ = h.Close() })
			before, n := listBytes(t, h)
			s, err := toolsearch.New(srv, nil)
			require.NoError(t, err)
			after, m := listBytes(t, s.Middleware(h))
			c, err := client.Connect(t.Context(), client.InProcess(s.Middleware(h), nil), &client.Options{Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			defer c.Close()
			res, err := c.CallTool(context.Background(), "search_tools", map[string]any{"query": tc.query}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			found := len(res.Text())
			t.Logf("%s: tools/list %d tools, %d bytes (~%d tokens at bytes/4); with search %d tools, %d bytes (~%d tokens); one search's result (5 tools) %d bytes (~%d tokens)",
				tc.name, n, before, before/4, m, after, after/4, found, found/4)
			assert.Equal(t, 2, m)
			assert.Less(t, after, 3000)
		})
	}
}
