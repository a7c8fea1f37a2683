package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

// appHTML is the view of the test app.
const appHTML = `<!DOCTYPE html><html><body><p id="t">weather</p></body></html>`

// newAppsServer has an app's view, a tool linked to it that the model
// sees, one only the view may call, a plain tool and a plain resource.
func newAppsServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "apps", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: "ui://weather/view.html", Name: "weather-view", HTML: appHTML,
		CSP:         &apps.CSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://*.cdn.example.com"}},
		Permissions: &apps.Permissions{Geolocation: true}, PrefersBorder: new(true)})
	mcp.AddTool(srv, mcp.Tool{Name: "weather", UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html"}},
		func(ctx context.Context, c *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return fmt.Sprintf("Sunny in %s (apps: %v)", in.City, c.ClientCapabilities.SupportsApps()), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "refreshed", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "plain"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "plain", nil })
	srv.AddResource(mcp.Resource{URI: "config://app", Name: "config",
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "{}"}}, nil
		}})
	return srv
}

// appsClient sends one request and returns its result, or the code of
// its JSON-RPC error; caps returns the extensions the server declared
// (initialize's at 2025-11-25, server/discover's at 2026-07-28). An
// embedded 2025 session keeps its initialize result to itself: its caps is
// nil (HTTP and stdio check that declaration).
type appsClient struct {
	call func(method, params string) (json.RawMessage, int64)
	caps func() map[string]json.RawMessage
}

// uiExt declares the apps extension as a host that renders apps does.
const uiExt = `{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}`

// The ways a client meets the server: HTTP at both revisions, an
// embedded session at both; ext is the extensions it declares ("" none).
var appsTransports = []struct {
	name  string
	start func(t *testing.T, srv *mcp.Server, ext string) appsClient
}{
	{"http 2025-11-25", startAppsHTTP2025},
	{"http 2026-07-28", startAppsHTTP2026},
	{"embedded 2025-11-25", func(t *testing.T, srv *mcp.Server, ext string) appsClient {
		return startAppsEmbedded(t, srv, ext, "")
	}},
	{"embedded 2026-07-28", func(t *testing.T, srv *mcp.Server, ext string) appsClient {
		return startAppsEmbedded(t, srv, ext, mcp.Version20260728)
	}},
}

func startAppsHTTP2025(t *testing.T, srv *mcp.Server, ext string) appsClient {
	c, _ := newHTTP(t, srv, nil)
	caps := "{}"
	if ext != "" {
		caps = `{"extensions":` + ext + `}`
	}
	extensions := initExtensions(t, c, "2025-11-25", caps)
	id := 0
	return appsClient{
		call: func(method, params string) (json.RawMessage, int64) {
			id++
			m, _ := c.call(id, method, params)
			if m.Error != nil {
				return nil, m.Error.Code
			}
			return m.Result, 0
		},
		caps: func() map[string]json.RawMessage { return extensions },
	}
}

