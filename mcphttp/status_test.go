package mcphttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

type testUser string

func (u testUser) Subject() string { return string(u) }

// newTestServer serves a small MCP server on a loopback listener, behind an
// Authenticate middleware that reads "Bearer <name>" (no header: anonymous).
func newTestServer(t *testing.T, opts *mcphttp.Options) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "status", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, c *mcp.Context, in fuzzArgs) (string, error) {
		return "ok", nil
	})
	h := mcphttp.New(srv, opts)
	auth := middleware.CheckCredentials(func(r *http.Request) (any, error) {
		v := r.Header.Get("Authorization")
		if v == "" {
			return nil, nil
		}
		name, ok := strings.CutPrefix(v, "Bearer ")
		if !ok {
			return nil, fmt.Errorf("%w: want Bearer <name>", mcp.ErrUnauthorized)
		}
		return testUser(name), nil
	}, &middleware.AuthOptions{Challenge: `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`, Logger: discardLogger()})
	ts := httptest.NewServer(alice.New(auth).Then(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts, h
}

type req struct {
	method  string
	body    string
	headers map[string]string
}

func do(t *testing.T, ts *httptest.Server, r req) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequest(r.method, ts.URL+"/mcp", body)
	require.NoError(t, err)
	if r.method == http.MethodPost {
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/json, text/event-stream")
	}
	if r.method == http.MethodGet {
		hr.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range r.headers {
		if k == "Host" {
			hr.Host = v
			continue
		}
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := ts.Client().Do(hr)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// initSession starts a session as user (empty: anonymous) and returns its ID.
func initSession(t *testing.T, ts *httptest.Server, user string) string {
	t.Helper()
	h := map[string]string{}
	if user != "" {
		h["Authorization"] = "Bearer " + user
	}
	resp, body := do(t, ts, req{method: "POST", body: initBody, headers: h})
	require.Equal(t, 200, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	return sid
}

func TestHTTPStatuses(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, nil)
	sid := initSession(t, ts, "")
	aliceSID := initSession(t, ts, "alice")
	withSID := func(extra map[string]string) map[string]string {
		m := map[string]string{"Mcp-Session-Id": sid}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	tests := []struct {
		name       string
		req        req
		status     int
		bodyHas    []string
		header     string // a response header that must be set
		headerWant string
	}{
		{"request answered", req{"POST", call, withSID(nil)}, 200, []string{`"id":7`, `"text":"ok"`}, "Content-Type", "application/json"},
		{"notification accepted", req{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSID(nil)}, 202, nil, "", ""},
		{"response accepted", req{"POST", `{"jsonrpc":"2.0","id":99,"result":{}}`, withSID(nil)}, 202, nil, "", ""},
		{"malformed JSON", req{"POST", `{"jsonrpc":`, withSID(nil)}, 400, []string{`-32700`, `not valid JSON`}, "", ""},
		{"not JSON-RPC", req{"POST", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, withSID(nil)}, 400, []string{`-32600`, `must be \"2.0\"`}, "", ""},
		{"case-variant key", req{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"}`, withSID(nil)}, 400, []string{`-32600`, `case-sensitive`}, "", ""},
		{"missing session", req{"POST", call, nil}, 400, []string{`-32000`, `missing Mcp-Session-Id`, `"id":7`}, "", ""},
		// A client may send a notification in a race with its own initialize
		// (the official Go SDK's roots/list_changed while connecting); an
		// error status would make it close for good.
		{"notification without session", req{"POST", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, nil}, 202, nil, "", ""},
		{"cancellation without session", req{"POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`, nil}, 202, nil, "", ""},
		{"malformed session id", req{"POST", call, map[string]string{"Mcp-Session-Id": "a b"}}, 400, []string{`visible ASCII`}, "", ""},
		{"unknown session", req{"POST", call, map[string]string{"Mcp-Session-Id": "nope"}}, 404, []string{`-32001`, `Session not found`}, "", ""},
		{"another caller's session", req{"POST", call, map[string]string{"Mcp-Session-Id": aliceSID, "Authorization": "Bearer mallory"}}, 403, []string{`another caller`}, "", ""},
		{"anonymous on a bound session", req{"POST", call, map[string]string{"Mcp-Session-Id": aliceSID}}, 403, []string{`another caller`}, "", ""},
		{"failed authentication", req{"POST", call, map[string]string{"Authorization": "Basic x"}}, 401, []string{`invalid_token`, `credentials were refused`}, "WWW-Authenticate", `Bearer resource_metadata=`},
		{"second initialize", req{"POST", initBody, withSID(nil)}, 400, []string{`-32600`, `already initialized`}, "", ""},
		{"unsupported protocol version", req{"POST", call, withSID(map[string]string{"MCP-Protocol-Version": "1999-01-01"})}, 400, []string{`unsupported MCP-Protocol-Version`, `2025-11-25`, `"id":7`}, "", ""},
		{"batch after 2025-03-26", req{"POST", `[` + call + `]`, withSID(nil)}, 400, []string{`-32600`, `batches are only allowed`}, "", ""},
		{"wrong content type", req{"POST", call, withSID(map[string]string{"Content-Type": "text/plain"})}, 415, []string{`Content-Type must be application/json`}, "", ""},
		{"POST accepting only JSON", req{"POST", call, withSID(map[string]string{"Accept": "application/json"})}, 406, []string{`text/event-stream`}, "", ""},
		{"GET without SSE in Accept", req{"GET", "", withSID(map[string]string{"Accept": "application/json"})}, 406, []string{`text/event-stream`}, "", ""},
		{"foreign Origin", req{"POST", call, withSID(map[string]string{"Origin": "http://evil.example.com"})}, 403, []string{`Origin`, `evil.example.com`}, "", ""},
		{"loopback Origin", req{"POST", call, withSID(map[string]string{"Origin": "http://localhost:3000"})}, 200, []string{`"id":7`}, "", ""},
		{"foreign Host on loopback", req{"POST", call, withSID(map[string]string{"Host": "evil.example.com"})}, 403, []string{`Host`, `DNS rebinding`}, "", ""},
		{"other method", req{"PUT", call, withSID(nil)}, 405, []string{`PUT`}, "Allow", "GET, POST, DELETE"},
		{"body too large", req{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 4<<20) + `"}}`, withSID(nil)}, 413, []string{`Payload Too Large`}, "", ""},
		{"DELETE unknown session", req{"DELETE", "", map[string]string{"Mcp-Session-Id": "nope"}}, 404, []string{`Session not found`}, "", ""},
		{"DELETE without session", req{"DELETE", "", nil}, 400, []string{`missing Mcp-Session-Id`}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, ts, tt.req)
			assert.Equal(t, tt.status, resp.StatusCode, body)
			for _, s := range tt.bodyHas {
				assert.Contains(t, body, s)
			}
			if tt.header != "" {
				assert.Contains(t, resp.Header.Get(tt.header), tt.headerWant)
			}
		})
	}
}

func TestHTTPBodyLimitChunked(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, &mcphttp.Options{MaxBodyBytes: 1024})
	sid := initSession(t, ts, "")
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2048) + `"}}`
	hr, err := http.NewRequest("POST", ts.URL+"/mcp", io.MultiReader(strings.NewReader(body))) // no Content-Length: chunked
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("Mcp-Session-Id", sid)
	resp, err := ts.Client().Do(hr)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, 413, resp.StatusCode, string(b))
	require.Contains(t, string(b), "exceeds 1024 bytes")
}

func TestHTTPSessionLifecycle(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, nil)
	sid := initSession(t, ts, "")
	for _, c := range sid {
		require.True(t, c >= 0x21 && c <= 0x7e, "session id %q has a character outside visible ASCII", sid)
	}
	require.GreaterOrEqual(t, len(sid), 16)
	require.Equal(t, 1, h.SessionCount())

	// A second GET stream replaces the first, which ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
	require.NoError(t, err)
	g.Header.Set("Accept", "text/event-stream")
	g.Header.Set("Mcp-Session-Id", sid)
	stream, err := ts.Client().Do(g)
	require.NoError(t, err)
	require.Equal(t, 200, stream.StatusCode)
	require.Equal(t, "text/event-stream", stream.Header.Get("Content-Type"))
	g2, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
	require.NoError(t, err)
	g2.Header.Set("Accept", "text/event-stream")
	g2.Header.Set("Mcp-Session-Id", sid)
	first := stream
	stream, err = ts.Client().Do(g2)
	require.NoError(t, err)
	require.Equal(t, 200, stream.StatusCode)
	_, err = io.Copy(io.Discard, first.Body)
	require.NoError(t, err, "the replaced stream ends")
	first.Body.Close()

	// DELETE ends the session, closes its stream, and the ID is then unknown.
	resp, body := do(t, ts, req{"DELETE", "", map[string]string{"Mcp-Session-Id": sid}})
	require.Equal(t, 204, resp.StatusCode, body)
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stream.Body); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the GET stream stayed open after DELETE")
	}
	stream.Body.Close()
	resp, body = do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": sid}})
	require.Equal(t, 404, resp.StatusCode, body)
	require.Equal(t, 0, h.SessionCount())
}

