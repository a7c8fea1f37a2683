package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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
		rr.proxies = append(rr.proxies, &httputil.ReverseProxy{Transport: tr, FlushInterval: -1,
			Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) }})
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
			s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
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