func startAppsHTTP2026(t *testing.T, srv *mcp.Server, ext string) appsClient {
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	caps := "{}"
	if ext != "" {
		caps = `{"extensions":` + ext + `}`
	}
	call := func(method, params string) (json.RawMessage, int64) {
		var p map[string]any
		if params != "" {
			require.NoError(t, json.Unmarshal([]byte(params), &p))
		}
		var header []string
		switch method {
		case "tools/call":
			header = []string{"Mcp-Name", p["name"].(string)}
		case "resources/read":
			header = []string{"Mcp-Name", p["uri"].(string)}
		}
		body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{`
		if params != "" && params != "{}" {
			body += params[1:len(params)-1] + ","
		}
		body += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		_, msgs := rev20260728Post(t, ts, body, header...)
		require.NotEmpty(t, msgs)
		m := msgs[len(msgs)-1]
		if m.Error != nil {
			return nil, m.Error.Code
		}
		return m.Result, 0
	}
	return appsClient{call: call, caps: func() map[string]json.RawMessage { return discovered(t, call) }}
}

// discovered is the capabilities.extensions of server/discover, asked
// through call.
func discovered(t *testing.T, call func(method, params string) (json.RawMessage, int64)) map[string]json.RawMessage {
	t.Helper()
	res, code := call("server/discover", "")
	require.Zero(t, code)
	return extensionsOf(t, res)
}

func startAppsEmbedded(t *testing.T, srv *mcp.Server, ext string, version mcp.Version) appsClient {
	var extensions map[string]any
	if ext != "" {
		require.NoError(t, json.Unmarshal([]byte(ext), &extensions))
	}
	e := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version, Extensions: extensions}}).Client()
	call := func(method, params string) (json.RawMessage, int64) {
		var p any
		if params != "" {
			p = json.RawMessage(params)
		}
		var res json.RawMessage
		err := e.Call(t.Context(), method, p, &res)
		var je *mcp.Error
		if errors.As(err, &je) {
			return nil, int64(je.Code)
		}
		require.NoError(t, err)
		return res, 0
	}
	if version == "" {
		return appsClient{call: call}
	}
	return appsClient{call: call, caps: func() map[string]json.RawMessage { return discovered(t, call) }}
}

// TestAppsWire checks MCP Apps on the wire for a host that declares the
// extension and for a client that does not, on every transport: the
// server declares the extension; the linked tool carries _meta.ui (and
// the flat key older hosts read) for both; the app-only tool and the view
// are listed for the host only, and the app-only tool is callable by the
// host only; the view reads with its MIME type and _meta.ui for anyone.
func TestAppsWire(t *testing.T) {
	for _, tr := range appsTransports {
		for _, host := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s host=%v", tr.name, host), func(t *testing.T) {
				ext := ""
				if host {
					ext = uiExt
				}
				c := tr.start(t, newAppsServer(), ext)

				if c.caps != nil {
					assert.JSONEq(t, `{}`, string(c.caps()["io.modelcontextprotocol/ui"]), "the server declares the extension")
				}

				res, code := c.call("tools/list", "")
				require.Zero(t, code)
				var tools struct {
					Tools []struct {
						Name string          `json:"name"`
						Meta json.RawMessage `json:"_meta"`
					} `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(res, &tools))
				metas := map[string]string{}
				for _, tl := range tools.Tools {
					metas[tl.Name] = string(tl.Meta)
				}
				require.Contains(t, metas, "weather")
				assert.JSONEq(t, `{"ui":{"resourceUri":"ui://weather/view.html"},"ui/resourceUri":"ui://weather/view.html"}`, metas["weather"])
				assert.Empty(t, metas["plain"])
				assert.Contains(t, metas, "plain")
				if host {
					assert.JSONEq(t, `{"ui":{"resourceUri":"ui://weather/view.html","visibility":["app"]},"ui/resourceUri":"ui://weather/view.html"}`, metas["refresh"])
				} else {
					assert.NotContains(t, metas, "refresh", "an app-only tool is hidden from a client without apps")
				}

				res, code = c.call("resources/list", "")
				require.Zero(t, code)
				if host {
					assert.Contains(t, string(res), `{"uri":"ui://weather/view.html","name":"weather-view","mimeType":"text/html;profile=mcp-app","size":`+fmt.Sprint(len(appHTML))+`,"_meta":{"ui":{"csp":`)
				} else {
					assert.NotContains(t, string(res), "ui://weather/view.html")
				}
				assert.Contains(t, string(res), "config://app")

				res, code = c.call("resources/read", `{"uri":"ui://weather/view.html"}`)
				require.Zero(t, code)
				var read struct {
					Contents []json.RawMessage `json:"contents"`
				}
				require.NoError(t, json.Unmarshal(res, &read))
				require.Len(t, read.Contents, 1)
				assert.JSONEq(t, `{"uri":"ui://weather/view.html","mimeType":"text/html;profile=mcp-app","text":`+quote(appHTML)+`,
					"_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example.com"]},
					"permissions":{"geolocation":{}},"prefersBorder":true}}}`, string(read.Contents[0]))

				res, code = c.call("tools/call", `{"name":"weather","arguments":{"city":"Oslo"}}`)
				require.Zero(t, code)
				assert.Contains(t, string(res), fmt.Sprintf(`Sunny in Oslo (apps: %v)`, host), "the text fallback, and the tool knows")

				res, code = c.call("tools/call", `{"name":"refresh","arguments":{}}`)
				if host {
					require.Zero(t, code)
					assert.Contains(t, string(res), "refreshed")
				} else {
					assert.Equal(t, int64(mcp.CodeInvalidParams), code, "an app-only tool reads as unknown without apps")
				}
			})
		}
	}
}

