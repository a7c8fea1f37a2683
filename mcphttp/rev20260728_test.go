package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
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

// rev20260728Call is a tools/call of name with args (a JSON object) at
// revision 2026-07-28, with id 7.
func rev20260728Call(name, args string) string {
	return rev20260728Body("tools/call", `"name":"`+name+`","arguments":`+args)
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
			400, jsonrpc.CodeHeaderMismatch, "MCP-Protocol-Version header is required"},
		{"header differs from _meta", strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"v999.0.0"`, 1), nil,
			400, jsonrpc.CodeHeaderMismatch, `header "2026-07-28" does not match _meta protocolVersion "v999.0.0"`},
		{"unsupported version", strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"v999.0.0"`, 1), []string{"MCP-Protocol-Version", "v999.0.0"},
			400, jsonrpc.CodeUnsupportedProtocolVersion, `Unsupported protocol version: "v999.0.0"`},
		{"Mcp-Method missing", rev20260728Body("tools/list", ""), []string{"Mcp-Method", ""},
			400, jsonrpc.CodeHeaderMismatch, "the Mcp-Method header is required"},
		{"Mcp-Method differs", rev20260728Body("tools/list", ""), []string{"Mcp-Method", "prompts/list"},
			400, jsonrpc.CodeHeaderMismatch, `Mcp-Method header value "prompts/list" does not match body value "tools/list"`},
		{"Mcp-Method case differs", rev20260728Body("tools/list", ""), []string{"Mcp-Method", "TOOLS/LIST"},
			400, jsonrpc.CodeHeaderMismatch, `"TOOLS/LIST" does not match`},
		{"Mcp-Name missing", rev20260728Call("add", `{"a":1,"b":2}`), nil,
			400, jsonrpc.CodeHeaderMismatch, "the Mcp-Name header is required for tools/call"},
		{"Mcp-Name differs", rev20260728Call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "wrong"},
			400, jsonrpc.CodeHeaderMismatch, `Mcp-Name header value "wrong" does not match body value "add"`},
		{"Mcp-Name bad Base64", rev20260728Call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "=?base64?YWR?="},
			400, jsonrpc.CodeHeaderMismatch, "not valid Base64"},
		{"resources/read needs Mcp-Name", rev20260728Body("resources/read", `"uri":"mem://hello"`), nil,
			400, jsonrpc.CodeHeaderMismatch, "must equal the body's params.uri"},
		{"removed method initialize", rev20260728Body("initialize", ""), nil,
			404, mcp.CodeMethodNotFound, `"initialize" is not a method of protocol revision 2026-07-28`},
		{"removed method ping", rev20260728Body("ping", ""), nil, 404, mcp.CodeMethodNotFound, "not a method"},
		// The official Go SDK's Ping at 2026-07-28: no _meta at all. What it
		// needs to hear is that the method is gone, not that _meta is missing.
		{"removed method ping without _meta", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil, 404, mcp.CodeMethodNotFound, `"ping" is not a method`},
		{"removed method logging/setLevel", rev20260728Body("logging/setLevel", `"level":"info"`), nil, 404, mcp.CodeMethodNotFound, "not a method"},
		{"removed method resources/subscribe", rev20260728Body("resources/subscribe", `"uri":"mem://hello"`), nil, 404, mcp.CodeMethodNotFound, "not a method"},
		{"unknown method", rev20260728Body("unknown/method", ""), nil, 404, mcp.CodeMethodNotFound, `"unknown/method"`},
		{"param header missing", rev20260728Call("where", `{"region":"eu"}`), []string{"Mcp-Name", "where"},
			400, jsonrpc.CodeHeaderMismatch, `header Mcp-Param-Region is required: argument "region" is present`},
		{"param header differs", rev20260728Call("where", `{"region":"eu"}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "us"},
			400, jsonrpc.CodeHeaderMismatch, `Mcp-Param-Region header value "us" does not match argument "region"`},
		{"param header unpadded Base64", rev20260728Call("where", `{"region":"Hello"}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "=?base64?SGVsbG8?="},
			400, jsonrpc.CodeHeaderMismatch, "not valid Base64"},
		{"param header without argument", rev20260728Call("where", `{}`), []string{"Mcp-Name", "where", "Mcp-Param-Zone", "3"},
			400, jsonrpc.CodeHeaderMismatch, `header Mcp-Param-Zone was sent but argument "zone" is absent`},
		{"integer param differs", rev20260728Call("where", `{"zone":3}`), []string{"Mcp-Name", "where", "Mcp-Param-Zone", "4"},
			400, jsonrpc.CodeHeaderMismatch, `Mcp-Param-Zone header value "4" does not match argument "zone"`},
		{"missing client capability", rev20260728Call("needs_sampling", `{}`), []string{"Mcp-Name", "needs_sampling"},
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
		{"long Mcp-Method", rev20260728Body("tools/list", ""), []string{"Mcp-Method", long}, jsonrpc.CodeHeaderMismatch},
		{"long Mcp-Name", rev20260728Body("tools/call", `"name":"add"`), []string{"Mcp-Name", long}, jsonrpc.CodeHeaderMismatch},
		{"long method", rev20260728Body(long, ""), []string{"Mcp-Method", long}, mcp.CodeMethodNotFound},
		{"long version", strings.Replace(rev20260728Body("server/discover", ""), `"2026-07-28"`, `"`+long+`"`, 1), []string{"MCP-Protocol-Version", long}, jsonrpc.CodeUnsupportedProtocolVersion},
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
	tests := []struct {
		name   string
		body   string
		header []string
		text   string
	}{
		{"Mcp-Name with whitespace", rev20260728Call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "  add  "}, "3"},
		{"Mcp-Name in Base64", rev20260728Call("add", `{"a":1,"b":2}`), []string{"Mcp-Name", "=?base64?YWRk?="}, "3"},
		{"lower-case header names", rev20260728Call("add", `{"a":2,"b":2}`), []string{"mcp-name", "add", "mcp-method", "tools/call"}, "4"},
		{"param header in Base64", rev20260728Call("where", `{"region":"Hello"}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "=?base64?SGVsbG8=?="}, `{"region":"Hello"}`},
		{"param header literal lookalike", rev20260728Call("where", `{"region":"=?base64?SGVsbG8="}`), []string{"Mcp-Name", "where", "Mcp-Param-Region", "=?base64?SGVsbG8="}, `{"region":"=?base64?SGVsbG8="}`},
		{"integer param header", rev20260728Call("where", `{"zone":3}`), []string{"Mcp-Name", "where", "Mcp-Param-Zone", "3"}, `{"zone":3}`},
		{"absent argument needs no header", rev20260728Call("where", `{}`), []string{"Mcp-Name", "where"}, `{}`},
		{"clientInfo is optional", rev20260728Call("add", `{"a":0,"b":0}`), []string{"Mcp-Name", "add"}, "0"},
		{"a session ID is ignored", rev20260728Call("add", `{"a":5,"b":0}`), []string{"Mcp-Name", "add", "Mcp-Session-Id", "nosuchsession"}, "5"},
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
