package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rev20260728Meta is a valid 2026-07-28 _meta; extra members are merged in.
func rev20260728Meta(extra string) string {
	m := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	if extra != "" {
		m += "," + extra
	}
	return `"_meta":{` + m + `}`
}

// rev20260728Body is a request of revision 2026-07-28 with id 7.
func rev20260728Body(method, params string) string {
	if params != "" {
		params += ","
	}
	return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params + rev20260728Meta("") + `}}`
}

// newRev20260728Server serves the engine's test server plus a tool with an
// x-mcp-header argument.
func newRev20260728Server(t *testing.T, opts *mcphttp.Options, slow *mcptest.Probe) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	srv := newEngineServer(t, slow)
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"region": {Type: "string", Extra: map[string]any{"x-mcp-header": "Region"}},
		"zone":   {Type: "integer", Extra: map[string]any{"x-mcp-header": "Zone"}},
	}}
	srv.AddRawTool(mcp.Tool{Name: "where", InputSchema: schema},
		func(_ context.Context, _ *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{Content: []mcp.Content{mcp.Text(string(args))}}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "needs_sampling"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		if c.ClientCapabilities.Sampling == nil {
			return "", &mcp.Error{Code: mcp.CodeMissingClientCapability, Message: "sampling capability required",
				Data: map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}
		}
		return "sampled", nil
	})
	h := mcphttp.New(srv, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts, h
}

// rev20260728Post sends body with the headers (name, value pairs) after the
// 2026-07-28 defaults: MCP-Protocol-Version 2026-07-28 and Mcp-Method taken
// from the body.
func rev20260728Post(t *testing.T, ts *httptest.Server, body string, header ...string) (*http.Response, []msg) {
	t.Helper()
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	hd := append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", m.Method}, header...)
	resp, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, body, hd...))
	require.NoError(t, err)
	return resp, wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
}

func TestRev20260728Validation(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	call := func(name, args string) string {
		return rev20260728Body("tools/call", `"name":"`+name+`","arguments":`+args)
	}
	tests := []struct {
		name   string
		body   string
		header []string
		status int
		code   int64
		has    string
	}{
		{"missing _meta", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}`, nil,
			400, mcp.CodeInvalidParams, "params._meta is required"},
		{"missing protocolVersion", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, nil,
			400, mcp.CodeInvalidParams, `must carry "io.modelcontextprotocol/protocolVersion"`},
		{"missing clientCapabilities", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil,
			400, mcp.CodeInvalidParams, `must carry "io.modelcontextprotocol/clientCapabilities"`},
		{"capabilities not an object", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`, nil,
			400, mcp.CodeInvalidParams, "must be an object"},
		{"header missing, _meta has a version", rev20260728Body("server/discover", ""), []string{"MCP-Protocol-Version", ""},
			400, mcp.CodeHeaderMismatch, "MCP-Protocol-Version header is required"},
		{"header differs from _meta", strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"v999.0.0"`, 1), nil,
			400, mcp.CodeHeaderMismatch, `header "2026-07-28" does not match _meta protocolVersion "v999.0.0"`},
		{"unsupported version", strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"v999.0.0"`, 1), []string{"MCP-Protocol-Version", "v999.0.0"},
			400, mcp.CodeUnsupportedProtocolVersion, `Unsupported protocol version: "v999.0.0"`},
		{"Mcp-Method missing", rev20260728Body("tools/list", ""), []string{"Mcp-Method", ""},
			400, mcp.CodeHeaderMismatch, "the Mcp-Method header is required"},
		{"Mcp-Method differs", rev20260728Body("tools/list", ""), []string{"Mcp-Method", "prompts/list"},
			400, mcp.CodeHeaderMismatch, `Mcp-Method header value "prompts/list" does not match body value "tools/list"`},
		{"Mcp-Method case differs", rev20260728Body("tools/list", ""), []string{"Mcp-Method", "TOOLS/LIST"},
			400, mcp.CodeHeaderMismatch, `"TOOLS/LIST" does not match`},
		{"Mcp-Name missing", call("add", `{"a":1,"b":2}`), nil,
			400, mcp.CodeHeaderMismatch, "the Mcp-Name header is required for tools/call"},
		{"Mcp-Name differs", call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "wrong"},
			400, mcp.CodeHeaderMismatch, `Mcp-Name header value "wrong" does not match body value "add"`},
		{"Mcp-Name bad Base64", call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "=?base64?YWR?="},
			400, mcp.CodeHeaderMismatch, "not valid Base64"},
		{"resources/read needs Mcp-Name", rev20260728Body("resources/read", `"uri":"mem://hello"`), nil,
			400, mcp.CodeHeaderMismatch, "must equal the body's params.uri"},
		{"removed method initialize", rev20260728Body("initialize", ""), nil,
			404, mcp.CodeMethodNotFound, `"initialize" is not a method of protocol revision 2026-07-28`},
		{"removed method ping", rev20260728Body("ping", ""), nil, 404, mcp.CodeMethodNotFound, "not a method"},
		// The official Go SDK's Ping at 2026-07-28: no _meta at all. What it
		// needs to hear is that the method is gone, not that _meta is missing.
		{"removed method ping without _meta", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil, 404, mcp.CodeMethodNotFound, `"ping" is not a method`},
		{"removed method logging/setLevel", rev20260728Body("logging/setLevel", `"level":"info"`), nil, 404, mcp.CodeMethodNotFound, "not a method"},
		{"removed method resources/subscribe", rev20260728Body("resources/subscribe", `"uri":"mem://hello"`), nil, 404, mcp.CodeMethodNotFound, "not a method"},
		{"unknown method", rev20260728Body("unknown/method", ""), nil, 404, mcp.CodeMethodNotFound, `"unknown/method"`},
		{"param header missing", call("where", `{"region":"eu"}`), []string{"Mcp-Name", "where"},
			400, mcp.CodeHeaderMismatch, `header Mcp-Param-Region is required: argument "region" is present`},
		{"param header differs", call("where", `{"region":"eu"}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "us"},
			400, mcp.CodeHeaderMismatch, `Mcp-Param-Region header value "us" does not match argument "region"`},
		{"param header unpadded Base64", call("where", `{"region":"Hello"}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "=?base64?SGVsbG8?="},
			400, mcp.CodeHeaderMismatch, "not valid Base64"},
		{"param header without argument", call("where", `{}`), []string{"Mcp-Name", "where", "Mcp-Param-Zone", "3"},
			400, mcp.CodeHeaderMismatch, `header Mcp-Param-Zone was sent but argument "zone" is absent`},
		{"integer param differs", call("where", `{"zone":3}`), []string{"Mcp-Name", "where", "Mcp-Param-Zone", "4"},
			400, mcp.CodeHeaderMismatch, `Mcp-Param-Zone header value "4" does not match argument "zone"`},
		{"missing client capability", call("needs_sampling", `{}`), []string{"Mcp-Name", "needs_sampling"},
			400, mcp.CodeMissingClientCapability, "sampling capability required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, msgs := rev20260728Post(t, ts, tt.body, tt.header...)
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].Error)
			assert.Equal(t, tt.code, msgs[0].Error.Code)
			assert.Contains(t, msgs[0].Error.Message, tt.has)
			assert.JSONEq(t, "7", string(msgs[0].ID), "every error echoes the request id")
		})
	}
}

