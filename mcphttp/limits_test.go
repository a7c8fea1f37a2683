package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// gauge counts the calls of a tool running at once, in all and per
// session, and keeps the highest counts seen.
type gauge struct {
	mu      sync.Mutex
	now     int
	max     int
	perSess map[string]int
	maxSess int
}

func (g *gauge) enter(sid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perSess == nil {
		g.perSess = map[string]int{}
	}
	g.now++
	g.perSess[sid]++
	g.max = max(g.max, g.now)
	g.maxSess = max(g.maxSess, g.perSess[sid])
}

func (g *gauge) leave(sid string) {
	g.mu.Lock()
	g.now--
	g.perSess[sid]--
	g.mu.Unlock()
}

func (g *gauge) peaks() (all, session int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max, g.maxSess
}

type napArgs struct {
	MS int `json:"ms"`
	N  int `json:"n"`
}

// napServer offers "nap": sleep ms milliseconds, measured by g, and
// return "n=<n>".
func napServer(g *gauge) *mcp.Server {
	srv := quietServer(mcp.Options{})
	mcp.AddTool(srv, mcp.Tool{Name: "nap"}, func(ctx context.Context, c *mcp.Context, in napArgs) (string, error) {
		g.enter(c.SessionID)
		defer g.leave(c.SessionID)
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("n=%d", in.N), nil
	})
	return srv
}

// napBatch is a batch of n nap calls of ms each, numbered from first.
func napBatch(first, n, ms int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nap","arguments":{"ms":%d,"n":%d}}}`, first+i, ms, first+i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestBatchesRunInBoundedConcurrency: a batch element must not cost a
// goroutine (a 4 MiB batch holds some 36,000 calls). Many parallel batches
// of slow calls on several sessions run at most MaxSessionRequests per
// session and MaxConcurrentRequests in all, the rest waiting without a
// goroutine each; every result arrives.
func TestBatchesRunInBoundedConcurrency(t *testing.T) {
	const (
		sessions  = 4
		perSess   = 3 // parallel batches per session
		batchLen  = 40
		maxAll    = 16
		maxPerSes = 6
	)
	var g gauge
	c0, _ := newHTTP(t, napServer(&g), &mcphttp.Options{MaxConcurrentRequests: maxAll, MaxSessionRequests: maxPerSes, KeepAlive: -1})
	clients := make([]*httpClient, sessions)
	for i := range clients {
		clients[i] = &httpClient{t: t, url: c0.url, hc: c0.hc}
		clients[i].initialize("2025-03-26")
	}
	runtime.GC()
	base := runtime.NumGoroutine()
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				if n := int64(runtime.NumGoroutine()); n > peak.Load() {
					peak.Store(n)
				}
			}
		}
	}()
	type result struct {
		status int
		msgs   []msg
	}
	results := make(chan result, sessions*perSess)
	var wg sync.WaitGroup
	for s, c := range clients {
		for b := range perSess {
			wg.Go(func() {
				first := (s*perSess + b) * batchLen
				status, msgs := c.post(napBatch(first, batchLen, 15))
				results <- result{status, msgs}
			})
		}
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(results)
	seen := map[string]bool{}
	for r := range results {
		require.Equal(t, http.StatusOK, r.status)
		require.Len(t, r.msgs, batchLen)
		for _, m := range r.msgs {
			res := wiretest.ToolResult(t, m)
			var id int
			require.NoError(t, json.Unmarshal(m.ID, &id))
			require.Equal(t, fmt.Sprintf("n=%d", id), res.Text(), "the answer of request %d", id)
			seen[string(m.ID)] = true
		}
	}
	require.Len(t, seen, sessions*perSess*batchLen, "every call was answered once")
	all, perSession := g.peaks()
	assert.LessOrEqual(t, all, maxAll, "calls running at once, over all sessions")
	assert.LessOrEqual(t, perSession, maxPerSes, "calls running at once in one session")
	// What may run besides the calls: per POST in flight, the test's
	// goroutine, the server's connection goroutine and its background
	// read, the client transport's two (6 with slack); 16 more of slack.
	bound := base + maxAll + sessions*perSess*6 + 16
	t.Logf("goroutines: %d before, peak %d (bound %d); calls at once: %d (session %d)", base, peak.Load(), bound, all, perSession)
	assert.LessOrEqual(t, int(peak.Load()), bound, "goroutines while %d calls were in batches", sessions*perSess*batchLen)
}

