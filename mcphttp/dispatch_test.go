package mcphttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/justinas/alice"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorRow is one row of DESIGN.md §4's error table.
type errorRow struct {
	name   string
	method string
	params string // JSON; "" sends none
	// line, when set, is the raw stdio line (instead of one built from
	// method and params).
	line string
	// embedMethod, when set, is the method the embedded session sends
	// instead: its Request builds a well-formed envelope, so an invalid
	// request is made with an empty method name.
	embedMethod string
	// noEmbed says why the embedded transport cannot send this row.
	noEmbed string

	wantCode int64          // a JSON-RPC error
	wantData map[string]any // its data
	wantText []string       // else: an isError result whose text holds these
}

var errorRows = []errorRow{
	{name: "unknown tool", method: "tools/call", params: `{"name":"no_such_tool","arguments":{}}`, wantCode: -32602},
	{name: "hidden tool reads as unknown", method: "tools/call", params: `{"name":"admin_only","arguments":{}}`, wantCode: -32602},
	{name: "unknown prompt", method: "prompts/get", params: `{"name":"no_such_prompt"}`, wantCode: -32602},
	{name: "prompt missing a required argument", method: "prompts/get", params: `{"name":"greet","arguments":{}}`, wantCode: -32602},
	{name: "unknown resource", method: "resources/read", params: `{"uri":"mem://no-such-thing"}`,
		wantCode: -32602, wantData: map[string]any{"uri": "mem://no-such-thing"}},
	{name: "malformed JSON", line: `{"jsonrpc":"2.0","id":1,"method":"ping"`, wantCode: -32700,
		noEmbed: "the embedded session encodes every message itself: it cannot send malformed JSON"},
	{name: "invalid request", line: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, embedMethod: "", wantCode: -32600},
	{name: "unknown method", method: "tools/frobnicate", params: `{}`, wantCode: -32601},
	{name: "tool returns an error", method: "tools/call", params: `{"name":"fail","arguments":{}}`,
		wantText: []string{`"fail"`, "the disk is full"}},
	{name: "tool returns a UserError", method: "tools/call", params: `{"name":"user_error","arguments":{}}`,
		wantText: []string{"Please pick a date in the future."}},
	{name: "tool panics", method: "tools/call", params: `{"name":"panic","arguments":{}}`,
		wantText: []string{`"panic"`, "internal error"}},
	{name: "tool times out", method: "tools/call", params: `{"name":"timeout","arguments":{}}`,
		wantText: []string{`"timeout"`, "timed out", "20ms"}},
	{name: "invalid arguments: wrong type", method: "tools/call", params: `{"name":"add","arguments":{"a":"one","b":2}}`,
		wantText: []string{`"add"`, `argument "a"`, "type"}},
	{name: "invalid arguments: missing required", method: "tools/call", params: `{"name":"add","arguments":{"a":1}}`,
		wantText: []string{`"add"`, "required", `"b"`}},
	{name: "invalid arguments: extra property", method: "tools/call", params: `{"name":"add","arguments":{"a":1,"b":2,"c":3}}`,
		wantText: []string{`"add"`, "additional", `"c"`}},
}

// errorServer is the engine test server plus a tool only "admin" sees.
func errorServer(t testing.TB) *mcp.Server {
	srv := newEngineServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "admin_only", CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" }},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "secret", nil })
	return srv
}

// outcome is what a transport answered: a JSON-RPC error or a tool result.
type outcome struct {
	code   int64
	data   json.RawMessage
	result *mcp.ContentResult
}

func checkOutcome(t *testing.T, row errorRow, got outcome) {
	t.Helper()
	if row.wantCode != 0 {
		require.Equal(t, row.wantCode, got.code, "want a JSON-RPC error; got result %+v", got.result)
		if row.wantData != nil {
			var data map[string]any
			require.NoError(t, json.Unmarshal(got.data, &data), "data %s", got.data)
			assert.Equal(t, row.wantData, data)
		}
		return
	}
	require.Zero(t, got.code, "want an isError result, got JSON-RPC error %d", got.code)
	require.NotNil(t, got.result)
	assert.True(t, got.result.IsError)
	for _, w := range row.wantText {
		assert.Contains(t, got.result.Text(), w)
	}
}

