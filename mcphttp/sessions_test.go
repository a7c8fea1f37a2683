package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware"
)

// hookLog records what the session hooks were told.
type hookLog struct {
	mu     sync.Mutex
	starts []mcphttp.SessionInfo
	ends   []endEvent
	roots  []rootsEvent
}

type endEvent struct {
	info   mcphttp.SessionInfo
	reason mcphttp.EndReason
}

type rootsEvent struct {
	info  mcphttp.SessionInfo
	roots []mcp.Root
}

func (l *hookLog) hooks() *mcphttp.SessionHooks {
	return &mcphttp.SessionHooks{
		OnStart: func(s mcphttp.SessionInfo) { l.mu.Lock(); l.starts = append(l.starts, s); l.mu.Unlock() },
		OnEnd: func(s mcphttp.SessionInfo, r mcphttp.EndReason) {
			l.mu.Lock()
			l.ends = append(l.ends, endEvent{s, r})
			l.mu.Unlock()
		},
		OnRootsChanged: func(s mcphttp.SessionInfo, roots []mcp.Root) {
			l.mu.Lock()
			l.roots = append(l.roots, rootsEvent{s, roots})
			l.mu.Unlock()
		},
	}
}

func (l *hookLog) snapshot() ([]mcphttp.SessionInfo, []endEvent, []rootsEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]mcphttp.SessionInfo(nil), l.starts...), append([]endEvent(nil), l.ends...), append([]rootsEvent(nil), l.roots...)
}

// waitEnd waits for the one OnEnd call and returns it.
func (l *hookLog) waitEnd(t *testing.T) endEvent {
	t.Helper()
	require.Eventually(t, func() bool { _, ends, _ := l.snapshot(); return len(ends) > 0 }, 5*time.Second, 5*time.Millisecond)
	_, ends, _ := l.snapshot()
	require.Len(t, ends, 1, "OnEnd is called once per session")
	return ends[0]
}

func quietServer(o mcp.Options) *mcp.Server {
	o.Name, o.Version, o.Logger = "sessions-test", "1.0.0", discardLogger()
	return mcp.NewServer(o)
}

// initWith starts a session with the given client capabilities and name.
func (c *httpClient) initWith(caps, name string) {
	c.t.Helper()
	resp, b := c.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":%q,"version":"2.0.0"}}}`,
		mcp.Version20251125, caps, name))
	require.Equal(c.t, http.StatusOK, resp.StatusCode, "%s", b)
	c.sid = resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(c.t, c.sid)
	c.version = string(mcp.Version20251125)
	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(c.t, http.StatusAccepted, status)
}

// getStream opens the session's GET stream; ctx bounds it.
func (c *httpClient) getStream(ctx context.Context) *sseStream {
	c.t.Helper()
	s := c.open(ctx, http.MethodGet, "", "Accept", "text/event-stream")
	require.Equal(c.t, http.StatusOK, s.resp.StatusCode)
	return s
}

// nextRequest reads the next server-to-client request from s.
func nextRequest(t *testing.T, s *sseStream) msg {
	t.Helper()
	for {
		m := s.mustNext().msg(t)
		if m.Method != "" && m.ID != nil {
			return m
		}
	}
}

// answer posts the client's result for a server request.
func (c *httpClient) answer(id json.RawMessage, result string) {
	c.t.Helper()
	status, _ := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
	require.Equal(c.t, http.StatusAccepted, status)
}

func TestSessionStartListAndDeleteHooks(t *testing.T) {
	t.Parallel()
	var log hookLog
	c, h := newHTTP(t, quietServer(mcp.Options{}), &mcphttp.Options{Hooks: log.hooks()})
	c.initWith(`{}`, "first-client")
	other := &httpClient{t: t, url: c.url, hc: c.hc}
	other.initWith(`{"roots":{}}`, "second-client")

	starts, ends, _ := log.snapshot()
	require.Len(t, starts, 2)
	assert.Equal(t, c.sid, starts[0].ID)
	assert.Equal(t, "first-client", starts[0].Client.Name)
	assert.Equal(t, "2.0.0", starts[0].Client.Version)
	assert.Equal(t, mcp.Version20251125, starts[0].ProtocolVersion)
	assert.Empty(t, ends)

	live := h.Sessions()
	require.Len(t, live, 2, "both sessions are listed")
	assert.Equal(t, []string{c.sid, other.sid}, []string{live[0].ID, live[1].ID}, "oldest first")
	assert.Equal(t, "second-client", live[1].Client.Name)
	assert.NotNil(t, live[1].Capabilities.Roots)
	assert.False(t, live[0].Created.IsZero())
	assert.False(t, live[0].LastSeen.Before(live[0].Created))

	resp, _ := c.do(http.MethodDelete, "")
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndDeleted, end.reason)
	assert.Equal(t, c.sid, end.info.ID)
	assert.Equal(t, "first-client", end.info.Client.Name)
	live = h.Sessions()
	require.Len(t, live, 1)
	assert.Equal(t, other.sid, live[0].ID)

	// Ending it again (a second DELETE, then Close) tells no one twice.
	resp, _ = c.do(http.MethodDelete, "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.NoError(t, h.Close())
	_, ends, _ = log.snapshot()
	require.Len(t, ends, 2)
	assert.Equal(t, endEvent{ends[1].info, mcphttp.EndServer}, ends[1], "Close ends the rest as the server's doing")
	assert.Equal(t, other.sid, ends[1].info.ID)
	assert.Empty(t, h.Sessions())
}