// Client values reflected in errors are capped (strictjson.Quote).
func TestRev20260728HostileValues(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	long := strings.Repeat("x", 10000)
	tests := []struct {
		name   string
		body   string
		header []string
		code   int64
	}{
		{"long Mcp-Method", rev20260728Body("tools/list", ""), []string{"Mcp-Method", long}, mcp.CodeHeaderMismatch},
		{"long Mcp-Name", rev20260728Body("tools/call", `"name":"add"`), []string{"Mcp-Name", long}, mcp.CodeHeaderMismatch},
		{"long method", rev20260728Body(long, ""), []string{"Mcp-Method", long}, mcp.CodeMethodNotFound},
		{"long version", strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"`+long+`"`, 1), []string{"MCP-Protocol-Version", long}, mcp.CodeUnsupportedProtocolVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, msgs := rev20260728Post(t, ts, tt.body, tt.header...)
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].Error)
			assert.Equal(t, tt.code, msgs[0].Error.Code)
			assert.Less(t, len(msgs[0].Error.Message), 600, "the reflected value is capped")
			assert.Less(t, len(msgs[0].Error.Data), 600)
		})
	}
}

func TestRev20260728UnsupportedVersionData(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	body := strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"v999.0.0"`, 1)
	_, msgs := rev20260728Post(t, ts, body, "MCP-Protocol-Version", "v999.0.0")
	require.Len(t, msgs, 1)
	require.NotNil(t, msgs[0].Error)
	var data struct {
		Supported []mcp.Version `json:"supported"`
		Requested string        `json:"requested"`
	}
	require.NoError(t, json.Unmarshal(msgs[0].Error.Data, &data))
	assert.Equal(t, "v999.0.0", data.Requested)
	assert.Equal(t, mcphttp.SupportedVersions(), data.Supported)
}

func TestRev20260728Accepted(t *testing.T) {
	ts, h := newRev20260728Server(t, nil, nil)
	call := func(name, args string) string {
		return rev20260728Body("tools/call", `"name":"`+name+`","arguments":`+args)
	}
	tests := []struct {
		name   string
		body   string
		header []string
		text   string
	}{
		{"Mcp-Name with whitespace", call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "  add  "}, "3"},
		{"Mcp-Name in Base64", call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "=?base64?YWRk?="}, "3"},
		{"lower-case header names", call("add", `{"a":2,"b":2}`), []string{"mcp-name", "add", "mcp-method", "tools/call"}, "4"},
		{"param header in Base64", call("where", `{"region":"Hello"}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "=?base64?SGVsbG8=?="}, `{"region":"Hello"}`},
		{"param header literal lookalike", call("where", `{"region":"=?base64?SGVsbG8="}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "=?base64?SGVsbG8="}, `{"region":"=?base64?SGVsbG8="}`},
		{"integer param header", call("where", `{"zone":3}`), []string{"Mcp-Name", "where", "Mcp-Param-Zone", "3"}, `{"zone":3}`},
		{"absent argument needs no header", call("where", `{}`), []string{"Mcp-Name", "where"}, `{}`},
		{"clientInfo is optional", call("add", `{"a":0,"b":0}`), []string{"Mcp-Name", "add"}, "0"},
		{"a session ID is ignored", call("add", `{"a":5,"b":0}`), []string{"Mcp-Name", "add", "Mcp-Session-Id", "nosuchsession"}, "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, msgs := rev20260728Post(t, ts, tt.body, tt.header...)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"), "no session is ever issued")
			require.Len(t, msgs, 1)
			require.Nil(t, msgs[0].Error)
			assert.Equal(t, tt.text, wiretest.ToolResult(t, msgs[0]).Content[0].(mcp.TextContent).Text)
			assert.Contains(t, string(msgs[0].Result), `"resultType":"complete"`)
		})
	}
	assert.Zero(t, h.SessionCount())
}

