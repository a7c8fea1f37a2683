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
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// heapWatch samples the heap (live objects and garbage not yet swept)
// while an attack runs, and the goroutine count.
type heapWatch struct {
	base       uint64
	baseG      int
	peak       atomic.Uint64
	peakG      atomic.Int64
	stop, done chan struct{}
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func watchHeap() *heapWatch {
	runtime.GC()
	w := &heapWatch{base: heapObjects(), baseG: runtime.NumGoroutine(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			if v := heapObjects(); v > w.peak.Load() {
				w.peak.Store(v)
			}
			if g := int64(runtime.NumGoroutine()); g > w.peakG.Load() {
				w.peakG.Store(g)
			}
			select {
			case <-w.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return w
}

// end returns the peak heap over the baseline, what stayed after a
// collection, and the peak goroutine count over the baseline.
func (w *heapWatch) end() (peak, retained uint64, goroutines int) {
	close(w.stop)
	<-w.done
	runtime.GC()
	after := heapObjects()
	sub := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return sub(w.peak.Load(), w.base), sub(after, w.base), int(w.peakG.Load()) - w.baseG
}

// parallel runs fn n times at once and returns the answer of each.
func parallel(n int, fn func(i int) (int, string)) (statuses []int, bodies []string) {
	statuses, bodies = make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { statuses[i], bodies[i] = fn(i) })
	}
	wg.Wait()
	return statuses, bodies
}

// TestHostileResources is a table of inputs whose cost could be far
// larger than their size: each row's attack runs on a fresh
// handler, and the row asserts the status of its answers, that an error
// answer is short, and that the heap (and, where stated, the goroutines)
// stayed under the row's bound while it ran and after. The rows the other
// hostile tables cover (bodies, Origin, Host, session IDs, Accept, depth,
// reflected values) are TestHostileInputs's (post_test.go) and
// TestHTTPStatuses's (handler_test.go).
func TestHostileResources(t *testing.T) {
	const MiB = 1 << 20
	type row struct {
		name string
		opts mcphttp.Options
		// attack runs against ts and returns every answer (status, body).
		attack     func(t *testing.T, ts *httptest.Server) ([]int, []string)
		status     int    // the status of the answer that matters (the last)
		bodyHas    string // in that answer
		bodyMax    int    // bytes; 0: not checked (a result, not an error)
		heapPeak   uint64 // the heap while it ran, over the baseline
		heapAfter  uint64 // what stayed after a collection
		goroutines int    // the peak over the baseline; 0: not checked
	}
	anonPost := func(ts *httptest.Server, body string, header ...string) (int, string) {
		hd := map[string]string{}
		for i := 0; i+1 < len(header); i += 2 {
			hd[header[i]] = header[i+1]
		}
		resp, b := do(t, ts, req{"POST", body, hd})
		return resp.StatusCode, b
	}
	rows := []row{
		{
			// Before: one goroutine per element, 47,101 goroutines and
			// 500 MiB for one POST of 36,000 slow calls.
			name: "30 parallel batches of 100 slow calls on 3 sessions",
			opts: mcphttp.Options{MaxConcurrentRequests: 64, MaxSessionRequests: 16},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				c := &httpClient{t: t, url: ts.URL, hc: ts.Client()}
				sids := make([]string, 3)
				for i := range sids {
					c.sid = ""
					c.initialize("2025-03-26")
					sids[i] = c.sid
				}
				return parallel(30, func(i int) (int, string) {
					cc := &httpClient{t: t, url: ts.URL, hc: ts.Client(), sid: sids[i%3], version: "2025-03-26"}
					resp, b := cc.do(http.MethodPost, napBatch(i*100, 100, 5))
					if n := strings.Count(string(b), `"text":"n=`); n != 100 {
						return -1, fmt.Sprintf("%d results of 100: %.300s", n, b)
					}
					return resp.StatusCode, ""
				})
			},
			status: http.StatusOK, heapPeak: 64 * MiB, heapAfter: 4 * MiB,
			goroutines: 64 + 30*6 + 32,
		},
		{
			// Before: no cap; 110,000 sessions in 35 s, 1.3 GB.
			name: "2,000 initializes, 20 at a time, past MaxSessions 500",
			opts: mcphttp.Options{MaxSessions: 500, MaxSessionsPerClient: -1},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for range 100 {
					s, b := parallel(20, func(int) (int, string) { return anonPost(ts, initBody) })
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusServiceUnavailable, bodyHas: "mcphttp.Options.MaxSessions", bodyMax: 512,
			heapPeak: 32 * MiB, heapAfter: MiB + 500*3<<10,
		},
		{
			name: "500 initializes from one address past MaxSessionsPerClient 100",
			opts: mcphttp.Options{},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for range 25 {
					s, b := parallel(20, func(int) (int, string) { return anonPost(ts, initBody, "X-Test-Addr", "203.0.113.9:4000") })
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusTooManyRequests, bodyHas: "mcphttp.Options.MaxSessionsPerClient", bodyMax: 512,
			heapPeak: 16 * MiB, heapAfter: MiB + 100*3<<10,
		},
		{
			name: "500 initializes of one subject from many addresses past MaxSessionsPerClient 100",
			opts: mcphttp.Options{},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for round := range 25 {
					s, b := parallel(20, func(i int) (int, string) {
						return anonPost(ts, initBody, "Authorization", "Bearer mallory", "X-Test-Addr", fmt.Sprintf("198.51.%d.%d:1", round, i))
					})
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusTooManyRequests, bodyHas: "mcphttp.Options.MaxSessionsPerClient", bodyMax: 512,
			heapPeak: 16 * MiB, heapAfter: MiB + 100*3<<10,
		},
		{
			// Before: never timed out; 200 such connections stayed open
			// past 75 s.
			name: "40 connections dribbling a body a byte per 50 ms",
			opts: mcphttp.Options{BodyReadTimeout: 200 * time.Millisecond},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				addr := strings.TrimPrefix(ts.URL, "http://")
				return parallel(40, func(int) (int, string) {
					answer, after := dribble(t, addr, 3*time.Second)
					if after > 1500*time.Millisecond {
						return -1, fmt.Sprintf("closed after %s", after)
					}
					status := 0
					_, _ = fmt.Sscanf(answer, "HTTP/1.1 %d", &status)
					_, body, _ := strings.Cut(answer, "\r\n\r\n")
					return status, body
				})
			},
			status: http.StatusRequestTimeout, bodyHas: "mcphttp.Options.BodyReadTimeout", bodyMax: 512,
			heapPeak: 8 * MiB, heapAfter: 1 * MiB,
		},
		{
			// Before: 200, and the tool saw the caller's identity.
			name: "credentials on an anonymous session",
			opts: mcphttp.Options{},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				sid := initSession(t, ts, "")
				s, b := anonPost(ts, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{"ms":1}}}`,
					"Mcp-Session-Id", sid, "Authorization", "Bearer mallory")
				return []int{s}, []string{b}
			},
			status: http.StatusForbidden, bodyHas: "belongs to another caller", bodyMax: 512,
			heapPeak: 4 * MiB, heapAfter: 1 * MiB,
		},
		{
			// Before: 7.6 KB each, 30 minutes idle.
			name: "2,000 idle sessions",
			opts: mcphttp.Options{MaxSessionsPerClient: -1},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for range 100 {
					s, b := parallel(20, func(int) (int, string) { return anonPost(ts, initBody) })
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusOK, bodyHas: `"protocolVersion"`,
			heapPeak: 32 * MiB, heapAfter: MiB + 2000*3<<10,
		},
	}
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			var g gauge
			tt.opts.KeepAlive = -1
			ts, _ := capServerWith(t, napServer(&g), &tt.opts)
			w := watchHeap()
			statuses, bodies := tt.attack(t, ts)
			ts.Client().CloseIdleConnections()
			peak, retained, goroutines := w.end()
			t.Logf("heap peak +%.1f MiB (bound %.0f), after +%.2f MiB (bound %.2f); goroutines peak +%d",
				float64(peak)/MiB, float64(tt.heapPeak)/MiB, float64(retained)/MiB, float64(tt.heapAfter)/MiB, goroutines)
			last := len(statuses) - 1
			for i, s := range statuses {
				if s != http.StatusOK && s != tt.status {
					t.Fatalf("answer %d: status %d: %.300s", i, s, bodies[i])
				}
			}
			require.Equal(t, tt.status, statuses[last], "%.300s", bodies[last])
			assert.Contains(t, bodies[last], tt.bodyHas)
			if tt.bodyMax > 0 {
				assert.LessOrEqual(t, len(bodies[last]), tt.bodyMax, "a short body")
			}
			assert.LessOrEqual(t, peak, tt.heapPeak, "heap while the attack ran")
			assert.LessOrEqual(t, retained, tt.heapAfter, "heap the attack left")
			if tt.goroutines > 0 {
				assert.LessOrEqual(t, goroutines, tt.goroutines, "goroutines while the attack ran")
			}
		})
	}
}

func TestTasksPerClientLimit(t *testing.T) {
	t.Parallel()
	c, tt := newTasks25(t, &mcphttp.Options{MaxTasksPerClient: 2})
	a := c.as("ada")
	first := a.startTask25("slow", `{"ms":10000}`, `{}`)
	a.startTask25("slow", `{"ms":10000}`, `{}`)
	m := a.rpc(3, "tools/call", `{"name":"slow","arguments":{},"task":{}}`)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(mcp.CodeServerError), m.Error.Code)
	assert.Contains(t, m.Error.Message, "MaxTasksPerClient")
	// Another client is not held back; an ordinary call neither.
	c.as("bob").startTask25("slow", `{"ms":10000}`, `{}`)
	assert.Nil(t, a.rpc(4, "tools/call", `{"name":"plain","arguments":{}}`).Error)
	// The limit counts live tasks: one that ended frees its place.
	resultOf[task25](t, a.rpc(5, "tasks/cancel", `{"taskId":"`+first.TaskID+`"}`))
	<-tt.stopped
	a.startTask25("slow", `{"ms":10000}`, `{}`)

	// Revision 2026-07-28 counts the same tasks (the caller's identity).
	_, mm := tasksPost(t, c.url, taskBody(1, "tools/call", `"name":"slow","arguments":{}`, tasksExt), "slow", "X-User", "ada")
	require.NotNil(t, mm.Error)
	assert.Contains(t, mm.Error.Message, "MaxTasksPerClient")
}

func TestTasksHoldRequestSlots(t *testing.T) {
	t.Parallel()
	c, tt := newTasks25(t, &mcphttp.Options{MaxConcurrentRequests: 2})
	a := c.as("ada")
	first := a.startTask25("slow", `{"ms":10000}`, `{}`)
	// The running task holds one slot and this request the other: no
	// slot is left for a second task.
	m := a.rpc(2, "tools/call", `{"name":"slow","arguments":{},"task":{}}`)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(mcp.CodeServerError), m.Error.Code)
	assert.Contains(t, m.Error.Message, "MaxConcurrentRequests")
	// Ordinary requests still run: they wait for a slot, and one is free.
	assert.Nil(t, a.rpc(3, "tools/call", `{"name":"plain","arguments":{}}`).Error)
	resultOf[task25](t, a.rpc(4, "tasks/cancel", `{"taskId":"`+first.TaskID+`"}`))
	<-tt.stopped
	require.Eventually(t, func() bool {
		m := a.rpc(5, "tools/call", `{"name":"slow","arguments":{"ms":1},"task":{}}`)
		return m.Error == nil
	}, 5*time.Second, 20*time.Millisecond, "the slot of the cancelled task was given back")
}
