package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replicaSet is n examples/everything processes started with the same
// flags, behind a roundRobin proxy served on front.
type replicaSet struct {
	procs []*serverProc
	rr    *roundRobin
	front *httptest.Server
}

// startReplicas starts n examples/everything processes with args, and the
// round-robin proxy in front of them.
func startReplicas(t *testing.T, n int, args ...string) *replicaSet {
	t.Helper()
	rs := &replicaSet{}
	var endpoints []string
	for range n {
		p := startHTTPServer(t, args...)
		rs.procs = append(rs.procs, p)
		endpoints = append(endpoints, p.url)
	}
	rs.rr = newRoundRobin(t, endpoints...)
	rs.front = httptest.NewServer(rs.rr)
	t.Cleanup(rs.front.Close)
	return rs
}

// endpoint is the MCP endpoint behind the proxy.
func (rs *replicaSet) endpoint() string { return rs.front.URL + "/mcp" }

// hits is the proxy's count per replica, for logs.
func (rs *replicaSet) hits() string {
	var parts []string
	for i := range rs.rr.hits {
		parts = append(parts, strconv.FormatInt(rs.rr.hits[i].Load(), 10))
	}
	return strings.Join(parts, "/")
}

// errorLog collects the errors of many clients, safe for concurrent use.
type errorLog struct {
	mu   sync.Mutex
	errs []string
}

func (l *errorLog) add(client int, what string, err error) {
	l.mu.Lock()
	l.errs = append(l.errs, fmt.Sprintf("client %d: %s: %v", client, what, err))
	l.mu.Unlock()
}

// requireNone fails t when an error was collected, quoting the first ones.
func (l *errorLog) requireNone(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Empty(t, l.errs, "%d errors; first: %v", len(l.errs), l.errs[:min(len(l.errs), 5)])
}

// sdkClient connects an official Go SDK client through hc to endpoint,
// asking for protocol version (2025-11-25 or 2026-07-28). maxRetries is the
// transport's MaxRetries (SSE reconnections; -1: none).
func sdkClient(ctx context.Context, name, endpoint string, hc *http.Client, version string, maxRetries int) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: maxRetries},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	// Connect falls back from server/discover to initialize on any error,
	// and to an older revision on a version error: check what was agreed.
	if got := s.InitializeResult().ProtocolVersion; got != version {
		_ = s.Close()
		return nil, fmt.Errorf("asked for %s, negotiated %s", version, got)
	}
	return s, nil
}

// callText calls a tool and returns the text of its content blocks, one a
// line; a tool error is an error.
func callText(ctx context.Context, s *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return "", fmt.Errorf("%s: tool error: %s", name, text)
	}
	return text, nil
}

// redisBackends are the Redis deployments the replica checks (b) and (c)
// run on: one redis-server, and a Redis Cluster of three masters, named to
// -redis by its seed addresses (host:port,host:port,host:port).
var redisBackends = []struct {
	name  string
	start func(t *testing.T) string // the -redis value
}{
	{"redis", func(t *testing.T) string { return "redis://" + redistest.Start(t) + "/0" }},
	{"cluster", func(t *testing.T) string { return strings.Join(clusterAddrs(t), ",") }},
}

// sharedCluster is the Redis Cluster of the replica checks: the first one
// that needs it starts it, TestMain stops it. The checks run one after
// another, and their sessions, streams and relay channels have random
// names of their own, so they can share one (a cluster takes a few
// seconds to form).
var sharedCluster struct {
	once sync.Once
	c    *redistest.Cluster
	err  error
}

func clusterAddrs(t *testing.T) []string {
	t.Helper()
	sharedCluster.once.Do(func() { sharedCluster.c, sharedCluster.err = redistest.NewCluster() })
	if sharedCluster.err != nil {
		t.Fatal(sharedCluster.err)
	}
	return sharedCluster.c.Addrs
}

// stopSharedCluster stops the shared cluster, if a test started it.
func stopSharedCluster() {
	if sharedCluster.c != nil {
		sharedCluster.c.Stop()
	}
}

// TestReplicasShareSessionsOnRedis is the replica check on Redis: three
// examples/everything processes with -redis -resumable on one real
// redis-server (every answer is a resumable stream with event IDs in Redis),
// behind a round-robin proxy that sends every request to the next replica.
// 200 clients of the official Go SDK (2025-era revision, stateful
// sessions) connect, list tools, call add and echo, and set their log
// level (written back to the shared record), with no error; every replica
// served requests of sessions it did not make.
func TestReplicasShareSessionsOnRedis(t *testing.T) {
	for _, b := range redisBackends {
		t.Run(b.name, func(t *testing.T) { testReplicasShareSessions(t, b.start(t)) })
	}
}

