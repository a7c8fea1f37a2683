package mcphttp_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

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
// Redis-backed path's cost comes from. Without the store's cache a
// stateful tools/call is one (GETEX: read the record and renew its
// expiry), and the churn operation of the benchmarks (initialize,
// notifications/initialized, tools/call, DELETE) is eight. With the cache
// (redisstore.Options.Cache) a call within the lease is none, and the
// churn operation three: the record written by initialize is the cached
// copy, and an update is one compare-and-set script. A change that adds a
// round trip to a step fails here and must say why; one that removes some
// updates the figures (and BENCHMARKS.md).
func TestRedisRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cache *redisstore.CacheOptions
		steps [5][]string
		total int
	}{
		{"no cache", nil, [5][]string{
			{"set"},
			{"getex", "watch", "get", "multi+set+publish+exec"},
			{"getex"},
			{"getex"},
			{"getex", "evalsha"},
		}, 8},
		{"cache", &redisstore.CacheOptions{MaxStale: time.Minute}, [5][]string{
			{"set"},
			{"evalsha"},
			nil,
			nil,
			{"evalsha"},
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			require.NoError(t, c.Ping(context.Background()).Err()) // the connection's handshake is not a step's
			store := redisstore.New(c, &redisstore.Options{Cache: tc.cache})
			t.Cleanup(func() { require.NoError(t, store.Close()) })
			// The scripts are loaded once per Redis, not per step.
			require.NoError(t, c.ScriptFlush(context.Background()).Err())
			h := &roundTrips{}
			c.AddHook(h)
			e := newEngine(t, newBenchServer(t, 0), &mcphttp.Options{Sessions: store})
			// Warm up: the scripts get loaded (EVALSHA's first NOSCRIPT
			// and EVAL are not a step's cost), and the cache serves once
			// its subscription is confirmed, which New does not wait for.
			require.Eventually(t, func() bool {
				trips := countTrips(t, e, h)
				return tc.cache == nil || len(trips[2]) == 0
			}, 5*time.Second, 10*time.Millisecond)
			n := 0
			for i, got := range countTrips(t, e, h) {
				t.Logf("%-26s %d round trips: %v", stepNames[i], len(got), got)
				require.Equal(t, tc.steps[i], got, "the Redis round trips of %s", stepNames[i])
				if i != 3 { // the second call is not part of the operation
					n += len(got)
				}
			}
			require.Equal(t, tc.total, n, "round trips of one churn operation")
		})
	}
}

// stepNames name the steps of countTrips.
var stepNames = [5]string{"initialize", "notifications/initialized", "tools/call", "tools/call again", "DELETE"}

// countTrips runs the steps of one churn operation, and a second call,
// and returns the round trips of each step.
func countTrips(t *testing.T, e *engine, h *roundTrips) (trips [5][]string) {
	t.Helper()
	del, err := http.NewRequest(http.MethodDelete, "/mcp", nil)
	require.NoError(t, err)
	steps := [5]func(){
		func() {
			e.r.Header.Del("Mcp-Session-Id")
			e.r.Header.Del("MCP-Protocol-Version")
			e.post(benchInit)
			require.Equal(t, http.StatusOK, e.w.status, e.w.body.String())
			e.sid = e.w.Header().Get("Mcp-Session-Id")
			e.r.Header.Set("Mcp-Session-Id", e.sid)
			e.r.Header.Set("MCP-Protocol-Version", benchVersion)
		},
		func() {
			e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			require.Equal(t, http.StatusAccepted, e.w.status, e.w.body.String())
		},
		func() { e.postOK(benchCall, `"text":"3"`) },
		func() { e.postOK(benchCall, `"text":"3"`) },
		func() {
			del.Header.Set("Mcp-Session-Id", e.sid)
			e.w.reset()
			e.h.ServeHTTP(e.w, del)
			require.Less(t, e.w.status, 300, e.w.body.String())
		},
	}
	for i, do := range steps {
		h.take()
		do()
		trips[i] = h.take()
	}
	return trips
}