func TestSessionIdleExpiryHook(t *testing.T) {
	t.Parallel()
	var log hookLog
	c, h := newHTTP(t, quietServer(mcp.Options{}), &mcphttp.Options{Hooks: log.hooks(), SessionIdleTimeout: 40 * time.Millisecond})
	c.initWith(`{}`, "idler")
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndIdle, end.reason)
	assert.Equal(t, c.sid, end.info.ID)
	assert.Empty(t, h.Sessions())
	status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	assert.Equal(t, http.StatusNotFound, status)
	require.Len(t, msgs, 1)
}

// TestBareEnginePingsAndEndsLostClients: mcphttp.New served as is (no
// Start, no NewMux) pings the client of an open GET stream as
// mcphttp.Options.Ping says, keeps a client that answers, and ends the
// session of one that leaves MaxFailures pings unanswered, with EndLost.
func TestBareEnginePingsAndEndsLostClients(t *testing.T) {
	t.Parallel()
	var log hookLog
	srv := quietServer(mcp.Options{})
	c, h := newHTTP(t, srv, &mcphttp.Options{Hooks: log.hooks(), Ping: &middleware.PingOptions{Interval: 20 * time.Millisecond, MaxFailures: 2}})
	c.initWith(`{}`, "pinged")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream := c.getStream(ctx)

	for range 4 { // answered pings keep the session
		m := nextRequest(t, stream)
		require.Equal(t, "ping", m.Method)
		c.answer(m.ID, `{}`)
	}
	_, ends, _ := log.snapshot()
	assert.Empty(t, ends)
	require.Len(t, h.Sessions(), 1)

	// Now the client stops answering: two misses (MaxFailures) end its
	// session.
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndLost, end.reason)
	assert.Equal(t, c.sid, end.info.ID)
	assert.Empty(t, h.Sessions())
	unanswered := stream.all()
	assert.Len(t, unanswered, 2, "MaxFailures unanswered pings end the session")
	for _, ev := range unanswered { // the unanswered pings, then the end
		assert.Equal(t, "ping", ev.msg(t).Method)
	}
	assert.NoError(t, ctx.Err(), "the ended session's stream closes")
}

func TestPingDisabled(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{})
	c, h := newHTTP(t, srv, &mcphttp.Options{Ping: &middleware.PingOptions{Disabled: true, Interval: 10 * time.Millisecond}})
	c.initWith(`{}`, "unpinged")
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	stream := c.getStream(ctx)
	ev, ok := stream.next()
	assert.False(t, ok, "no ping is sent when Options.Ping.Disabled: got %+v", ev)
	assert.Len(t, h.Sessions(), 1)
}

// TestEmbeddedSessionIsNotPinged: an in-process session has no network
// connection, so the engine does not ping it (its client answers no
// requests and would be ended as lost); its Close ends it as deleted.
func TestEmbeddedSessionIsNotPinged(t *testing.T) {
	t.Parallel()
	var log hookLog
	srv := quietServerWithTools(mcp.Options{})
	e := mcptest.NewSession(t, srv, &mcptest.Options{Handler: &mcphttp.Options{Hooks: log.hooks(), Ping: &middleware.PingOptions{Interval: 5 * time.Millisecond}}}).Client()
	starts, _, _ := log.snapshot()
	require.Len(t, starts, 1)
	assert.Equal(t, "mcptest", starts[0].Client.Name)
	time.Sleep(100 * time.Millisecond) // twenty ping intervals
	res, err := e.CallTool(t.Context(), "add", map[string]int{"a": 2, "b": 3}, nil)
	require.NoError(t, err)
	assert.Equal(t, "5", res.Content[0].(mcp.TextContent).Text)
	_, ends, _ := log.snapshot()
	assert.Empty(t, ends, "the embedded session was not ended by pings")
	require.NoError(t, e.Close())
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndDeleted, end.reason)
}