func TestErrorRowsOverStdio(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(errorServer(t), nil)
	t.Cleanup(func() { _ = h.Close() })
	p := serveStdio(t, h)
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.response(`"init"`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Rows run one after the other on the one stdio session.
	for i, row := range errorRows {
		t.Run(row.name, func(t *testing.T) {
			line := row.line
			id := "null"
			if line == "" {
				id = fmt.Sprint(100 + i)
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, row.method, row.params)
			} else if row.wantCode != -32700 {
				id = "1" // the raw lines' id, echoed when it could be read
			}
			p.send(line)
			m := p.response(id)
			var got outcome
			if m.Error != nil {
				got = outcome{code: m.Error.Code, data: m.Error.Data}
			} else {
				got.result = wiretest.ToolResult(t, m)
			}
			checkOutcome(t, row, got)
		})
	}
}

func TestErrorRowsEmbedded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mcptest.NewSession(t, errorServer(t), nil).Client()
	for _, row := range errorRows {
		if row.noEmbed != "" {
			continue // a row the embedded transport cannot send: see noEmbed
		}
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			method := row.method
			if row.line != "" {
				method = row.embedMethod
			}
			var params any
			if row.params != "" {
				params = json.RawMessage(row.params)
			}
			var result mcp.ContentResult
			err := e.Call(ctx, method, params, &result)
			var got outcome
			var je *mcp.Error
			switch {
			case errors.As(err, &je):
				got.code = je.Code
				if je.Data != nil {
					got.data, _ = json.Marshal(je.Data)
				}
			case err != nil:
				t.Fatalf("transport error: %v", err)
			default:
				got.result = &result
			}
			checkOutcome(t, row, got)
		})
	}
}

// seenCall is what an interceptor saw of one request, before and after
// the engine ran it.
type seenCall struct {
	before, after mcp.Call
	header        string // the request's X-Probe header
	network       bool   // the request came over the network
}

// recorder is a middleware whose interceptor records every request it
// sees.
type recorder struct {
	mu    sync.Mutex
	calls []seenCall
}

func (rec *recorder) middleware(next http.Handler) http.Handler {
	ic := func(next mcp.CallHandler) mcp.CallHandler {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			// The engine's buffers are reused once the request ended:
			// keep copies.
			s := seenCall{before: *c}
			s.before.ID, s.before.Params = bytes.Clone(c.ID), bytes.Clone(c.Params)
			if c.Request != nil {
				s.header = c.Request.Header.Get("X-Probe")
				s.network = c.Request.Context().Value(http.LocalAddrContextKey) != nil
			}
			res, err := next(ctx, c)
			s.after = *c
			s.after.ID, s.after.Params = nil, nil
			rec.mu.Lock()
			rec.calls = append(rec.calls, s)
			rec.mu.Unlock()
			return res, err
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), ic)))
	})
}

func (rec *recorder) byMethod(t *testing.T, method string) seenCall {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, c := range rec.calls {
		if c.before.Method == method {
			return c
		}
	}
	t.Fatalf("no %s intercepted among %d calls", method, len(rec.calls))
	return seenCall{}
}

// The engine fills mcp.Call from its own decode: method, id, params, the
// caller's auth, the session (initialize's own once it made it), the
// negotiated version and the HTTP request that carried the message.
func TestInterceptorSeesCall(t *testing.T) {
	rec := &recorder{}
	h := mcphttp.New(newEngineServer(t, nil), nil)
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithAuth(r.Context(), "alice")))
		})
	}
	ts := httptest.NewServer(alice.New(auth, rec.middleware).Then(h))
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	c := &httpClient{t: t, url: ts.URL, hc: ts.Client()}
	c.initialize("2025-06-18")
	resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":"k7","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, "X-Probe", "yes")
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)

	ini := rec.byMethod(t, "initialize")
	assert.Equal(t, c.sid, ini.before.SessionID, "initialize sees the ID of the session it makes")
	assert.Equal(t, mcp.Version(""), ini.before.ProtocolVersion, "nothing negotiated yet")
	assert.Equal(t, c.sid, ini.after.SessionID)
	assert.Equal(t, mcp.Version20250618, ini.after.ProtocolVersion)
	assert.Equal(t, "0", string(ini.before.ID))

	call := rec.byMethod(t, "tools/call")
	assert.Equal(t, `"k7"`, string(call.before.ID), "the id as it was on the wire")
	assert.JSONEq(t, `{"name":"add","arguments":{"a":1,"b":2}}`, string(call.before.Params))
	assert.Equal(t, c.sid, call.before.SessionID)
	assert.Equal(t, mcp.Version20250618, call.before.ProtocolVersion)
	assert.Equal(t, "alice", call.before.Auth)
	assert.Equal(t, "yes", call.header, "Request carries the HTTP request's headers")
	assert.True(t, call.network)
}