func TestHTTPStatelessMode(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, &mcphttp.Options{Stateless: true})
	resp, body := do(t, ts, req{"POST", initBody, nil})
	require.Equal(t, 200, resp.StatusCode, body)
	require.Empty(t, resp.Header.Get("Mcp-Session-Id"), "a stateless server issues no session")
	resp, body = do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, nil})
	require.Equal(t, 200, resp.StatusCode, body)
	require.Contains(t, body, `"text":"ok"`)
	for _, m := range []string{"GET", "DELETE"} {
		resp, body = do(t, ts, req{m, "", nil})
		require.Equal(t, 405, resp.StatusCode, body)
		require.Equal(t, "POST", resp.Header.Get("Allow"))
		require.Contains(t, body, "stateless")
	}
}

func TestHTTPIdleSessionsExpire(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, &mcphttp.Options{SessionIdleTimeout: 200 * time.Millisecond})
	sid := initSession(t, ts, "")
	require.Eventually(t, func() bool { return h.SessionCount() == 0 }, 5*time.Second, 50*time.Millisecond)
	resp, body := do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": sid}})
	require.Equal(t, 404, resp.StatusCode, body)
}

func TestHTTPClosedHandler(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, nil)
	require.NoError(t, h.Close())
	resp, body := do(t, ts, req{"POST", initBody, nil})
	require.Equal(t, 503, resp.StatusCode, body)
	require.Contains(t, body, "shutting down")
}