// quietServerWithTools returns a server with options o and two tools: add,
// and roots (which reports what Context.Roots returned).
func quietServerWithTools(o mcp.Options) *mcp.Server {
	srv := quietServer(o)
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "roots"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		roots, err := c.Roots(ctx)
		if err != nil {
			return fmt.Sprintf("capability=%t: %v", errors.Is(err, mcp.ErrCapability), err), nil
		}
		uris := make([]string, len(roots))
		for i, r := range roots {
			uris[i] = r.URI
		}
		return strings.Join(uris, ","), nil
	})
	return srv
}

func TestRootsChangedHook(t *testing.T) {
	t.Parallel()
	var log hookLog
	c, h := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Hooks: log.hooks()})
	c.initWith(`{"roots":{"listChanged":true}}`, "rooted")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream := c.getStream(ctx)

	m := nextRequest(t, stream) // the fetch after initialization
	require.Equal(t, "roots/list", m.Method)
	c.answer(m.ID, `{"roots":[{"uri":"file:///a"}]}`)
	require.Eventually(t, func() bool {
		s := h.Sessions()
		return len(s) == 1 && len(s[0].Roots) == 1
	}, 5*time.Second, 5*time.Millisecond)
	_, _, roots := log.snapshot()
	assert.Empty(t, roots, "the first fetch is no change")

	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	require.Equal(t, http.StatusAccepted, status)
	m = nextRequest(t, stream)
	require.Equal(t, "roots/list", m.Method)
	c.answer(m.ID, `{"roots":[{"uri":"file:///b"},{"uri":"file:///c"}]}`)
	require.Eventually(t, func() bool { _, _, r := log.snapshot(); return len(r) == 1 }, 5*time.Second, 5*time.Millisecond)
	_, _, roots = log.snapshot()
	assert.Equal(t, c.sid, roots[0].info.ID)
	assert.Equal(t, []mcp.Root{{URI: "file:///b"}, {URI: "file:///c"}}, roots[0].roots)
	assert.Equal(t, roots[0].roots, roots[0].info.Roots)
	assert.Equal(t, roots[0].roots, h.Sessions()[0].Roots)

	// The tool sees the cached roots.
	res, _ := c.call(5, "tools/call", `{"name":"roots"}`)
	assert.Equal(t, "file:///b,file:///c", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
}

// TestRootsDisabled: with Options.Roots.Disabled the server never asks
// the client for its roots: not after initialization, and not when a tool
// calls Context.Roots, which fails with ErrCapability saying why.
func TestRootsDisabled(t *testing.T) {
	t.Parallel()
	var log hookLog
	srv := quietServerWithTools(mcp.Options{Roots: &mcp.RootsOptions{Disabled: true}})
	c, _ := newHTTP(t, srv, &mcphttp.Options{Hooks: log.hooks()})
	c.initWith(`{"roots":{"listChanged":true}}`, "rooted")

	res, before := c.call(5, "tools/call", `{"name":"roots"}`)
	assert.Empty(t, before, "no roots/list request on the tool's stream")
	text := wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text
	assert.Contains(t, text, "capability=true")
	assert.Contains(t, text, "roots are disabled")

	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	require.Equal(t, http.StatusAccepted, status)
	_, _, roots := log.snapshot()
	require.Len(t, roots, 1, "the change is still reported")
	assert.Nil(t, roots[0].roots, "with no roots: the server does not ask")

	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	stream := c.getStream(ctx)
	for {
		ev, ok := stream.next()
		if !ok {
			break
		}
		assert.NotEqual(t, "roots/list", ev.msg(t).Method, "the server asked for roots")
	}
}