func TestRev20260728Results(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	tests := []struct {
		name    string
		body    string
		header  []string
		cached  bool
		members []string
	}{
		{"server/discover", rev20260728Body("server/discover", ""), nil, true, []string{"supportedVersions", "capabilities"}},
		{"tools/list", rev20260728Body("tools/list", ""), nil, true, []string{"tools"}},
		{"prompts/list", rev20260728Body("prompts/list", ""), nil, true, []string{"prompts"}},
		{"resources/list", rev20260728Body("resources/list", ""), nil, true, []string{"resources"}},
		{"resources/templates/list", rev20260728Body("resources/templates/list", ""), nil, true, []string{"resourceTemplates"}},
		{"resources/read", rev20260728Body("resources/read", `"uri":"mem://hello"`), []string{"Mcp-Name", "mem://hello"}, true, []string{"contents"}},
		{"prompts/get", rev20260728Body("prompts/get", `"name":"greet","arguments":{"name":"Ada"}`), []string{"Mcp-Name", "greet"}, false, []string{"messages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, msgs := rev20260728Post(t, ts, tt.body, tt.header...)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Len(t, msgs, 1)
			require.Nil(t, msgs[0].Error)
			var res map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
			assert.JSONEq(t, `"complete"`, string(res["resultType"]))
			assert.JSONEq(t, `{"io.modelcontextprotocol/serverInfo":{"name":"mcphttp-test","version":"1.0.0"}}`, string(res["_meta"]))
			for _, m := range tt.members {
				assert.Contains(t, res, m)
			}
			if tt.cached {
				assert.JSONEq(t, `0`, string(res["ttlMs"]))
				assert.JSONEq(t, `"public"`, string(res["cacheScope"]))
			} else {
				assert.NotContains(t, res, "ttlMs")
			}
		})
	}
}

func TestRev20260728Discover(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	_, msgs := rev20260728Post(t, ts, rev20260728Body("server/discover", ""))
	require.Len(t, msgs, 1)
	var res struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
	assert.Equal(t, "2026-07-28", res.SupportedVersions[0])
	assert.Contains(t, res.SupportedVersions, "2025-11-25")
	for _, c := range []string{"tools", "prompts", "resources", "completions", "logging"} {
		assert.Contains(t, res.Capabilities, c)
	}
	assert.NotContains(t, res.Capabilities, "tasks", "tasks live under extensions, never as a v1 capability")
}

func TestRev20260728LogsAndProgress(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	logCall := func(extra string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"log",` + rev20260728Meta(extra) + `}}`
	}
	t.Run("no logLevel: no log messages", func(t *testing.T) {
		resp, msgs := rev20260728Post(t, ts, logCall(""), "Mcp-Name", "log")
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		require.Len(t, msgs, 1)
		assert.True(t, msgs[0].IsResponse())
	})
	t.Run("logLevel info: info and above, then the result", func(t *testing.T) {
		resp, msgs := rev20260728Post(t, ts, logCall(`"io.modelcontextprotocol/logLevel":"info"`), "Mcp-Name", "log")
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		require.Len(t, msgs, 3)
		assert.Equal(t, "notifications/message", msgs[0].Method)
		assert.Contains(t, string(msgs[0].Params), `"level":"info"`)
		assert.Contains(t, string(msgs[1].Params), `"level":"error"`)
		assert.True(t, msgs[2].IsResponse())
	})
	t.Run("bad logLevel", func(t *testing.T) {
		resp, msgs := rev20260728Post(t, ts, logCall(`"io.modelcontextprotocol/logLevel":"loud"`), "Mcp-Name", "log")
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.Len(t, msgs, 1)
		assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code)
		assert.Contains(t, msgs[0].Error.Message, `is "\"loud\"", not a log level`)
	})
	t.Run("progress goes on the request's stream", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress",` + rev20260728Meta(`"progressToken":"p1"`) + `}}`
		resp, msgs := rev20260728Post(t, ts, body, "Mcp-Name", "progress")
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		require.Len(t, msgs, 4)
		assert.Equal(t, "notifications/progress", msgs[0].Method)
		assert.Contains(t, string(msgs[3].Result), `"resultType":"complete"`)
	})
}