// In an embedded session the interceptor sees the adapter's in-process
// request, which did not come over the network.
func TestInterceptorSeesEmbeddedCall(t *testing.T) {
	rec := &recorder{}
	s := mcptest.NewSession(t, newEngineServer(t, nil), &mcptest.Options{Middleware: []func(http.Handler) http.Handler{rec.middleware}}).Client()
	_, err := s.CallTool(t.Context(), "add", map[string]int{"a": 1, "b": 2}, nil)
	require.NoError(t, err)

	call := rec.byMethod(t, "tools/call")
	require.NotNil(t, call.before.Request)
	assert.False(t, call.network, "an embedded request is not a network one")
	var p struct {
		Name string `json:"name"`
	}
	require.NoError(t, json.Unmarshal(call.before.Params, &p))
	assert.Equal(t, "add", p.Name)
	assert.NotEmpty(t, call.before.SessionID)
}

// Client notifications pass through the interceptors too, with a nil ID,
// and an interceptor's error drops one: the client still gets 202 (a
// notification has no answer), and the engine does not act on it.
func TestInterceptorNotifications(t *testing.T) {
	rec := &recorder{}
	slow := mcptest.NewProbe()
	h := mcphttp.New(newEngineServer(t, slow), nil)
	refuseCancel := func(next http.Handler) http.Handler {
		ic := func(next mcp.CallHandler) mcp.CallHandler {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				if c.Method == "notifications/cancelled" {
					return nil, errors.New("refused")
				}
				return next(ctx, c)
			}
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), ic)))
		})
	}
	ts := httptest.NewServer(alice.New(rec.middleware, refuseCancel).Then(h))
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	c := &httpClient{t: t, url: ts.URL, hc: ts.Client()}
	c.initialize("2025-06-18")

	ini := rec.byMethod(t, "notifications/initialized")
	assert.Nil(t, ini.before.ID, "a notification has no id")
	assert.Equal(t, c.sid, ini.before.SessionID)
	assert.Equal(t, mcp.Version20250618, ini.before.ProtocolVersion)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := c.hc.Do(c.request(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":"job-1","method":"tools/call","params":{"name":"slow"}}`))
		if err == nil {
			_ = resp.Body.Close()
		}
	}()
	select {
	case <-slow.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never started")
	}
	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"job-1"}}`)
	assert.Equal(t, http.StatusAccepted, status, "a dropped notification is still accepted")
	assert.Nil(t, rec.byMethod(t, "notifications/cancelled").before.ID)
	select {
	case err := <-slow.Stopped:
		t.Fatalf("the dropped cancellation reached the tool: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancel() // the client goes away: that cancels the tool
	select {
	case err := <-slow.Stopped:
		assert.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the tool was not cancelled by the disconnect")
	}
	<-done
}

// An interceptor that hands next a Call with other params gets those run,
// through the engine's own checks: a tools/call rewritten to name another
// tool runs that tool with its validation, and one rewritten to name a
// tool the caller may not see is refused as unknown. Changing the method
// is refused. The request's own params are the engine's again afterwards.
func TestInterceptorRewritesParams(t *testing.T) {
	t.Parallel()
	srv := newEngineServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "secret", CanAccess: func(context.Context, any) bool { return false }},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "leaked", nil })
	var after []string
	var mu sync.Mutex
	ic := func(next mcp.CallHandler) mcp.CallHandler {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Method != "tools/call" {
				return next(ctx, c)
			}
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			require.NoError(t, json.Unmarshal(c.Params, &p))
			switch p.Name {
			case "via":
				// {"name":"via","arguments":{"to":"add","args":{…}}} runs add.
				var a struct {
					To   string          `json:"to"`
					Args json.RawMessage `json:"args"`
				}
				require.NoError(t, json.Unmarshal(p.Arguments, &a))
				inner := *c
				inner.Params, _ = json.Marshal(map[string]any{"name": a.To, "arguments": a.Args})
				res, err := next(ctx, &inner)
				mu.Lock()
				after = append(after, string(c.Params))
				mu.Unlock()
				return res, err
			case "relist":
				inner := *c
				inner.Method = "tools/list"
				return next(ctx, &inner)
			}
			return next(ctx, c)
		}
	}
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), ic)))
		})
	}
	s := mcptest.NewSession(t, srv, &mcptest.Options{Middleware: []func(http.Handler) http.Handler{mw}}).Client()

	res, err := s.CallTool(t.Context(), "via", map[string]any{"to": "add", "args": map[string]int{"a": 2, "b": 5}}, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, "7", res.Text(), "the rewritten call ran add")

	res, err = s.CallTool(t.Context(), "via", map[string]any{"to": "add", "args": map[string]any{"a": "two"}}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "add's own validation refused the rewritten arguments")
	assert.Contains(t, res.Text(), `"a"`)

	_, err = s.CallTool(t.Context(), "via", map[string]any{"to": "secret", "args": map[string]any{}}, nil)
	var je *mcp.Error
	require.ErrorAs(t, err, &je, "a tool the caller may not see stays unknown")
	assert.Equal(t, int64(mcp.CodeInvalidParams), je.Code)
	assert.Contains(t, je.Message, "Unknown tool")

	_, err = s.CallTool(t.Context(), "relist", map[string]any{}, nil)
	require.ErrorAs(t, err, &je)
	assert.Equal(t, int64(mcp.CodeInternalError), je.Code)
	assert.Contains(t, je.Message, "not its method")

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, after)
	assert.Contains(t, after[0], `"via"`, "the interceptor's own Call is unchanged")
}

// metaServer's tool, resource and prompt each answer with what the
// request's _meta said: the tenant (a string) and the trace (an object).
func metaServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "meta", Version: "1.0.0", Logger: discardLogger()})
	describe := func(c *mcp.Context) string {
		tenant, _ := mcp.MetaValue[string](c, "example.com/tenant")
		trace, ok := mcp.MetaValue[struct {
			ID string `json:"id"`
		}](c, "example.com/trace")
		_, wrongType := mcp.MetaValue[int](c, "example.com/tenant")
		raw, _ := c.Meta("example.com/trace")
		return fmt.Sprintf("tenant=%s trace=%s/%v int=%v raw=%s", tenant, trace.ID, ok, wrongType, raw)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "who"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		return describe(c), nil
	})
	srv.AddPrompt(mcp.Prompt{Name: "who", Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText(describe(c)), nil
	}})
	srv.AddResource(mcp.Resource{URI: "mem://who", Name: "who", Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: describe(c)}}, nil
	}})
	return srv
}

const (
	metaMembers = `"example.com/tenant":"acme","example.com/trace":{"id":"t-1"}`
	metaWant    = `tenant=acme trace=t-1/true int=false raw={"id":"t-1"}`
	metaNone    = `tenant= trace=/false int=false raw=`
)

// TestRequestMetaReachesHandlers: the request's params._meta reaches the
// tool, prompt and resource handlers (mcp.Context.Meta, mcp.MetaValue) over
// Streamable HTTP at 2025-11-25 and 2026-07-28, over stdio, and in an
// embedded session; without _meta they see nothing.
func TestRequestMetaReachesHandlers(t *testing.T) {
	t.Parallel()
	requests := func(meta string) map[string]string {
		m := ""
		if meta != "" {
			m = `,"_meta":{` + meta + `}`
		}
		return map[string]string{
			"tools/call":     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","arguments":{}` + m + `}}`,
			"prompts/get":    `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"who"` + m + `}}`,
			"resources/read": `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mem://who"` + m + `}}`,
		}
	}
	textOf := func(t *testing.T, method string, answer json.RawMessage) string {
		t.Helper()
		var m struct {
			Result struct {
				Content  []struct{ Text string } `json:"content"`
				Messages []struct {
					Content struct{ Text string } `json:"content"`
				} `json:"messages"`
				Contents []struct{ Text string } `json:"contents"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(answer, &m), "%s", answer)
		require.Nil(t, m.Error, "%s: %s", method, answer)
		switch method {
		case "tools/call":
			return m.Result.Content[0].Text
		case "prompts/get":
			return m.Result.Messages[0].Content.Text
		}
		return m.Result.Contents[0].Text
	}

	for _, tr := range []struct {
		name  string
		start func(testing.TB, *mcp.Server, ...func(http.Handler) http.Handler) wiretest.RPCClient
	}{{"http 2025-11-25", wiretest.StartHTTP}, {"stdio", wiretest.StartStdio}} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			c := tr.start(t, metaServer(t))
			wiretest.Initialize(t, c)
			for meta, want := range map[string]string{metaMembers: metaWant, "": metaNone} {
				for method, body := range requests(meta) {
					assert.Equal(t, want, textOf(t, method, c.Send(t, body)), "%s with _meta {%s}", method, meta)
				}
			}
		})
	}

	t.Run("http 2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(metaServer(t), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		for method, body := range map[string]string{
			"tools/call":     rev20260728Body("tools/call", `"name":"who","arguments":{}`),
			"prompts/get":    rev20260728Body("prompts/get", `"name":"who"`),
			"resources/read": rev20260728Body("resources/read", `"uri":"mem://who"`),
		} {
			body = body[:len(body)-3] + "," + metaMembers + "}}}" // the members go into _meta
			name := map[string]string{"tools/call": "who", "prompts/get": "who", "resources/read": "mem://who"}[method]
			resp, msgs := rev20260728Post(t, ts, body, "Mcp-Name", name)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", method, msgs)
			require.Len(t, msgs, 1)
			raw, err := json.Marshal(map[string]any{"result": json.RawMessage(msgs[0].Result)})
			require.NoError(t, err)
			assert.Equal(t, metaWant, textOf(t, method, raw), method)
		}
	})

	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run("embedded "+string(version), func(t *testing.T) {
			t.Parallel()
			e := mcptest.NewSession(t, metaServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: version}}).Client()
			var res mcp.ContentResult
			require.NoError(t, e.Call(t.Context(), "tools/call", map[string]any{"name": "who", "arguments": map[string]any{},
				"_meta": map[string]any{"example.com/tenant": "acme", "example.com/trace": map[string]string{"id": "t-1"}}}, &res))
			assert.Equal(t, metaWant, res.Text())
		})
	}
}

type findArgs struct {
	Query string `json:"query,omitempty"`
}

// strictServer is the engine's test server plus tools that count their
// runs: echo (typed, no arguments), search (raw, an open schema with
// "query" and a nested "filter.lang") and find (typed, "query").
func strictServer(t *testing.T, runs map[string]*atomic.Int32) *mcp.Server {
	t.Helper()
	srv := newEngineServer(t, nil)
	for _, n := range []string{"echo", "search", "find"} {
		runs[n] = new(atomic.Int32)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		runs["echo"].Add(1)
		return "echo ran", nil
	})
	srv.AddRawTool(mcp.Tool{Name: "search", InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"query":  {Type: "string"},
		"filter": {Type: "object", Properties: map[string]*jsonschema.Schema{"lang": {Type: "string"}}},
		"tags":   {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"key": {Type: "string"}}}},
	}}}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
		runs["search"].Add(1)
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "search ran"}}}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "find"}, func(_ context.Context, _ *mcp.Context, in findArgs) (string, error) {
		runs["find"].Add(1)
		return "find ran: " + in.Query, nil
	})
	return srv
}

// TestStrictParams: params of every method are decoded strictly. A case
// variant of a member the method reads, or a duplicate member (in the
// arguments too), is -32602 naming the member, answered to the request's
// ID, and no tool runs: what a gateway reads as params.name is what runs.
// Case variants of tool arguments are the tool's own check
// (TestCaseVariantArguments, in the root package).
func TestStrictParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		params string
		msgHas []string
	}{
		{"case-variant name does not run another tool", "tools/call", `{"name":"add","Name":"echo","arguments":{"a":1,"b":2}}`, []string{`"Name"`, `"name"`, "case-sensitive"}},
		{"case-variant name first", "tools/call", `{"Name":"echo","name":"add","arguments":{"a":1,"b":2}}`, []string{`"Name"`}},
		{"duplicate name", "tools/call", `{"name":"echo","name":"add"}`, []string{`duplicate member "name"`}},
		{"case-variant arguments", "tools/call", `{"name":"search","Arguments":{"query":"x"}}`, []string{`"Arguments"`}},
		{"case-variant _meta member", "tools/call", `{"name":"echo","_meta":{"ProgressToken":1}}`, []string{`"ProgressToken"`}},
		{"case-variant uri", "resources/read", `{"uri":"mem://hello","URI":"mem://other"}`, []string{`"URI"`}},
		{"case-variant prompt name", "prompts/get", `{"name":"greet","NAME":"other","arguments":{"name":"x"}}`, []string{`"NAME"`}},
		{"case-variant level", "logging/setLevel", `{"Level":"debug"}`, []string{`"Level"`}},
		{"case-variant cursor", "tools/list", `{"Cursor":"abc"}`, []string{`"Cursor"`}},
		{"case-variant ref member", "completion/complete", `{"ref":{"type":"ref/prompt","Name":"greet"},"argument":{"name":"name","value":""}}`, []string{`"Name"`}},
		{"case-variant subscribe uri", "resources/subscribe", `{"URI":"mem://hello"}`, []string{`"URI"`}},
		{"duplicate argument", "tools/call", `{"name":"search","arguments":{"query":"a","query":"b"}}`, []string{`duplicate member "query"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs := map[string]*atomic.Int32{}
			c, _ := newHTTP(t, strictServer(t, runs), nil)
			c.initialize("2025-11-25")
			status, msgs := c.post(`{"jsonrpc":"2.0","id":9,"method":"` + tt.method + `","params":` + tt.params + `}`)
			require.Len(t, msgs, 1, "status %d", status)
			require.NotNil(t, msgs[0].Error, "want an error, got %s", msgs[0].Result)
			assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code, msgs[0].Error.Message)
			assert.Equal(t, "9", string(msgs[0].ID))
			for _, s := range tt.msgHas {
				assert.Contains(t, msgs[0].Error.Message, s)
			}
			for n, r := range runs {
				assert.Zero(t, r.Load(), "tool %s ran", n)
			}
		})
	}
}

