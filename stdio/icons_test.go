package stdio_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/media"
)

// TestServeIcons: over stdio the server's icons and website reach the
// client in initialize's serverInfo (2025-11-25) and server/discover
// (2026-07-28), and a tool's icons in tools/list at both revisions.
func TestServeIcons(t *testing.T) {
	t.Parallel()
	icon, err := media.IconFromBytes([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`), "image/svg+xml")
	require.NoError(t, err)
	icon.Sizes = []string{"any"}
	srv := mcp.NewServer(mcp.Options{Name: "stdio-icons", Version: "1.0.0", Icons: []mcp.Icon{icon},
		WebsiteURL: "https://example.com", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "draw", Icons: []mcp.Icon{icon}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "drawn", nil })
	p := startServe(t, context.Background(), newHandler(t, srv), nil)
	iconJSON, err := json.Marshal([]mcp.Icon{icon})
	require.NoError(t, err)
	wantInfo := `{"name":"stdio-icons","version":"1.0.0","icons":` + string(iconJSON) + `,"websiteUrl":"https://example.com"}`
	toolIcons := func(t *testing.T, m msg) string {
		t.Helper()
		require.Nil(t, m.Error)
		var r struct {
			Tools []struct {
				Icons json.RawMessage `json:"icons"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &r))
		require.Len(t, r.Tools, 1)
		return string(r.Tools[0].Icons)
	}

	t.Run("2025-11-25", func(t *testing.T) {
		p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		m, _ := p.response(`"init"`)
		require.Nil(t, m.Error)
		var r struct {
			ServerInfo json.RawMessage `json:"serverInfo"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &r))
		assert.JSONEq(t, wantInfo, string(r.ServerInfo))
		p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		p.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
		m, _ = p.response(`"list"`)
		assert.JSONEq(t, string(iconJSON), toolIcons(t, m))
	})
	t.Run("2026-07-28", func(t *testing.T) {
		p.send(`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{` + meta2026("") + `}}`)
		m, _ := p.response(`"d"`)
		require.Nil(t, m.Error)
		var r struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &r))
		assert.JSONEq(t, wantInfo, string(r.Meta["io.modelcontextprotocol/serverInfo"]))
		p.send(`{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{` + meta2026("") + `}}`)
		m, _ = p.response(`"l"`)
		assert.JSONEq(t, string(iconJSON), toolIcons(t, m))
	})
}
