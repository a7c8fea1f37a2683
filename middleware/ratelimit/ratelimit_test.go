package ratelimit_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/ratelimit"
)

type rpcErr struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64          `json:"code"`
		Message string         `json:"message"`
		Data    ratelimit.Data `json:"data"`
	} `json:"error"`
}

// perCaller keys the limiter by the X-Caller header, so that one test
// server sees several callers.
func perCaller(r *http.Request, _ *mcp.Call) string { return r.Header.Get("X-Caller") }

// Over HTTP: a burst over the tools/call limit is refused with 429,
// Retry-After and the JSON-RPC error; other methods have their own
// bucket; another caller is unaffected.
func TestRateLimitHTTP(t *testing.T) {
	srv := testServer()
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: true}) // SSE allowed: a lone error still goes out as JSON
	rl := ratelimit.New(ratelimit.Options{
		ToolCalls: ratelimit.PerMinute(6, 3), // a token every 10 s
		Other:     ratelimit.Limit{Rate: 100, Burst: 100},
		Key:       perCaller,
	})
	ts := httptest.NewServer(alice.New(rl).Then(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	call := func(caller, method, params string, id int) (*http.Response, rpcErr) {
		body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + `}`
		resp, b, err := wiretest.Do(http.DefaultClient, wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, body,
			"X-Caller", caller, "MCP-Protocol-Version", "2025-11-25"))
		require.NoError(t, err)
		var m rpcErr
		require.NoError(t, json.Unmarshal(b, &m), "%s", b)
		return resp, m
	}
	const add = `{"name":"add","arguments":{"a":1,"b":2}}`
	for i := range 3 {
		resp, m := call("alice", "tools/call", add, i)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Nil(t, m.Error)
	}
	resp, m := call("alice", "tools/call", add, 4)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "10", resp.Header.Get("Retry-After"))
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(ratelimit.CodeRateLimited), m.Error.Code)
	assert.Equal(t, int64(10), m.Error.Data.RetryAfter)
	assert.JSONEq(t, "4", string(m.ID))
	assert.Contains(t, m.Error.Message, "tools/call")

	resp, m = call("alice", "tools/list", `{}`, 5)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "other methods count apart")
	assert.Nil(t, m.Error)

	resp, m = call("bob", "tools/call", add, 6)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "another caller is unaffected")
	assert.Nil(t, m.Error)
}

// Over stdio the refusal is the same JSON-RPC error, with retryAfter.
func TestRateLimitStdio(t *testing.T) {
	c := wiretest.StartStdio(t, testServer(),
		ratelimit.New(ratelimit.Options{ToolCalls: ratelimit.PerMinute(1, 1)}))
	wiretest.Initialize(t, c)
	var first, second rpcErr
	require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`), &first))
	require.Nil(t, first.Error)
	require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`), &second))
	require.NotNil(t, second.Error)
	assert.Equal(t, int64(ratelimit.CodeRateLimited), second.Error.Code)
	assert.InDelta(t, 60, second.Error.Data.RetryAfter, 1)
	assert.JSONEq(t, "2", string(second.ID))
}

// Notifications take no token: with a burst of two, initialize and a ping
// go through however many notifications come between them, and the next
// request is refused.
func TestRateLimitLetsNotificationsThrough(t *testing.T) {
	srv := testServer()
	h := mcphttp.New(srv, nil)
	rl := ratelimit.New(ratelimit.Options{Other: ratelimit.PerMinute(1, 2)})
	ts := httptest.NewServer(alice.New(rl).Then(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	post := func(body string, header ...string) (*http.Response, []byte) {
		resp, b, err := wiretest.Do(http.DefaultClient, wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, body, header...))
		require.NoError(t, err)
		return resp, b
	}
	resp, b := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	session := []string{"Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version", "2025-11-25"}
	for range 3 {
		resp, b = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session...)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", b)
	}
	resp, b = post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, session...)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	resp, b = post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, session...)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", b)
}

// The default key is the auth data's subject, by the identity rule
// (internal/identity), else the remote host.
func TestDefaultKey(t *testing.T) {
	network := context.WithValue(t.Context(), http.LocalAddrContextKey, &net.TCPAddr{})
	r := httptest.NewRequest(http.MethodPost, "/", nil).WithContext(network)
	r.RemoteAddr = "203.0.113.7:5555"
	assert.Equal(t, "addr:203.0.113.7", ratelimit.DefaultKey(r, &mcp.Call{}))
	r6 := httptest.NewRequest(http.MethodPost, "/", nil).WithContext(network)
	r6.RemoteAddr = "[2001:db8:1:2:3:4:5:6]:5555"
	assert.Equal(t, "addr:2001:db8:1:2::/64", ratelimit.DefaultKey(r6, &mcp.Call{}))
	assert.Equal(t, "sub:ada", ratelimit.DefaultKey(r, &mcp.Call{Auth: subject("ada")}))
	// Auth data without a subject has no key: its caller counts by
	// address, as an anonymous one does, whatever the data holds.
	for _, auth := range []any{subject(""), hidden{"ada"}, "ada", map[string]any{"sub": "ada"}} {
		assert.Equal(t, "addr:203.0.113.7", ratelimit.DefaultKey(r, &mcp.Call{Auth: auth}), "%T", auth)
	}
	local, _ := http.NewRequest(http.MethodPost, "/", nil)
	assert.Equal(t, "local", ratelimit.DefaultKey(local, &mcp.Call{}))
}

type subject string

// hidden is auth data without a subject.
type hidden struct{ user string }

func (s subject) Subject() string { return string(s) }

// In a 2025-03-26 batch each request takes its own token: the refused one
// is an error among the replies, and the answer stays 200.
func TestRateLimitBatch(t *testing.T) {
	srv := testServer()
	h := mcphttp.New(srv, &mcphttp.Options{JSONResponse: true})
	ts := httptest.NewServer(alice.New(ratelimit.New(ratelimit.Options{
		ToolCalls: ratelimit.PerMinute(1, 1)})).Then(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	resp, _, err := wiretest.Do(http.DefaultClient, wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	require.NoError(t, err)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	resp, body, err := wiretest.Do(http.DefaultClient, wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}},`+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}]`,
		"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-03-26"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Retry-After"))
	var replies []rpcErr
	require.NoError(t, json.Unmarshal(body, &replies), "%s", body)
	require.Len(t, replies, 2)
	refused := 0
	for _, r := range replies {
		if r.Error != nil {
			refused++
			assert.Equal(t, int64(ratelimit.CodeRateLimited), r.Error.Code)
			assert.Equal(t, int64(60), r.Error.Data.RetryAfter)
		}
	}
	assert.Equal(t, 1, refused)
}