func TestRev20260728Transport(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	tests := []struct {
		name   string
		method string
		body   string
		header []string
		status int
		has    string
	}{
		{"GET is 405", http.MethodGet, "", []string{"MCP-Protocol-Version", "2026-07-28"}, 405, "has no GET stream and no sessions"},
		{"DELETE is 405", http.MethodDelete, "", []string{"MCP-Protocol-Version", "2026-07-28"}, 405, "has no GET stream and no sessions"},
		{"a batch is refused", http.MethodPost, "[" + rev20260728Body("tools/list", "") + "]", []string{"MCP-Protocol-Version", "2026-07-28"}, 400, "one JSON-RPC message per POST"},
		{"a notification is accepted", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` + rev20260728Meta("") + `}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "notifications/cancelled"}, 202, ""},
		// What the official Go SDK client (v1.8.0) sends when a call's
		// context ends: no _meta, no Mcp-Method. An error status here makes
		// it close its connection for good.
		{"a notification without _meta is accepted", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"context deadline exceeded","requestId":23}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28"}, 202, ""},
		{"a notification with no params is accepted", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
			[]string{"MCP-Protocol-Version", "2026-07-28"}, 202, ""},
		{"a notification naming an unknown version in _meta is accepted", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999"}}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "notifications/other"}, 202, ""},
		{"a response is refused", http.MethodPost, `{"jsonrpc":"2.0","id":3,"result":{}}`, []string{"MCP-Protocol-Version", "2026-07-28"}, 400, "the server sends no requests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), tt.method, ts.URL, tt.body, tt.header...))
			require.NoError(t, err)
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Contains(t, string(b), tt.has)
			if tt.status == 405 {
				assert.Equal(t, "POST", resp.Header.Get("Allow"))
			}
		})
	}
}

// Both eras on one handler: a 2025 session works next to 2026-07-28 requests,
// and a legacy header keeps the legacy path whatever the body says.
func TestRev20260728AndLegacyTogether(t *testing.T) {
	ts, h := newRev20260728Server(t, nil, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	resp, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, init))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	assert.Equal(t, 1, h.SessionCount())

	_, msgs := rev20260728Post(t, ts, rev20260728Body("tools/list", ""))
	require.Len(t, msgs, 1)
	require.Nil(t, msgs[0].Error)

	// The legacy session's ping still works, with _meta members ignored.
	resp, b, err = wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL,
		rev20260728Body("ping", ""), "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	assert.Contains(t, string(b), `"result":{}`)
	assert.Equal(t, 1, h.SessionCount(), "2026-07-28 requests make no sessions")
}

// sseFrames reads the SSE data frames of body on a goroutine of its own
// until the body ends.
func sseFrames(body io.Reader) <-chan msg {
	frames := make(chan msg, 16)
	go func() {
		defer close(frames)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m msg
				if json.Unmarshal([]byte(d), &m) == nil {
					frames <- m
				}
			}
		}
	}()
	return frames
}

// readFrames takes frames until it has n or wait passes.
func readFrames(frames <-chan msg, n int, wait time.Duration) []msg {
	var out []msg
	deadline := time.After(wait)
	for len(out) < n {
		select {
		case m, ok := <-frames:
			if !ok {
				return out
			}
			out = append(out, m)
		case <-deadline:
			return out
		}
	}
	return out
}

