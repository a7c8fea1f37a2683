package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// roundRobin is a reverse proxy that sends every request to the next
// replica: the worst case for sessions, since no two requests of a client
// in a row land on the same process.
type roundRobin struct {
	targets []*url.URL
	n       atomic.Int64
	hits    []atomic.Int64
	proxies []*httputil.ReverseProxy
}

func newRoundRobin(t *testing.T, endpoints ...string) *roundRobin {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	t.Cleanup(tr.CloseIdleConnections)
	rr := &roundRobin{hits: make([]atomic.Int64, len(endpoints))}
	for _, e := range endpoints {
		u, err := url.Parse(e)
		require.NoError(t, err)
		rr.targets = append(rr.targets, u)
		replica := strconv.Itoa(len(rr.proxies))
		rr.proxies = append(rr.proxies, &httputil.ReverseProxy{Transport: tr, FlushInterval: -1,
			Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) },
			ModifyResponse: func(r *http.Response) error {
				r.Header.Set("X-Replica", replica) // which replica answered, for the test
				return nil
			}})
	}
	return rr
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int((rr.n.Add(1) - 1) % int64(len(rr.targets)))
	rr.hits[i].Add(1)
	rr.proxies[i].ServeHTTP(w, r)
}

// TestReplicasShareSessionsOnRedis is issue 9's replica check (b): three
// examples/everything processes with -redis on one real redis-server,
// behind a round-robin proxy that sends every request to the next replica.
// 200 clients of the official Go SDK (2025-era revision, stateful
// sessions) connect, list tools, call add and echo, and set their log
// level (written back to the shared record), with no error; every replica
// served requests of sessions it did not make.
func TestReplicasShareSessionsOnRedis(t *testing.T) {
	redisURL := "redis://" + redistest.Start(t) + "/0"
	var endpoints []string
	for range 3 {
		endpoints = append(endpoints, httpServer(t, "-redis", redisURL))
	}
	rr := newRoundRobin(t, endpoints...)
	front := httptest.NewServer(rr)
	t.Cleanup(front.Close)

	const clients = 200
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}

	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   []string
		calls  atomic.Int64
		failed = func(i int, what string, err error) {
			mu.Lock()
			errs = append(errs, fmt.Sprintf("client %d: %s: %v", i, what, err))
			mu.Unlock()
		}
	)
	sem := make(chan struct{}, 50) // clients connected at once
	start := time.Now()
	for i := range clients {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("replica-client-%d", i), Version: "1"}, nil)
			// A 2025 client: stateful sessions are what must move between
			// replicas (a 2026-07-28 client keeps no session). The SDK would
			// otherwise negotiate 2026-07-28 through server/discover.
			s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL + "/mcp", HTTPClient: hc, MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				failed(i, "connect", err)
				return
			}
			defer s.Close()
			if s.InitializeResult().ProtocolVersion < "2025-03-26" {
				failed(i, "version", fmt.Errorf("negotiated %s", s.InitializeResult().ProtocolVersion))
			}
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
	require.Empty(t, errs, "%d errors; first: %v", len(errs), errs[:min(len(errs), 5)])
	assert.Equal(t, int64(clients*4), calls.Load())
	for i := range rr.hits {
		assert.Greater(t, rr.hits[i].Load(), int64(clients), "replica %d served its share", i)
	}
	t.Logf("%d clients, %d tool calls, %d HTTP requests over 3 replicas (%d/%d/%d) in %v, 0 errors",
		clients, calls.Load(), rr.n.Load(), rr.hits[0].Load(), rr.hits[1].Load(), rr.hits[2].Load(), elapsed.Round(time.Millisecond))
}

// TestStreamResumesOnAnotherReplica is the other half of issue 9's check
// (b): on three examples/everything replicas with -redis -resumable behind the
// round-robin proxy, a 2025-11-25 client calls the slow tool, drops its
// connection after the priming event, and resumes with GET and
// Last-Event-ID; the GET lands on another replica, which follows the
// stream from Redis and delivers the call's response.
func TestStreamResumesOnAnotherReplica(t *testing.T) {
	redisURL := "redis://" + redistest.Start(t) + "/0"
	var endpoints []string
	for range 3 {
		endpoints = append(endpoints, httpServer(t, "-redis", redisURL, "-resumable"))
	}
	front := httptest.NewServer(newRoundRobin(t, endpoints...))
	t.Cleanup(front.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
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