// TestSessionRequestsWaitForASlot: single POSTs of one session beyond
// MaxSessionRequests wait for a slot and are all answered.
func TestSessionRequestsWaitForASlot(t *testing.T) {
	t.Parallel()
	var g gauge
	c, _ := newHTTP(t, napServer(&g), &mcphttp.Options{MaxSessionRequests: 2, KeepAlive: -1})
	c.initialize(string(mcp.Version20251125))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			m, _ := c.call(i, "tools/call", fmt.Sprintf(`{"name":"nap","arguments":{"ms":20,"n":%d}}`, i))
			assert.Equal(t, fmt.Sprintf("n=%d", i), wiretest.ToolResult(t, m).Text())
		})
	}
	wg.Wait()
	_, perSession := g.peaks()
	assert.Equal(t, 2, perSession, "at most MaxSessionRequests run at once, and they do")
}

// TestNegativeLimitsMeanNone: with both request limits negative a batch
// runs every call at once.
func TestNegativeLimitsMeanNone(t *testing.T) {
	t.Parallel()
	var g gauge
	c, _ := newHTTP(t, napServer(&g), &mcphttp.Options{MaxSessionRequests: -1, MaxConcurrentRequests: -1, KeepAlive: -1})
	c.initialize("2025-03-26")
	status, msgs := c.post(napBatch(0, 80, 100))
	require.Equal(t, http.StatusOK, status)
	require.Len(t, msgs, 80)
	all, _ := g.peaks()
	assert.Equal(t, 80, all)
}

// TestWaitingRequestLeavesWithItsClient: a request waiting for a slot
// whose client goes away is dropped, holding nothing; the slot's owner
// still finishes and the next request runs.
func TestWaitingRequestLeavesWithItsClient(t *testing.T) {
	t.Parallel()
	var g gauge
	c, _ := newHTTP(t, napServer(&g), &mcphttp.Options{MaxConcurrentRequests: 1, KeepAlive: -1})
	c.initialize(string(mcp.Version20251125))
	held := make(chan struct{})
	go func() {
		defer close(held)
		m, _ := c.call(1, "tools/call", `{"name":"nap","arguments":{"ms":300,"n":1}}`)
		assert.Equal(t, "n=1", wiretest.ToolResult(t, m).Text())
	}()
	require.Eventually(t, func() bool { all, _ := g.peaks(); return all == 1 }, 5*time.Second, time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.hc.Do(c.request(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{"ms":1,"n":2}}}`))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	<-held
	m, _ := c.call(3, "tools/call", `{"name":"nap","arguments":{"ms":1,"n":3}}`)
	assert.Equal(t, "n=3", wiretest.ToolResult(t, m).Text())
	all, _ := g.peaks()
	assert.Equal(t, 1, all)
}

// capServer serves srv behind middleware that authenticates "Bearer
// <name>" (no header: anonymous) and takes the client's address from
// X-Test-Addr, as a real-IP middleware behind a proxy would.
func capServer(t *testing.T, opts *mcphttp.Options) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	return capServerWith(t, quietServer(mcp.Options{}), opts)
}

// capServerWith is capServer serving srv.
func capServerWith(t *testing.T, srv *mcp.Server, opts *mcphttp.Options) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	h := mcphttp.New(srv, opts)
	auth := middleware.CheckCredentials(func(r *http.Request) (any, error) {
		if name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			return testUser(name), nil
		}
		return nil, nil
	}, nil)
	realIP := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := r.Header.Get("X-Test-Addr"); a != "" {
				r.RemoteAddr = a
			}
			next.ServeHTTP(w, r)
		})
	}
	ts := httptest.NewServer(realIP(auth(h)))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts, h
}

// initAs sends initialize with the given headers (pairs) and returns the
// response and its body.
func initAs(t *testing.T, ts *httptest.Server, header ...string) (*http.Response, string) {
	t.Helper()
	hd := map[string]string{}
	for i := 0; i+1 < len(header); i += 2 {
		hd[header[i]] = header[i+1]
	}
	return do(t, ts, req{"POST", initBody, hd})
}

// limitError decodes the JSON-RPC error of a refused initialize.
func limitError(t *testing.T, body string) (code int64, message string, data map[string]any) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int64          `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m), body)
	assert.Equal(t, "1", string(m.ID), "the error answers the initialize")
	return m.Error.Code, m.Error.Message, m.Error.Data
}