func TestRev20260728Listen(t *testing.T) {
	ts, h := newRev20260728Server(t, nil, nil)
	srv := h.Server()
	tests := []struct {
		name    string
		filter  string
		change  func()
		want    string // the method of the notification after the ack; "" none
		wantURI string
	}{
		{"tools", `{"toolsListChanged":true}`, func() { srv.Registry().Remove(mcp.KindTool, "add") }, "notifications/tools/list_changed", ""},
		{"prompts only: no tool changes", `{"promptsListChanged":true}`, func() { srv.Registry().Remove(mcp.KindTool, "fail") }, "", ""},
		{"prompts", `{"promptsListChanged":true}`, func() { srv.Registry().Remove(mcp.KindPrompt, "greet") }, "notifications/prompts/list_changed", ""},
		{"a resource", `{"resourceSubscriptions":["mem://hello"]}`, func() { srv.ResourceUpdated("mem://other"); srv.ResourceUpdated("mem://hello") }, "notifications/resources/updated", "mem://hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			body := `{"jsonrpc":"2.0","id":"s1","method":"subscriptions/listen","params":{"notifications":` + tt.filter + `,` + rev20260728Meta("") + `}}`
			req := wiretest.NewRequest(ctx, http.MethodPost, ts.URL, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
			frames := sseFrames(resp.Body)
			ack := readFrames(frames, 1, 2*time.Second)
			require.Len(t, ack, 1)
			assert.Equal(t, "notifications/subscriptions/acknowledged", ack[0].Method)
			assert.JSONEq(t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s1"},"notifications":`+tt.filter+`}`, string(ack[0].Params))
			tt.change()
			wait := 2 * time.Second
			if tt.want == "" {
				wait = 300 * time.Millisecond
			}
			got := readFrames(frames, 1, wait)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, got[0].Method)
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
				URI  string                     `json:"uri"`
			}
			require.NoError(t, json.Unmarshal(got[0].Params, &p))
			assert.JSONEq(t, `"s1"`, string(p.Meta["io.modelcontextprotocol/subscriptionId"]))
			assert.Equal(t, tt.wantURI, p.URI)
		})
	}
	t.Run("no filter", func(t *testing.T) {
		resp, msgs := rev20260728Post(t, ts, rev20260728Body("subscriptions/listen", ""))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		require.Len(t, msgs, 1)
		require.NotNil(t, msgs[0].Error)
		assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code)
		assert.Contains(t, msgs[0].Error.Message, `subscriptions/listen needs "notifications"`)
	})
}

// Closing the response is the cancellation in 2026-07-28: the tool's
// context ends.
func TestRev20260728DisconnectCancels(t *testing.T) {
	probe := mcptest.NewProbe()
	ts, _ := newRev20260728Server(t, nil, probe)
	ctx, cancel := context.WithCancel(t.Context())
	body := rev20260728Body("tools/call", `"name":"slow","arguments":{}`)
	req := wiretest.NewRequest(ctx, http.MethodPost, ts.URL, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "slow")
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := ts.Client().Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
	}()
	select {
	case <-probe.Started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	cancel()
	select {
	case err := <-probe.Stopped:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context did not end when the client went away")
	}
	<-done
}

func TestRev20260728ListenLimit(t *testing.T) {
	ts, _ := newRev20260728Server(t, &mcphttp.Options{MaxSessions: 1}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + rev20260728Meta("") + `}}`
	hd := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"}
	resp, err := ts.Client().Do(wiretest.NewRequest(ctx, http.MethodPost, ts.URL, body, hd...))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Len(t, readFrames(sseFrames(resp.Body), 1, 2*time.Second), 1, "the first stream is acknowledged")

	resp2, msgs := rev20260728Post(t, ts, body)
	assert.Equal(t, http.StatusServiceUnavailable, resp2.StatusCode)
	assert.Equal(t, "5", resp2.Header.Get("Retry-After"))
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0].Error.Message, "mcphttp.Options.MaxSessions")
}

// cacheUser is auth data with a subject (a requestState binds it).
type cacheUser string

func (u cacheUser) Subject() string { return string(u) }

// cacheServer is a server with one object of each kind and the list hints
// cache; add registers more, and wrap, when set, is middleware around the
// engine. A request with X-User is authenticated as that user.
type cacheServer struct {
	cache *mcp.CacheOptions
	add   func(srv *mcp.Server)
	wrap  func(http.Handler) http.Handler
}

func (cs cacheServer) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "cache-test", Version: "1.0.0", Logger: discardLogger(), Cache: cs.cache,
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return cacheUser(u), nil
			}
			return nil, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil })
	text := func(s string) func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: s}}, nil
		}
	}
	srv.AddResource(mcp.Resource{URI: "mem://plain", Name: "plain", Load: text("plain")})
	srv.AddResource(mcp.Resource{URI: "mem://shared", Name: "shared", Load: text("shared"),
		Cache: mcp.CacheHint{TTL: 90 * time.Second, Scope: mcp.CachePublic}})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "doc://{page}", Name: "doc",
		Cache: mcp.CacheHint{TTL: 2500 * time.Millisecond, Scope: mcp.CachePublic},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: args["page"]}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("hi"), nil
	}})
	if cs.add != nil {
		cs.add(srv)
	}
	engine := mcphttp.New(srv, nil)
	var h http.Handler = engine
	if cs.wrap != nil {
		h = cs.wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = engine.Close() })
	return ts
}

// cacheReq is one cacheable request: its method, its params (without
// _meta) and its Mcp-Name.
type cacheReq struct{ method, params, name string }

var (
	toolsList     = cacheReq{"tools/list", "", ""}
	resourcesList = cacheReq{"resources/list", "", ""}
	templatesList = cacheReq{"resources/templates/list", "", ""}
	promptsList   = cacheReq{"prompts/list", "", ""}
	discover      = cacheReq{"server/discover", "", ""}
)

func read(uri string) cacheReq { return cacheReq{"resources/read", `"uri":` + strconv.Quote(uri), uri} }

// hint is what a result says of its caching: ttlMs and cacheScope as
// sent, "" for a member that is absent.
type hint struct{ ttl, scope string }

