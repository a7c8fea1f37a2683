package mcphttp_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session/redisstore"
)

// roundTrips counts what a Redis client sends: one round trip per command
// or pipeline (a MULTI/EXEC transaction is one pipeline).
type roundTrips struct {
	mu    sync.Mutex
	trips []string
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(cmd.Name())
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.Name()
		}
		h.add(strings.Join(names, "+"))
		return next(ctx, cmds)
	}
}

func (h *roundTrips) add(s string) { h.mu.Lock(); h.trips = append(h.trips, s); h.mu.Unlock() }

func (h *roundTrips) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.trips
	h.trips = nil
	return t
}

// TestRedisRoundTrips records the Redis round trips of each step of a
// session whose record is in Redis (redisstore), the figure the
// Redis-backed path's cost comes from: a stateful tools/call is one
// (GETEX: read the record and renew its expiry), and the churn operation
// of the benchmarks (initialize, notifications/initialized, tools/call,
// DELETE) is eight. A change that adds a round trip to a step fails here
// and must say why; one that removes some updates the figures (and
// BENCHMARKS.md).
func TestRedisRoundTrips(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Ping(context.Background()).Err()) // the connection's handshake is not a step's
	h := &roundTrips{}
	c.AddHook(h)
	e := newEngine(t, newBenchServer(t, 0), &mcphttp.Options{Sessions: redisstore.New(c, nil)})

	del, err := http.NewRequest(http.MethodDelete, "/mcp", nil)
	require.NoError(t, err)
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"initialize", func() {
			e.r.Header.Del("Mcp-Session-Id")
			e.r.Header.Del("MCP-Protocol-Version")
			e.post(benchInit)
			require.Equal(t, http.StatusOK, e.w.status, e.w.body.String())
			e.sid = e.w.Header().Get("Mcp-Session-Id")
			e.r.Header.Set("Mcp-Session-Id", e.sid)
			e.r.Header.Set("MCP-Protocol-Version", benchVersion)
		}, []string{"set"}},
		{"notifications/initialized", func() {
			e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			require.Equal(t, http.StatusAccepted, e.w.status, e.w.body.String())
		}, []string{"getex", "watch", "get", "multi+set+exec"}},
		{"tools/call", func() { e.postOK(benchCall, `"text":"3"`) }, []string{"getex"}},
		{"tools/call again", func() { e.postOK(benchCall, `"text":"3"`) }, []string{"getex"}},
		{"DELETE", func() {
			del.Header.Set("Mcp-Session-Id", e.sid)
			e.w.reset()
			e.h.ServeHTTP(e.w, del)
			require.Less(t, e.w.status, 300, e.w.body.String())
		}, []string{"getex", "del"}},
	}
	total := 0
	for _, s := range steps {
		h.take()
		s.do()
		got := h.take()
		t.Logf("%-26s %d round trips: %v", s.name, len(got), got)
		require.Equal(t, s.want, got, "the Redis round trips of %s", s.name)
		if s.name != "tools/call again" {
			total += len(got)
		}
	}
	require.Equal(t, 8, total, "round trips of one churn operation")
}