// TestMaxSessions: live sessions are capped (without a cap one client
// can open some 110,000 in 35 s). Beyond Options.MaxSessions,
// initialize is answered 503 with Retry-After and an error naming the
// option; sessions that end (DELETE, idle expiry, EndSession) and
// initializes that fail free their slot.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	ts, h := capServer(t, &mcphttp.Options{MaxSessions: 2, SessionIdleTimeout: 150 * time.Millisecond})
	refused := func() {
		t.Helper()
		resp, body := initAs(t, ts)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
		assert.Equal(t, "10", resp.Header.Get("Retry-After"))
		assert.Less(t, len(body), 512, "a short body")
		code, message, data := limitError(t, body)
		assert.Equal(t, int64(mcp.CodeServerError), code)
		assert.Contains(t, message, "mcphttp.Options.MaxSessions")
		assert.Contains(t, message, "2 live sessions")
		assert.Equal(t, map[string]any{"limit": "MaxSessions", "option": "mcphttp.Options.MaxSessions", "max": 2.0}, data)
	}
	a := initSession(t, ts, "")
	b := initSession(t, ts, "alice")
	refused()

	resp, body := do(t, ts, req{"DELETE", "", map[string]string{"Mcp-Session-Id": a}})
	require.Equal(t, http.StatusNoContent, resp.StatusCode, body)
	c := initSession(t, ts, "")
	refused()

	h.EndSession(c)
	_ = initSession(t, ts, "")
	refused()

	// A failed initialize holds no slot: end one, fail one, then open one.
	h.EndSession(b)
	resp, body = do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil})
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "protocolVersion")
	_ = initSession(t, ts, "")
	refused()

	// Idle expiry frees both.
	require.Eventually(t, func() bool { return h.SessionCount() == 0 }, 5*time.Second, 10*time.Millisecond)
	_ = initSession(t, ts, "")
	_ = initSession(t, ts, "")
	refused()
}

// TestMaxSessionsPerClient: beyond Options.MaxSessionsPerClient sessions
// of one client (its auth subject, else its address; an IPv6 address by
// its /64), initialize is answered 429 with Retry-After; other clients
// are not affected, and loopback callers are not counted per client.
func TestMaxSessionsPerClient(t *testing.T) {
	t.Parallel()
	ts, _ := capServer(t, &mcphttp.Options{MaxSessionsPerClient: 2})
	refused := func(header ...string) {
		t.Helper()
		resp, body := initAs(t, ts, header...)
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, body)
		assert.Equal(t, "10", resp.Header.Get("Retry-After"))
		_, message, data := limitError(t, body)
		assert.Contains(t, message, "mcphttp.Options.MaxSessionsPerClient")
		assert.Equal(t, "MaxSessionsPerClient", data["limit"])
	}
	ok := func(header ...string) string {
		t.Helper()
		resp, body := initAs(t, ts, header...)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		return resp.Header.Get("Mcp-Session-Id")
	}
	// By subject, from any address.
	ok("Authorization", "Bearer alice", "X-Test-Addr", "198.51.100.1:1000")
	first := ok("Authorization", "Bearer alice", "X-Test-Addr", "198.51.100.2:1000")
	refused("Authorization", "Bearer alice", "X-Test-Addr", "198.51.100.3:1000")
	ok("Authorization", "Bearer bob", "X-Test-Addr", "198.51.100.1:1000")
	resp, body := do(t, ts, req{"DELETE", "", map[string]string{"Mcp-Session-Id": first, "Authorization": "Bearer alice"}})
	require.Equal(t, http.StatusNoContent, resp.StatusCode, body)
	ok("Authorization", "Bearer alice")

	// Anonymous, by address.
	ok("X-Test-Addr", "203.0.113.7:1")
	ok("X-Test-Addr", "203.0.113.7:2")
	refused("X-Test-Addr", "203.0.113.7:3")
	ok("X-Test-Addr", "203.0.113.8:1")
	ok("X-Test-Addr", "[2001:db8:1:2::1]:1")
	ok("X-Test-Addr", "[2001:db8:1:2::ffff]:1")
	refused("X-Test-Addr", "[2001:db8:1:2:aaaa::1]:1")
	ok("X-Test-Addr", "[2001:db8:1:3::1]:1")

	// Loopback names no single client: not counted per client.
	for range 4 {
		ok()
	}
}