// TestAppsClientDeclarations: what counts as declaring the extension.
// A client is never refused for its declaration, whatever its shape.
func TestAppsClientDeclarations(t *testing.T) {
	tests := []struct {
		ext  string
		apps bool
	}{
		{uiExt, true},
		{`{"io.modelcontextprotocol/ui":{}}`, true},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":["Text/HTML; profile=MCP-App"]}}`, true},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html"]}}`, false},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":[]}}`, false},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":"text/html;profile=mcp-app"}}`, false},
		{`{"io.modelcontextprotocol/ui":true}`, false},
		{`{"io.modelcontextprotocol/ui":null}`, false},
		{`{"io.modelcontextprotocol/skills":{}}`, false},
		{`[]`, false},
		{`"ui"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.ext, func(t *testing.T) {
			c := startAppsHTTP2025(t, newAppsServer(), tt.ext)
			res, code := c.call("tools/call", `{"name":"weather","arguments":{"city":"Rome"}}`)
			require.Zero(t, code)
			assert.Contains(t, string(res), fmt.Sprintf(`(apps: %v)`, tt.apps))
		})
	}
}

// TestAppsNotDeclaredWithoutApps: a server without an app's view
// declares no extension at 2025 and lists every tool to every client.
func TestAppsNotDeclaredWithoutApps(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "plain", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "plain"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "plain", nil })
	for _, tr := range appsTransports {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.start(t, srv, "")
			if c.caps != nil {
				assert.NotContains(t, c.caps(), "io.modelcontextprotocol/ui")
			}
			res, code := c.call("tools/list", "")
			require.Zero(t, code)
			assert.Contains(t, string(res), `"plain"`)
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestAppsAppOnlyTask: at 2026-07-28 an app-only tool that may run as a
// task is an unknown tool to a client that opts into tasks but not apps
// (no task is made), and a task for a host that declares both.
func TestAppsAppOnlyTask(t *testing.T) {
	srv := newAppsServer()
	mcp.AddTool(srv, mcp.Tool{Name: "rebuild", Task: &mcp.TaskOptions{},
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "rebuilt", nil })
	ts := httptest.NewServer(mcphttp.New(srv, nil))
	t.Cleanup(ts.Close)
	for _, tt := range []struct {
		ext      string
		wantCode int64
	}{
		{`{"io.modelcontextprotocol/tasks":{}}`, mcp.CodeInvalidParams},
		{`{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{}}`, 0},
	} {
		t.Run(tt.ext, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"rebuild","arguments":{},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":` + tt.ext + `}}}}`
			_, msgs := rev20260728Post(t, ts, body, "Mcp-Name", "rebuild")
			require.NotEmpty(t, msgs)
			m := msgs[len(msgs)-1]
			if tt.wantCode != 0 {
				require.NotNil(t, m.Error)
				assert.Equal(t, tt.wantCode, m.Error.Code)
				assert.Contains(t, m.Error.Message, `Unknown tool: "rebuild"`)
				return
			}
			require.Nil(t, m.Error)
			assert.Contains(t, string(m.Result), `"resultType":"task"`)
		})
	}
}

// TestAppsStateless: a stateless handler keeps nothing of initialize, so
// its 2025 requests cannot tell a host from a client without the
// extension, and are shown and may call everything; a 2026-07-28
// request still declares its capabilities and gets the fallback.
func TestAppsStateless(t *testing.T) {
	c, _ := newHTTP(t, newAppsServer(), &mcphttp.Options{Stateless: true})
	c.version = "2025-11-25"
	res, _ := c.call(1, "tools/list", "")
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), `"refresh"`)
	res, _ = c.call(2, "resources/list", "")
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), "ui://weather/view.html")
	res, _ = c.call(3, "tools/call", `{"name":"refresh","arguments":{}}`)
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), "refreshed")

	ts := httptest.NewServer(mcphttp.New(newAppsServer(), &mcphttp.Options{Stateless: true}))
	t.Cleanup(ts.Close)
	_, msgs := rev20260728Post(t, ts, rev20260728Body("tools/list", ""))
	require.Len(t, msgs, 1)
	require.Nil(t, msgs[0].Error)
	assert.NotContains(t, string(msgs[0].Result), `"refresh"`)
}

// TestAppsSessionTools: the mark follows the object a session sees, not
// the name: a session's own tool that only a view calls is hidden from a
// client without the extension, and a session's own plain tool that
// shadows a server-wide app-only one of the same name is not.
func TestAppsSessionTools(t *testing.T) {
	t.Parallel()
	srv := newAppsServer()
	c, _ := newHTTP(t, srv, nil)
	c.initialize("2025-11-25")
	view := func(context.Context, *mcp.Context, struct{}) (string, error) { return "view's", nil }
	require.NoError(t, mcp.TryAddTool(srv.SessionRegistry(c.sid), mcp.Tool{Name: "session_refresh",
		UI: &apps.ToolUI{ResourceURI: "ui://weather/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}}, view))
	require.NoError(t, mcp.TryAddTool(srv.SessionRegistry(c.sid), mcp.Tool{Name: "refresh"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "the session's refresh", nil }))

	list, _ := c.call(1, "tools/list", "")
	require.Nil(t, list.Error)
	assert.NotContains(t, string(list.Result), `"session_refresh"`)
	assert.Contains(t, string(list.Result), `"refresh"`, "the session's own plain tool")

	res, _ := c.call(2, "tools/call", `{"name":"session_refresh","arguments":{}}`)
	require.NotNil(t, res.Error)
	assert.Contains(t, res.Error.Message, `Unknown tool: "session_refresh"`)
	res, _ = c.call(3, "tools/call", `{"name":"refresh","arguments":{}}`)
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), "the session's refresh")
}
