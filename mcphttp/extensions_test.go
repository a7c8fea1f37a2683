package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// searchExt is a third party's extension, built on the public API only:
// it advertises settings, adds a method (search/query, which lists the
// tools whose name holds params.q) and wraps tools/list, adding its own
// _meta member to every tool for a client that declared the extension
// (any other client gets the core protocol's list, SEP-2133's graceful
// degradation).
const searchExt = "com.example/search"

func newSearchServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := newEngineServer(t, nil)
	declared := func(ctx context.Context) bool {
		c := mcp.FromContext(ctx)
		_, ok := c.ClientCapabilities.Extensions[searchExt]
		return ok
	}
	srv.AddExtension(mcp.Extension{
		ID:       searchExt,
		Settings: map[string]int{"maxResults": 10},
		Methods: map[string]mcp.CallHandler{
			"search/query": func(ctx context.Context, c *mcp.Call) (any, error) {
				var p struct {
					Q string `json:"q"`
				}
				if err := json.Unmarshal(c.Params, &p); err != nil || p.Q == "" {
					return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "search/query needs params.q"}
				}
				var hits []string
				for _, tool := range srv.ListTools(ctx, c.Auth) {
					if strings.Contains(tool.Name, p.Q) {
						hits = append(hits, tool.Name)
					}
				}
				return map[string]any{"hits": hits, "declared": declared(ctx), "revision": c.ProtocolVersion}, nil
			},
		},
		Wrap: map[string]mcp.Interceptor{
			"tools/list": func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					res, err := next(ctx, c)
					if err != nil || !declared(ctx) {
						return res, err
					}
					b, err := json.Marshal(res)
					if err != nil {
						return nil, err
					}
					var page map[string]any
					if err := json.Unmarshal(b, &page); err != nil {
						return nil, err
					}
					for _, tool := range page["tools"].([]any) {
						tool.(map[string]any)["_meta"] = map[string]any{searchExt: map[string]bool{"indexed": true}}
					}
					return page, nil
				}
			},
		},
	})
	return srv
}

// extClient sends a request to the server at one revision, over one
// transport, and returns the response's result or error.
type extClient func(t *testing.T, method, params string) wiretest.Msg