func testReplicasShareSessions(t *testing.T, redisURL string) {
	rs := startReplicas(t, 3, "-redis", redisURL, "-resumable")
	rr := rs.rr

	const clients = 200
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	hc := replicaClient(t, 64)

	var (
		wg     sync.WaitGroup
		errs   errorLog
		calls  atomic.Int64
		failed = errs.add
	)
	sem := make(chan struct{}, 50) // clients connected at once
	start := time.Now()
	for i := range clients {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			// A 2025 client: stateful sessions are what must move between
			// replicas (a 2026-07-28 client keeps no session). The SDK would
			// otherwise negotiate 2026-07-28 through server/discover.
			s, err := sdkClient(ctx, fmt.Sprintf("replica-client-%d", i), rs.endpoint(), hc, legacyProtocol, -1)
			if err != nil {
				failed(i, "connect", err)
				return
			}
			defer s.Close()
			tools, err := s.ListTools(ctx, nil)
			if err != nil {
				failed(i, "tools/list", err)
				return
			}
			if len(tools.Tools) == 0 {
				failed(i, "tools/list", fmt.Errorf("no tools"))
			}
			if err := s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
				failed(i, "logging/setLevel", err)
			}
			for j := range 3 {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": i, "b": j}})
				calls.Add(1)
				if err != nil {
					failed(i, "add", err)
					continue
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != fmt.Sprint(i+j) {
					failed(i, "add", fmt.Errorf("got %q, want %d", got, i+j))
				}
			}
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			calls.Add(1)
			if err != nil {
				failed(i, "echo", err)
			} else if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "hi") {
				failed(i, "echo", fmt.Errorf("got %q", got))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	errs.requireNone(t)
	assert.Equal(t, int64(clients*4), calls.Load())
	for i := range rr.hits {
		assert.Greater(t, rr.hits[i].Load(), int64(clients), "replica %d served its share", i)
	}
	t.Logf("%d clients, %d tool calls, %d HTTP requests over 3 replicas (%d/%d/%d) in %v, 0 errors",
		clients, calls.Load(), rr.n.Load(), rr.hits[0].Load(), rr.hits[1].Load(), rr.hits[2].Load(), elapsed.Round(time.Millisecond))
}

// TestStreamResumesOnAnotherReplica is the other half of the Redis replica check
// on three examples/everything replicas with -redis -resumable behind the
// round-robin proxy, a 2025-11-25 client calls the slow tool, drops its
// connection after the priming event, and resumes with GET and
// Last-Event-ID; the GET lands on another replica, which follows the
// stream from Redis and delivers the call's response.
func TestStreamResumesOnAnotherReplica(t *testing.T) {
	for _, b := range redisBackends {
		t.Run(b.name, func(t *testing.T) { testStreamResumes(t, b.start(t)) })
	}
}

func testStreamResumes(t *testing.T, redisURL string) {
	front := startReplicas(t, 3, "-redis", redisURL, "-resumable").front
	hc := replicaClient(t, 0)
	ctx := testContext(t, 10*time.Second)

	post := func(ctx context.Context, sid, body string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/mcp", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		return resp
	}
	resp := post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"resume","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	resp = post(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	callCtx, drop := context.WithCancel(ctx)
	resp = post(callCtx, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":700}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	callReplica := resp.Header.Get("X-Replica")
	rd := bufio.NewReader(resp.Body)
	var lastID string
	for lastID == "" {
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "the priming event")
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "id:"); ok {
			lastID = strings.TrimSpace(v)
		}
	}
	drop() // the connection breaks; the call goes on on its replica
	resp.Body.Close()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, front.URL+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", lastID)
	resp, err = hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.NotEqual(t, callReplica, resp.Header.Get("X-Replica"), "resumed on another replica")
	assert.Contains(t, string(body), `"id":2`, "the call's response arrived on the resumed stream: %s", body)
	assert.Contains(t, string(body), `"result"`, "%s", body)
	t.Logf("call on replica %s, resumed on replica %s after event %s", callReplica, resp.Header.Get("X-Replica"), lastID)
}

// errorKind names the class of a call's error for the log: the proxy's 502
// (no response yet when the replica died), or the client's "request
// terminated without response" (the SSE stream was cut).
func errorKind(err error) string {
	switch msg := err.Error(); {
	case strings.Contains(msg, "Bad Gateway"):
		return "502"
	case strings.Contains(msg, "terminated without response"):
		return "stream cut"
	case strings.Contains(msg, "replica running this request stopped"):
		return "resumed, then answered by a follower"
	default:
		return msg
	}
}