// members returns the caching members of a result.
func members(t *testing.T, m msg) hint {
	t.Helper()
	require.Nil(t, m.Error, "%s", m.Result)
	var res map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m.Result, &res))
	var scope string
	if raw, ok := res["cacheScope"]; ok {
		require.NoError(t, json.Unmarshal(raw, &scope))
	}
	return hint{string(res["ttlMs"]), scope}
}

// rev20260728 sends q at 2026-07-28, as user ("": anonymous), and returns the
// result's caching members.
func (q cacheReq) rev20260728(t *testing.T, ts *httptest.Server, user string) hint {
	t.Helper()
	var header []string
	if q.name != "" {
		header = append(header, "Mcp-Name", q.name)
	}
	if user != "" {
		header = append(header, "X-User", user)
	}
	resp, msgs := rev20260728Post(t, ts, rev20260728Body(q.method, q.params), header...)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, msgs, 1)
	return members(t, msgs[0])
}

var fullHints = &mcp.CacheOptions{
	Tools:             mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
	Resources:         mcp.CacheHint{TTL: 2 * time.Minute},
	ResourceTemplates: mcp.CacheHint{TTL: 3 * time.Minute, Scope: mcp.CachePrivate},
	Prompts:           mcp.CacheHint{TTL: 1500 * time.Microsecond, Scope: mcp.CachePublic},
	Discover:          mcp.CacheHint{TTL: time.Hour, Scope: mcp.CachePublic},
}

// TestCacheHintsByRevision: the hints go out at 2026-07-28 only; the
// 2025 revisions' results have no ttlMs or cacheScope, whatever the
// server set.
func TestCacheHintsByRevision(t *testing.T) {
	t.Parallel()
	ts := cacheServer{cache: fullHints}.start(t)
	tests := []struct {
		req  cacheReq
		want hint // at 2026-07-28
	}{
		{toolsList, hint{"60000", "public"}},
		{resourcesList, hint{"120000", "public"}},
		{templatesList, hint{"180000", "private"}},
		{promptsList, hint{"1", "public"}}, // whole milliseconds, rounded down
		{read("mem://plain"), hint{"0", "public"}},
		{read("mem://shared"), hint{"90000", "public"}},
		{read("doc://intro"), hint{"2500", "public"}},
		{discover, hint{"3600000", "public"}},
	}
	for _, v := range []mcp.Version{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			var c *httpClient
			if !v.Sessionless() {
				c = &httpClient{t: t, url: ts.URL, hc: ts.Client()}
				c.initialize(string(v))
			}
			for i, tt := range tests {
				if !v.Sessionless() {
					if tt.req == discover {
						continue // a 2026-07-28 method
					}
					params := "{" + tt.req.params + "}"
					res, _ := c.call(i+1, tt.req.method, params)
					assert.Equal(t, hint{}, members(t, res), "%s at %s", tt.req.method, v)
					continue
				}
				assert.Equal(t, tt.want, tt.req.rev20260728(t, ts, ""), "%s %s", tt.req.method, tt.req.params)
			}
		})
	}
}

