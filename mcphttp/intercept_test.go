package mcphttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

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