// TestStrictParamsAccepts: exact names still work, and members that are
// no case variant of a known one pass as before.
func TestStrictParamsAccepts(t *testing.T) {
	t.Parallel()
	runs := map[string]*atomic.Int32{}
	c, _ := newHTTP(t, strictServer(t, runs), nil)
	c.initialize("2025-11-25")
	m, _ := c.call(1, "tools/call", `{"name":"search","arguments":{"query":"x","filter":{"lang":"go"},"tags":[{"key":"a"}],"other":1},"_meta":{"progressToken":"p"}}`)
	assert.Equal(t, "search ran", wiretest.ToolResult(t, m).Text())
	m, _ = c.call(2, "tools/call", `{"name":"find","arguments":{"query":"go"}}`)
	assert.Equal(t, "find ran: go", wiretest.ToolResult(t, m).Text())
	m, _ = c.call(3, "tools/list", `{"cursor":null,"extra":true}`)
	assert.Nil(t, m.Error)
}

// TestStrictInitialize: initialize's params too.
func TestStrictInitialize(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newEngineServer(t, nil), nil)
	resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","ProtocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
	require.Len(t, msgs, 1)
	require.NotNil(t, msgs[0].Error, "%s", b)
	assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code)
	assert.Contains(t, msgs[0].Error.Message, `"ProtocolVersion"`)
}