// TestSessionCapDefaults: the zero Options cap sessions at the documented
// defaults.
func TestSessionCapDefaults(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 10000, mcphttp.DefaultMaxSessions)
	assert.Equal(t, 100, mcphttp.DefaultMaxSessionsPerClient)
	assert.Equal(t, 1024, mcphttp.DefaultMaxConcurrentRequests)
	assert.Equal(t, 64, mcphttp.DefaultMaxSessionRequests)
	assert.Equal(t, 30*time.Second, mcphttp.DefaultBodyReadTimeout)
	ts, _ := capServer(t, nil)
	for i := range mcphttp.DefaultMaxSessionsPerClient {
		resp, body := initAs(t, ts, "Authorization", "Bearer carol", "X-Test-Addr", fmt.Sprintf("192.0.2.%d:1", i%250))
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
	}
	resp, body := initAs(t, ts, "Authorization", "Bearer carol")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, body)
}

// dribble opens a raw connection to addr, sends the headers of a POST
// announcing a 100-byte body, then its bytes one every 50 ms, and returns
// what the server answered (status line and all) and how long until it
// closed the connection; it gives up after limit.
func dribble(t *testing.T, addr string, limit time.Duration) (answer string, closedAfter time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	start := time.Now()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{", addr)
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for range 99 {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(limit)))
	b, err := io.ReadAll(conn)
	if errors.Is(err, syscall.ECONNRESET) {
		// The client went on writing after the server closed: the
		// answer came before the reset.
		err = nil
	}
	require.NoError(t, err, "the server closes the connection (got %q)", b)
	return string(b), time.Since(start)
}

// TestBodyReadTimeout: a request body must not be read forever (a
// connection dribbling a byte a second would stay open). A body slower
// than Options.BodyReadTimeout is answered 408 and its connection closed,
// within the deadline; a slow tool call whose SSE answer lasts several
// deadlines, and a GET stream, are not cut.
func TestBodyReadTimeout(t *testing.T) {
	t.Parallel()
	const deadline = 300 * time.Millisecond
	srv := quietServer(mcp.Options{})
	mcp.AddTool(srv, mcp.Tool{Name: "long"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		for i := 1; i <= 4; i++ {
			if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 4}); err != nil {
				return "", err
			}
			select {
			case <-time.After(deadline):
			case <-ctx.Done():
				return "", context.Cause(ctx)
			}
		}
		return "took four deadlines", nil
	})
	c, h := newHTTP(t, srv, &mcphttp.Options{BodyReadTimeout: deadline, KeepAlive: -1})
	addr := strings.TrimPrefix(c.url, "http://")

	answer, after := dribble(t, addr, 3*time.Second)
	assert.True(t, strings.HasPrefix(answer, "HTTP/1.1 408 "), "%q", answer)
	assert.Contains(t, answer, "mcphttp.Options.BodyReadTimeout")
	assert.Less(t, after, deadline+time.Second, "answered and closed within the deadline")

	c.initialize(string(mcp.Version20251125))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get := c.getStream(ctx)
	m, before := c.call(1, "tools/call", `{"name":"long","_meta":{"progressToken":"p"}}`)
	assert.Equal(t, "took four deadlines", wiretest.ToolResult(t, m).Text())
	assert.Len(t, before, 4, "every progress notification arrived")

	// The GET stream opened before the call still carries messages.
	srv.LogToClients(mcp.LevelInfo, "still here", nil)
	ev := get.mustNext().msg(t)
	assert.Equal(t, "notifications/message", ev.Method)
	assert.Equal(t, 1, h.SessionCount())
}

// TestStartBoundsSlowBodiesAndLargeHeaders: the server Start runs
// answers a dribbled body 408 within Options.BodyReadTimeout and headers
// beyond StartMaxHeaderBytes 431.
func TestStartBoundsSlowBodiesAndLargeHeaders(t *testing.T) {
	t.Parallel()
	inst, err := mcphttp.Start(context.Background(), quietServer(mcp.Options{}), &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1,
		Handler: &mcphttp.Options{BodyReadTimeout: 200 * time.Millisecond},
	})
	require.NoError(t, err)
	defer func() { require.NoError(t, inst.Close()) }()

	answer, after := dribble(t, inst.Addr(), 3*time.Second)
	assert.True(t, strings.HasPrefix(answer, "HTTP/1.1 408 "), "%q", answer)
	assert.Less(t, after, 1200*time.Millisecond)

	r, err := http.NewRequest(http.MethodPost, "http://"+inst.Addr()+"/mcp", strings.NewReader(initBody))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("X-Big", strings.Repeat("a", mcphttp.StartMaxHeaderBytes+8192))
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
	http.DefaultClient.CloseIdleConnections()
}
