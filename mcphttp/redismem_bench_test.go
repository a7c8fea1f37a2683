package mcphttp_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session/redisstore"
)

// BenchmarkRedisSessionMemory is what an idle session costs on Redis: n
// sessions opened through the handler on redisstore.New, then
// MEMORY USAGE of each session key (the record as Redis holds it) and
// the growth of used_memory (the same plus the keyspace's own tables and
// the TTLs), each per session. docs/deploy.md projects them to millions
// of sessions.
func BenchmarkRedisSessionMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(b)})
			b.Cleanup(func() { _ = c.Close() })
			var keyBytes, usedBytes float64
			for range b.N {
				require.NoError(b, c.FlushAll(ctx).Err())
				before := redistest.UsedMemory(b, c)
				srv := mcp.NewServer(mcp.Options{Name: "mem", Version: "1.0.0", Logger: discardLogger()})
				h := mcphttp.New(srv, &mcphttp.Options{MaxSessions: -1, Sessions: redisstore.New(c, nil)})
				ids := openIdleSessions(b, h, n)
				used := redistest.UsedMemory(b, c) - before
				var sum int64
				for _, id := range ids {
					v, err := c.MemoryUsage(ctx, "mcp:sess:{"+id+"}").Result()
					require.NoError(b, err)
					sum += v
				}
				require.NoError(b, h.Close())
				keyBytes, usedBytes = float64(sum)/float64(n), float64(used)/float64(n)
			}
			b.ReportMetric(keyBytes, "B/key")
			b.ReportMetric(usedBytes, "B/session")
		})
	}
}
