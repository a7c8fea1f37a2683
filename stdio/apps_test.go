package stdio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
)

// newAppsServer has an app's view, a tool linked to it and a tool only
// the view may call.
func newAppsServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "apps", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: "ui://w/view.html", Name: "view", HTML: "<!DOCTYPE html><p>w</p>",
		CSP: &apps.CSP{ConnectDomains: []string{"https://api.example.com"}}})
	mcp.AddTool(srv, mcp.Tool{Name: "weather", UI: &apps.ToolUI{ResourceURI: "ui://w/view.html"}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "sunny", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", UI: &apps.ToolUI{ResourceURI: "ui://w/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "refreshed", nil })
	return srv
}

// TestServeApps: over stdio, at 2025-11-25 (initialize) and 2026-07-28
// (_meta), a host that declares the MCP Apps extension sees the app-only
// tool and the view and may call the tool; a client without it does not
// and may not; the server declares the extension either way.
func TestServeApps(t *testing.T) {
	t.Parallel()
	const ext = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	for _, rev20260728 := range []bool{false, true} {
		for _, host := range []bool{true, false} {
			t.Run(fmt.Sprintf("rev20260728=%v host=%v", rev20260728, host), func(t *testing.T) {
				t.Parallel()
				caps := "{}"
				if host {
					caps = ext
				}
				p := startServe(t, context.Background(), newHandler(t, newAppsServer()), nil)
				meta := ""
				var declared string
				if rev20260728 {
					meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
					p.send(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + meta[1:] + `}}`)
					m, _ := p.response("0")
					require.Nil(t, m.Error)
					declared = string(m.Result)
				} else {
					p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
					m, _ := p.response("0")
					require.Nil(t, m.Error)
					declared = string(m.Result)
					p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				}
				var d struct {
					Capabilities struct {
						Extensions map[string]json.RawMessage `json:"extensions"`
					} `json:"capabilities"`
				}
				require.NoError(t, json.Unmarshal([]byte(declared), &d))
				assert.Contains(t, d.Capabilities.Extensions, apps.Extension)

				p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null` + meta + `}}`)
				m, _ := p.response("1")
				require.Nil(t, m.Error)
				assert.Contains(t, string(m.Result), `"_meta":{"ui":{"resourceUri":"ui://w/view.html"},"ui/resourceUri":"ui://w/view.html"}`)
				assert.Equal(t, host, strings.Contains(string(m.Result), `"refresh"`), "app-only tool listed")

				p.send(`{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"cursor":null` + meta + `}}`)
				m, _ = p.response("2")
				require.Nil(t, m.Error)
				assert.Equal(t, host, strings.Contains(string(m.Result), `"uri":"ui://w/view.html","name":"view","mimeType":"text/html;profile=mcp-app"`), "view listed")

				p.send(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"ui://w/view.html"` + meta + `}}`)
				m, _ = p.response("3")
				require.Nil(t, m.Error)
				assert.Contains(t, string(m.Result), `"mimeType":"text/html;profile=mcp-app","text":"\u003c!DOCTYPE html\u003e\u003cp\u003ew\u003c/p\u003e","_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"]}}}`)

				p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"refresh","arguments":{}` + meta + `}}`)
				m, _ = p.response("4")
				if host {
					require.Nil(t, m.Error)
					assert.Contains(t, string(m.Result), "refreshed")
				} else {
					require.NotNil(t, m.Error)
					assert.EqualValues(t, mcp.CodeInvalidParams, m.Error.Code)
				}
			})
		}
	}
}