// TestStdioSessionHooks: under Start's stdio transport the session starts
// with initialize, is listed, and ends as deleted at the end of input.
func TestStdioSessionHooks(t *testing.T) {
	t.Parallel()
	var log hookLog
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := quietServerWithTools(mcp.Options{})
	inst, err := mcphttp.Start(t.Context(), srv, &mcphttp.StartOptions{Stdin: inR, Stdout: outW,
		Handler: &mcphttp.Options{Hooks: log.hooks(), Ping: &middleware.PingOptions{Interval: 5 * time.Millisecond}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inst.Close() })
	lines := bufio.NewScanner(outR)
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-client","version":"3.0.0"}}}`+"\n")
	}()
	require.True(t, lines.Scan())
	assert.Contains(t, lines.Text(), `"id":1`)
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	}()
	live := inst.Handler().Sessions()
	require.Len(t, live, 1)
	assert.Equal(t, "stdio-client", live[0].Client.Name)
	time.Sleep(60 * time.Millisecond) // stdio is not pinged: nothing but answers is written
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	require.NoError(t, inW.Close())
	require.NoError(t, inst.Wait())
	starts, _, _ := log.snapshot()
	require.Len(t, starts, 1)
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndDeleted, end.reason)
	assert.Equal(t, live[0].ID, end.info.ID)
	assert.Empty(t, inst.Handler().Sessions())
	require.NoError(t, outW.Close())
}

func TestSupportedVersionsIsACopy(t *testing.T) {
	t.Parallel()
	v := mcphttp.SupportedVersions()
	require.Equal(t, []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618,
		mcp.Version20250326, mcp.Version20241105}, v, "every revision, newest first")
	require.Equal(t, mcp.Version20260728, v[0])
	v[0] = "1999-01-01"
	assert.Equal(t, mcp.Version20260728, mcphttp.SupportedVersions()[0])
}

func TestNewMuxUnderPrefix(t *testing.T) {
	t.Parallel()
	srv := quietServerWithTools(mcp.Options{})
	srv.AddRoute("GET", "/users/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
	}), nil)
	h := mcphttp.New(srv, nil)
	parent := http.NewServeMux()
	parent.Handle("/api/", http.StripPrefix("/api", mcphttp.NewMux(h, nil)))
	parent.HandleFunc("GET /other", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "parent") })
	ts := httptest.NewServer(parent)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	c := &httpClient{t: t, url: ts.URL + "/api/mcp", hc: ts.Client()}
	c.initWith(`{}`, "prefixed")
	res, _ := c.call(2, "tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`)
	assert.Equal(t, "3", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)

	tests := []struct{ path, want string }{
		{"/api/health", "ok"},
		{"/api/users/7", `{"id":"7"}`},
		{"/other", "parent"},
	}
	for _, tt := range tests {
		resp, body := fetch(t, http.MethodGet, ts.URL+tt.path, "")
		assert.Equal(t, http.StatusOK, resp.StatusCode, tt.path)
		assert.Equal(t, tt.want, strings.TrimSpace(body), tt.path)
	}
	resp, _ := fetch(t, http.MethodGet, ts.URL+"/api/nothing", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestNewMuxServesLateRoutes: a route added after NewMux is served (with
// the same auth rules), not silently dropped; one whose pattern conflicts
// with a mounted one is refused and logged.
func TestNewMuxServesLateRoutes(t *testing.T) {
	t.Parallel()
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer good" {
			return nil, mcp.ErrUnauthorized
		}
		return "good-user", nil
	}
	logs := &wiretest.SyncBuffer{}
	srv := mcp.NewServer(mcp.Options{Name: "late", Version: "1.0.0", Logger: jsonLogger(logs), Authenticate: auth})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	resp, _ := fetch(t, http.MethodGet, ts.URL+"/late", "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "not there yet")
	srv.AddRoute("GET", "/late", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "late "+fmt.Sprint(mcp.AuthFromContext(r.Context())))
	}), nil)
	srv.AddRoute("POST", "/late-public", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}), &mcp.RouteOptions{Public: true})
	srv.AddRoute("GET", "/health", http.NotFoundHandler(), nil)

	tests := []struct {
		name, method, path, token string
		status                    int
		body                      string
	}{
		{"late route", "GET", "/late", "good", 200, "late good-user"},
		{"late route needs auth", "GET", "/late", "", 401, ""},
		{"late public route", "POST", "/late-public", "", 201, ""},
		{"late route, wrong method", "PUT", "/late-public", "", 405, ""},
		{"conflicting late route refused: health still answers", "GET", "/health", "", 200, "ok"},
		{"still unknown", "GET", "/nothing", "", 404, ""},
	}
	for _, tt := range tests {
		resp, body := fetch(t, tt.method, ts.URL+tt.path, tt.token)
		assert.Equal(t, tt.status, resp.StatusCode, tt.name)
		if tt.body != "" {
			assert.Equal(t, tt.body, body, tt.name)
		}
	}
	assert.Contains(t, logs.String(), "a custom route added after NewMux is not served")
	assert.Contains(t, logs.String(), "GET /health")
}

func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