// TestStatelessReplicas is the stateless replica check: three
// examples/everything -stateless processes behind the round-robin proxy,
// no shared store. 200 official Go SDK clients pinned to 2025-11-25
// (initialize, but no session) and 200 speaking 2026-07-28 (server/discover,
// no handshake) list tools and call add, echo and progress, with 0 errors;
// every request of a client goes to the next replica.
func TestStatelessReplicas(t *testing.T) {
	rs := startReplicas(t, 3, "-stateless")

	const perRevision = 200
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hc := replicaClient(t, 64)

	var (
		wg    sync.WaitGroup
		errs  errorLog
		calls [2]atomic.Int64
	)
	revisions := [2]string{legacyProtocol, "2026-07-28"}
	sem := make(chan struct{}, 50) // clients connected at once
	start := time.Now()
	for i := range 2 * perRevision {
		rev := i % 2
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			s, err := sdkClient(ctx, fmt.Sprintf("stateless-%d", i), rs.endpoint(), hc, revisions[rev], -1)
			if err != nil {
				errs.add(i, revisions[rev]+" connect", err)
				return
			}
			defer s.Close()
			if sid := s.ID(); sid != "" {
				errs.add(i, "session", fmt.Errorf("a stateless server issued session %q", sid))
			}
			tools, err := s.ListTools(ctx, nil)
			if err != nil {
				errs.add(i, "tools/list", err)
				return
			}
			if !slices.ContainsFunc(tools.Tools, func(tool *mcp.Tool) bool { return tool.Name == "progress" }) {
				errs.add(i, "tools/list", fmt.Errorf("%d tools, no progress", len(tools.Tools)))
			}
			check := func(name string, args map[string]any, want string) {
				got, err := callText(ctx, s, name, args)
				calls[rev].Add(1)
				if err != nil {
					errs.add(i, revisions[rev]+" "+name, err)
				} else if !strings.Contains(got, want) {
					errs.add(i, revisions[rev]+" "+name, fmt.Errorf("got %q, want %q in it", got, want))
				}
			}
			check("add", map[string]any{"a": i, "b": 1}, fmt.Sprint(i+1))
			check("echo", map[string]any{"text": fmt.Sprintf("hi %d", i)}, fmt.Sprintf("hi %d", i))
			check("progress", map[string]any{}, "done")
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	errs.requireNone(t)
	assert.Equal(t, int64(perRevision*3), calls[0].Load(), "2025-11-25 tool calls")
	assert.Equal(t, int64(perRevision*3), calls[1].Load(), "2026-07-28 tool calls")
	for i := range rs.rr.hits {
		assert.Greater(t, rs.rr.hits[i].Load(), int64(perRevision), "replica %d served its share", i)
	}
	t.Logf("%d clients per revision (%s, %s), %d tool calls, %d HTTP requests over 3 replicas (%s) in %v, 0 errors",
		perRevision, revisions[0], revisions[1], calls[0].Load()+calls[1].Load(), rs.rr.n.Load(), rs.hits(), elapsed.Round(time.Millisecond))
}

// TestReplicaKilled is the killed-replica check: three
// examples/everything processes sharing sessions on Redis behind the
// round-robin proxy; 30 Go SDK clients (2025-11-25, stateful) call tools in
// a loop, a third of them the slow tool (300 ms; its limit is 1 s), and one
// replica is killed with SIGKILL once 90 calls are done (then the test runs
// until 90 calls have started after the kill, plus a second). Every call
// that started after the kill (once the process was reaped) succeeds
// (the proxy's dial to the dead replica fails and it sends the request to
// the next one), every call that ended before it succeeded, and every call
// in flight during the kill either succeeds (it was on a live replica) or gets
// an error within 10 s: none hangs. Each call is bounded by 15 s, so a hang
// shows as a late error, not as a stuck test.
func TestReplicaKilled(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"stateful", nil},
		// Every answer is a resumable stream (a priming event first): a
		// call cut by the kill is resumed by the client with Last-Event-ID
		// on another replica, which follows the stream in Redis. The
		// killed replica's heartbeats stop, and the follower answers the
		// call with an error after 5 s (without heartbeats it followed the
		// stream until the client gave up: a hang).
		{"resumable", []string{"-resumable"}},
	} {
		for _, b := range redisBackends {
			t.Run(tt.name+"/"+b.name, func(t *testing.T) { testReplicaKilled(t, b.start(t), tt.flags...) })
		}
	}
}