// A third-party extension added with mcp.Server.AddExtension is
// advertised, serves its method and wraps tools/list over Streamable HTTP
// and stdio, at 2025-11-25 (a session, the extension declared in
// initialize) and at 2026-07-28 (per request, declared in _meta).
func TestThirdPartyExtension(t *testing.T) {
	t.Parallel()
	declared := `{"` + searchExt + `":{}}`
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, srv *mcp.Server, caps string) (extClient, json.RawMessage)
	}{
		{"http 2025-11-25", func(t *testing.T, srv *mcp.Server, caps string) (extClient, json.RawMessage) {
			return session2025(t, wiretest.StartHTTP(t, srv), caps)
		}},
		{"stdio 2025-11-25", func(t *testing.T, srv *mcp.Server, caps string) (extClient, json.RawMessage) {
			return session2025(t, wiretest.StartStdio(t, srv), caps)
		}},
		{"http 2026-07-28", rev20260728HTTP},
		{"stdio 2026-07-28", func(t *testing.T, srv *mcp.Server, caps string) (extClient, json.RawMessage) {
			return rev20260728RPC(t, wiretest.StartStdio(t, srv), caps)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, declares := range []bool{true, false} {
				caps := `{}`
				if declares {
					caps = `{"extensions":` + declared + `}`
				}
				send, exts := tc.connect(t, newSearchServer(t), caps)
				assert.JSONEq(t, `{"maxResults":10}`, string(jsonMember(t, exts, searchExt)), "advertised settings")

				m := send(t, "search/query", `{"q":"user"}`)
				require.Nil(t, m.Error, "search/query")
				var res struct {
					Hits       []string    `json:"hits"`
					Declared   bool        `json:"declared"`
					Revision   mcp.Version `json:"revision"`
					ResultType string      `json:"resultType"`
				}
				require.NoError(t, json.Unmarshal(m.Result, &res))
				assert.Equal(t, []string{"user_error"}, res.Hits)
				assert.Equal(t, declares, res.Declared, "the handler reads the client's capabilities from its Context")
				if strings.HasSuffix(tc.name, "2026-07-28") {
					assert.Equal(t, mcp.Version20260728, res.Revision)
					assert.Equal(t, "complete", res.ResultType, "the revision's result fields are added")
				} else {
					assert.Equal(t, mcp.Version20251125, res.Revision)
				}

				m = send(t, "search/query", `{}`)
				require.NotNil(t, m.Error)
				assert.EqualValues(t, mcp.CodeInvalidParams, m.Error.Code, "the handler's *mcp.Error goes out as it is")

				m = send(t, "tools/list", `{}`)
				require.Nil(t, m.Error, "tools/list")
				var list struct {
					Tools []struct {
						Name string                     `json:"name"`
						Meta map[string]json.RawMessage `json:"_meta"`
					} `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(m.Result, &list))
				require.NotEmpty(t, list.Tools)
				for _, tool := range list.Tools {
					_, wrapped := tool.Meta[searchExt]
					assert.Equal(t, declares, wrapped, "tool %s: the wrapper adds its member for a client that declared the extension only", tool.Name)
				}

				m = send(t, "search/other", `{}`)
				require.NotNil(t, m.Error)
				assert.EqualValues(t, mcp.CodeMethodNotFound, m.Error.Code, "a method no extension added")
			}
		})
	}
}

// session2025 initializes a session at 2025-11-25 declaring caps and
// returns its sender and initialize's capabilities.extensions.
func session2025(t *testing.T, c wiretest.RPCClient, caps string) (extClient, json.RawMessage) {
	t.Helper()
	raw := c.Send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
	c.Send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	init := decodeMsg(t, raw)
	require.Nil(t, init.Error)
	var r struct {
		Capabilities struct {
			Extensions json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(init.Result, &r))
	return func(t *testing.T, method, params string) wiretest.Msg {
		return decodeMsg(t, c.Send(t, `{"jsonrpc":"2.0","id":5,"method":"`+method+`","params":`+params+`}`))
	}, r.Capabilities.Extensions
}

// rev20260728Params is params with a 2026-07-28 _meta declaring caps.
func rev20260728Params(params, caps string) string {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params == `{}` {
		return `{` + meta + `}`
	}
	return strings.TrimSuffix(params, "}") + `,` + meta + `}`
}

// rev20260728RPC sends 2026-07-28 requests through c (stdio: no headers) and
// returns server/discover's capabilities.extensions.
func rev20260728RPC(t *testing.T, c wiretest.RPCClient, caps string) (extClient, json.RawMessage) {
	t.Helper()
	send := func(t *testing.T, method, params string) wiretest.Msg {
		return decodeMsg(t, c.Send(t, `{"jsonrpc":"2.0","id":6,"method":"`+method+`","params":`+rev20260728Params(params, caps)+`}`))
	}
	return send, discoverExtensions(t, send)
}

// rev20260728HTTP sends 2026-07-28 requests over Streamable HTTP, with the
// revision's headers.
func rev20260728HTTP(t *testing.T, srv *mcp.Server, caps string) (extClient, json.RawMessage) {
	t.Helper()
	h := mcphttp.New(srv, &mcphttp.Options{JSONResponse: true})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	send := func(t *testing.T, method, params string) wiretest.Msg {
		body := `{"jsonrpc":"2.0","id":6,"method":"` + method + `","params":` + rev20260728Params(params, caps) + `}`
		_, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, body,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method))
		require.NoError(t, err)
		return decodeMsg(t, b)
	}
	return send, discoverExtensions(t, send)
}

func discoverExtensions(t *testing.T, send extClient) json.RawMessage {
	t.Helper()
	m := send(t, "server/discover", `{}`)
	require.Nil(t, m.Error, "server/discover")
	var r struct {
		Capabilities struct {
			Extensions json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &r))
	return r.Capabilities.Extensions
}

func decodeMsg(t *testing.T, raw json.RawMessage) wiretest.Msg {
	t.Helper()
	var m wiretest.Msg
	require.NoError(t, json.Unmarshal(raw, &m), "%s", raw)
	return m
}

// jsonMember returns the member key of the JSON object obj.
func jsonMember(t *testing.T, obj json.RawMessage, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m), "%s", obj)
	require.Contains(t, m, key)
	return m[key]
}

// The extensions the server implements itself are advertised through the
// same registry: skills with their settings, at both eras; the tasks
// extension at 2026-07-28 only (2025-11-25 has capabilities.tasks).
func TestBuiltinExtensionsAdvertised(t *testing.T) {
	t.Parallel()
	srv := newEngineServer(t, nil)
	srv.AddSkills(skillsFS)
	send, exts := session2025(t, wiretest.StartHTTP(t, srv), `{}`)
	assert.JSONEq(t, `{"directoryRead":true}`, string(jsonMember(t, exts, skillsExt)))
	assert.NotContains(t, string(exts), "io.modelcontextprotocol/tasks")
	require.Nil(t, send(t, "skills/list", `{}`).Error)

	_, rev20260728 := rev20260728HTTP(t, srv, `{}`)
	assert.JSONEq(t, `{"directoryRead":true}`, string(jsonMember(t, rev20260728, skillsExt)))
	assert.JSONEq(t, `{}`, string(jsonMember(t, rev20260728, "io.modelcontextprotocol/tasks")))
}

func TestSkillsInInitialize2025(t *testing.T) {
	t.Parallel()
	ts := newSkillsServer(t, skillsFS, nil)
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		ext := initExtensions(t, &httpClient{t: t, url: ts.URL, hc: ts.Client()}, v, `{}`)
		assert.JSONEq(t, `{"directoryRead":true}`, string(ext["io.modelcontextprotocol/skills"]), v)
	}
	// Without skills there is no extensions member.
	c, _ := newTasks25(t, nil)
	_, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	assert.False(t, strings.Contains(string(b), `"extensions"`), "%s", b)
}

// TestSkillsAndAppsInInitialize: a server with skills and an app declares
// both extensions in initialize, at every 2025 revision, and in
// server/discover (two features built apart, one capabilities member).
func TestSkillsAndAppsInInitialize(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "both", Version: "1.0.0"})
	srv.AddSkills(skillsFS)
	srv.AddAppResource(mcp.AppResource{URI: "ui://both/view.html", Name: "view", HTML: "<p>hi</p>"})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		ext := initExtensions(t, &httpClient{t: t, url: ts.URL, hc: ts.Client()}, v, `{}`)
		assert.JSONEq(t, `{"directoryRead":true}`, string(ext["io.modelcontextprotocol/skills"]), v)
		assert.Contains(t, ext, apps.Extension, v)
	}
}

// initExtensions sends c's initialize at version, declaring caps, and
// returns the capabilities.extensions of the answer; c then speaks in the
// session it opened.
func initExtensions(t testing.TB, c *httpClient, version, caps string) map[string]json.RawMessage {
	t.Helper()
	resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), version
	var init struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(b, &init), "%s", b)
	return extensionsOf(t, init.Result)
}

// extensionsOf is the capabilities.extensions of an initialize or
// server/discover result.
func extensionsOf(t testing.TB, result json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var r struct {
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(result, &r), "%s", result)
	return r.Capabilities.Extensions
}