// TestCacheScopeRules: the scope each result goes out with at 2026-07-28,
// by the rules of mcp.CacheHint: the author's private always wins; what
// may depend on the caller is private whatever the author asked; the
// author's public holds otherwise, even authenticated; with no scope
// asked, authenticated is private and anonymous public.
func TestCacheScopeRules(t *testing.T) {
	t.Parallel()
	allPublic := &mcp.CacheOptions{
		Tools:             mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Resources:         mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		ResourceTemplates: mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Prompts:           mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
		Discover:          mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
	}
	adminOnly := mcp.AccessCheck(func(_ context.Context, auth any) bool { return auth == cacheUser("admin") })
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	load := func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "x"}}, nil
	}
	publicMinute := mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}
	child := func(add func(*mcp.Server)) *mcp.Server {
		c := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0", Logger: discardLogger()})
		mcp.AddTool(c, mcp.Tool{Name: "inner"}, noop)
		if add != nil {
			add(c)
		}
		return c
	}

	type check struct {
		req  cacheReq
		user string
		want string // cacheScope
	}
	tests := []struct {
		name   string
		server cacheServer
		checks []check
	}{
		{"no hints: authenticated private, anonymous public", cacheServer{}, []check{
			{toolsList, "", "public"}, {toolsList, "alice", "private"},
			{resourcesList, "alice", "private"}, {templatesList, "alice", "private"}, {promptsList, "alice", "private"},
			{discover, "", "public"}, {discover, "alice", "private"},
			{read("mem://plain"), "", "public"}, {read("mem://plain"), "alice", "private"},
		}},
		{"the author's public holds for an authenticated caller", cacheServer{cache: allPublic}, []check{
			{toolsList, "alice", "public"}, {resourcesList, "alice", "public"}, {templatesList, "alice", "public"},
			{promptsList, "alice", "public"}, {discover, "alice", "public"},
			{read("mem://shared"), "alice", "public"}, {read("doc://a"), "alice", "public"},
		}},
		{"a read the author marked nothing is private when authenticated", cacheServer{cache: allPublic}, []check{
			{read("mem://plain"), "alice", "private"}, {read("mem://plain"), "", "public"},
		}},
		{"the author's private holds for an anonymous caller", cacheServer{cache: &mcp.CacheOptions{
			Tools: mcp.CacheHint{Scope: mcp.CachePrivate}, Discover: mcp.CacheHint{Scope: mcp.CachePrivate}},
			add: func(srv *mcp.Server) {
				srv.AddResource(mcp.Resource{URI: "mem://mine", Name: "mine", Load: load, Cache: mcp.CacheHint{Scope: mcp.CachePrivate}})
			}}, []check{
			{toolsList, "", "private"}, {discover, "", "private"}, {read("mem://mine"), "", "private"},
			{promptsList, "", "public"},
		}},
		{"a tool with CanAccess makes tools/list private, and only it", cacheServer{cache: allPublic, add: func(srv *mcp.Server) {
			mcp.AddTool(srv, mcp.Tool{Name: "admin", CanAccess: adminOnly}, noop)
		}}, []check{
			{toolsList, "admin", "private"}, {toolsList, "alice", "private"}, {toolsList, "", "private"},
			{promptsList, "alice", "public"}, {resourcesList, "alice", "public"}, {discover, "alice", "public"},
		}},
		{"a prompt, resource or template with CanAccess makes its list private", cacheServer{cache: allPublic, add: func(srv *mcp.Server) {
			srv.AddPrompt(mcp.Prompt{Name: "secret", CanAccess: mcp.RequireAuth, Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
				return mcp.UserText("s"), nil
			}})
			srv.AddResource(mcp.Resource{URI: "mem://secret", Name: "secret", CanAccess: mcp.RequireAuth, Load: load, Cache: publicMinute})
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "vault://{k}", Name: "vault", CanAccess: mcp.RequireAuth, Cache: publicMinute,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "v"}}, nil
				}})
		}}, []check{
			{promptsList, "alice", "private"}, {resourcesList, "", "private"}, {templatesList, "alice", "private"},
			{toolsList, "alice", "public"},
		}},
		{"a read of an object with CanAccess is private, even marked public", cacheServer{add: func(srv *mcp.Server) {
			srv.AddResource(mcp.Resource{URI: "mem://secret", Name: "secret", CanAccess: mcp.RequireAuth, Load: load, Cache: publicMinute})
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "vault://{k}", Name: "vault", CanAccess: mcp.RequireAuth, Cache: publicMinute,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "v"}}, nil
				}})
		}}, []check{
			{read("mem://secret"), "alice", "private"}, {read("vault://k1"), "alice", "private"},
			{read("mem://shared"), "alice", "public"}, {read("doc://a"), "alice", "public"},
		}},
		{"a read another caller would get from an object this one is refused is private", cacheServer{add: func(srv *mcp.Server) {
			// doc://secret is a static resource only admin sees; others
			// read it through the public template doc://{page}.
			srv.AddResource(mcp.Resource{URI: "doc://secret", Name: "secret", CanAccess: adminOnly, Load: load})
			// A template with a check before a public one that matches too.
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "wiki://{a}/{b}", Name: "gated", CanAccess: adminOnly,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "gated"}}, nil
				}})
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "wiki://{+path}", Name: "open", Cache: publicMinute,
				Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
					return []mcp.ResourceContents{{Text: "open"}}, nil
				}})
		}}, []check{
			{read("doc://secret"), "alice", "private"}, {read("doc://secret"), "", "private"},
			{read("doc://other"), "alice", "public"},
			{read("wiki://x/y"), "alice", "private"}, {read("wiki://x"), "alice", "public"},
		}},
		{"a version with CanAccess makes tools/list private", cacheServer{cache: allPublic, add: func(srv *mcp.Server) {
			mcp.AddTool(srv, mcp.Tool{Name: "calc", Version: "1.0.0"}, noop)
			mcp.AddTool(srv, mcp.Tool{Name: "calc", Version: "2.0.0", CanAccess: adminOnly}, noop)
		}}, []check{{toolsList, "alice", "private"}, {toolsList, "admin", "private"}, {promptsList, "alice", "public"}}},
		{"an access policy in the request makes every list and read private", cacheServer{cache: allPublic,
			wrap: middleware.RestrictAccess(func(auth any, kind mcp.Kind, name string) bool { return true })}, []check{
			{toolsList, "alice", "private"}, {resourcesList, "", "private"}, {templatesList, "alice", "private"},
			{promptsList, "alice", "private"}, {read("mem://shared"), "alice", "private"}, {read("doc://a"), "", "private"},
			{discover, "alice", "public"},
		}},
		{"a session access policy too", cacheServer{cache: allPublic, wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p := mcp.Restrict(mcp.Match{Tags: []string{"admin"}}, mcp.RequireRoles("admin"))
				next.ServeHTTP(w, r.WithContext(mcp.WithSessionAccessPolicy(r.Context(), p)))
			})
		}}, []check{{toolsList, "alice", "private"}, {promptsList, "", "private"}}},
		{"a version filter makes tools/list private, and only it", cacheServer{cache: allPublic, wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(w, r.WithContext(mcp.WithVersionFilter(r.Context(), func(string) bool { return true })))
			})
		}}, []check{{toolsList, "alice", "private"}, {promptsList, "alice", "public"}}},
		{"a mount with CanAccess makes the lists private", cacheServer{cache: allPublic, add: func(srv *mcp.Server) {
			srv.Mount("kid", child(nil), &mcp.MountOptions{CanAccess: mcp.RequireAuth})
		}}, []check{{toolsList, "alice", "private"}, {toolsList, "", "private"}, {promptsList, "alice", "private"}}},
		{"a mounted server's CanAccess makes the list private", cacheServer{cache: allPublic, add: func(srv *mcp.Server) {
			srv.Mount("kid", child(func(c *mcp.Server) {
				mcp.AddTool(c, mcp.Tool{Name: "gated", CanAccess: adminOnly}, noop)
				c.AddResource(mcp.Resource{URI: "kid://open", Name: "open", Load: load, Cache: publicMinute})
				c.AddResource(mcp.Resource{URI: "kid://gated", Name: "gated", Load: load, Cache: publicMinute, CanAccess: mcp.RequireAuth})
			}), nil)
		}}, []check{
			{toolsList, "alice", "private"}, {promptsList, "alice", "public"}, {resourcesList, "alice", "private"},
			{read("kid://kid/open"), "alice", "public"}, {read("kid://kid/gated"), "alice", "private"},
		}},
		{"a plain mount keeps the author's public", cacheServer{cache: allPublic, add: func(srv *mcp.Server) {
			srv.Mount("kid", child(func(c *mcp.Server) {
				c.AddResource(mcp.Resource{URI: "kid://open", Name: "open", Load: load, Cache: publicMinute})
			}), nil)
		}}, []check{{toolsList, "alice", "public"}, {resourcesList, "alice", "public"}, {read("kid://kid/open"), "alice", "public"}}},
		{"reads through a mount with CanAccess are private", cacheServer{add: func(srv *mcp.Server) {
			srv.Mount("kid", child(func(c *mcp.Server) {
				c.AddResource(mcp.Resource{URI: "kid://open", Name: "open", Load: load, Cache: publicMinute})
			}), &mcp.MountOptions{CanAccess: mcp.RequireAuth})
		}}, []check{{read("kid://kid/open"), "alice", "private"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := tt.server.start(t)
			for _, c := range tt.checks {
				got := c.req.rev20260728(t, ts, c.user)
				assert.Equal(t, c.want, got.scope, "%s %s as %q", c.req.method, c.req.params, c.user)
			}
		})
	}
}