func testReplicaKilled(t *testing.T, redisURL string, flags ...string) {
	rs := startReplicas(t, 3, append([]string{"-redis", redisURL}, flags...)...)
	const (
		clients  = 30
		victim   = 1
		callTime = 15 * time.Second
		deadline = 10 * time.Second
	)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	hc := replicaClient(t, 64)

	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		// MaxRetries 10: the client's GET stream, when it was on the
		// killed replica, reconnects through the proxy to another one.
		s, err := sdkClient(ctx, fmt.Sprintf("kill-%d", i), rs.endpoint(), hc, legacyProtocol, 10)
		require.NoError(t, err, "client %d", i)
		sessions[i] = s
		t.Cleanup(func() { _ = s.Close() })
	}

	type call struct {
		start, end time.Time
		slow       bool
		err        error
	}
	var (
		mu    sync.Mutex
		calls []call
		wg    sync.WaitGroup
		stop  = make(chan struct{})
	)
	for i, s := range sessions {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				c := call{start: time.Now(), slow: i%3 == 0}
				cctx, ccancel := context.WithTimeout(ctx, callTime)
				var got, want string
				if c.slow {
					got, c.err = callText(cctx, s, "slow", map[string]any{"ms": 300})
					want = "slept 300 ms"
				} else {
					got, c.err = callText(cctx, s, "add", map[string]any{"a": i, "b": n})
					want = fmt.Sprint(i + n)
				}
				ccancel()
				c.end = time.Now()
				if c.err == nil && !strings.Contains(got, want) {
					c.err = fmt.Errorf("got %q, want %q", got, want)
				}
				mu.Lock()
				calls = append(calls, c)
				mu.Unlock()
			}
		})
	}

	// Kill once every client has made a few calls, and stop once as many
	// calls have started after the kill and another second has passed
	// (for the resumed streams), each wait bounded: the counts, not the
	// machine's speed, decide.
	count := func(f func(c call) bool) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range calls {
			if f(c) {
				n++
			}
		}
		return n
	}
	waitFor := func(what string, d time.Duration, f func() bool) {
		for end := time.Now().Add(d); !f(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Errorf("%s: not within %v", what, d)
				return
			}
		}
	}
	waitFor("calls before the kill", 15*time.Second, func() bool { return count(func(call) bool { return true }) >= 3*clients })
	inflight := rs.rr.inflight[victim].Load()
	killStart := time.Now()
	rs.procs[victim].kill(t)
	killed := time.Now()
	waitFor("calls after the kill", 15*time.Second, func() bool {
		return count(func(c call) bool { return c.start.After(killed) }) >= 3*clients
	})
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	var before, after, straddled, straddledFailed, lateErrs int
	kinds := map[string]int{} // the errors of the calls cut by the kill
	var worst time.Duration
	var errs errorLog
	for i, c := range calls {
		switch {
		case c.end.Before(killStart):
			before++
			if c.err != nil {
				errs.add(i, "before the kill", c.err)
			}
		case c.start.After(killed):
			after++
			if c.err != nil {
				errs.add(i, "started after the kill", c.err)
			}
		default:
			straddled++
			if c.err != nil {
				straddledFailed++
				kinds[errorKind(c.err)]++
				if d := c.end.Sub(killStart); d > worst {
					worst = d
				}
				if c.end.Sub(killStart) > deadline {
					lateErrs++
					errs.add(i, fmt.Sprintf("in flight at the kill, error after %v", c.end.Sub(killStart)), c.err)
				}
			}
		}
	}
	t.Logf("%d calls: %d ended before the kill, %d started after it (all must succeed), %d in flight during it (%d POSTs on the victim at SIGKILL; reaped in %v), %d of those failed %v, the last %v after SIGKILL; %d dials failed over; requests per replica %s",
		len(calls), before, after, straddled, inflight, killed.Sub(killStart).Round(time.Millisecond), straddledFailed, kinds, worst.Round(time.Millisecond), rs.rr.failovers.Load(), rs.hits())
	errs.requireNone(t)
	assert.GreaterOrEqual(t, before+straddled, 3*clients, "calls before the kill")
	assert.GreaterOrEqual(t, after, 3*clients, "calls after the kill")
	assert.Positive(t, straddledFailed, "a call in flight on the killed replica failed")
	assert.Positive(t, rs.rr.failovers.Load(), "the proxy met the dead replica and sent on")
	assert.Zero(t, lateErrs)
}

// replicaClient is the HTTP client the replica tests' clients share,
// keeping up to idle connections per host (0: net/http's default); its
// idle connections close when the test ends.
func replicaClient(t *testing.T, idle int) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: idle}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