// TestCacheHintRetriedRound: the result of a request retried with
// inputResponses and requestState goes out with ttlMs 0 and private,
// whatever the resource's hint: clients must not cache it. Its first
// round's input-required result has no hint at all.
func TestCacheHintRetriedRound(t *testing.T) {
	t.Parallel()
	ts := cacheServer{add: func(srv *mcp.Server) {
		srv.AddResource(mcp.Resource{URI: "mem://asks", Name: "asks", Cache: mcp.CacheHint{TTL: time.Hour, Scope: mcp.CachePublic},
			Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
				out, err := c.Ask(ctx, map[string]mcp.InputRequest{"client_roots": {Method: "roots/list"}})
				if err != nil {
					return nil, err
				}
				return []mcp.ResourceContents{{Text: string(out["client_roots"])}}, nil
			}})
	}}.start(t)
	q := mrtrRequest{method: "resources/read", name: "mem://asks", params: `"uri":"mem://asks"`}
	r1 := decodeIRR(t, q.send(t, ts, ""))
	assert.NotContains(t, r1.raw, "ttlMs")
	assert.NotContains(t, r1.raw, "cacheScope")
	r2 := q.send(t, ts, `"inputResponses":{"client_roots":`+rootsList+`},`+stateParam(r1.RequestState))
	assert.Equal(t, hint{"0", "private"}, members(t, r2))
}

// TestCacheHintInterceptorAnswers: when an interceptor answers a list
// without running it, the result goes out with the server's default:
// ttlMs 0, scoped by the request's authentication.
func TestCacheHintInterceptorAnswers(t *testing.T) {
	t.Parallel()
	ts := cacheServer{cache: fullHints, wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					if c.Method == "tools/list" {
						return json.RawMessage(`{"tools":[]}`), nil
					}
					return next(ctx, c)
				}
			})))
		})
	}}.start(t)
	assert.Equal(t, hint{"0", "public"}, toolsList.rev20260728(t, ts, ""))
	assert.Equal(t, hint{"0", "private"}, toolsList.rev20260728(t, ts, "alice"))
	assert.Equal(t, hint{"1", "public"}, promptsList.rev20260728(t, ts, "alice"), "what runs keeps its hint")
}
