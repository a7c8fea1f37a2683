package redisstore_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
)

// The events of one resumable tools/call stream as the engine writes
// them: the priming event, a progress notification, the result.
var streamEvents = []session.Event{
	{N: 0},
	{N: 1, Data: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":1,"total":2,"message":"half way"}}`)},
	{N: 2, Final: true, Data: []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"the answer of the tool, a short sentence"}],"isError":false}}`)},
}

// BenchmarkRedisStreamMemory is what a resumable request stream costs on
// Redis: n streams of streamEvents appended through the event store, then
// MEMORY USAGE of each stream key and the growth of used_memory, per
// stream. docs/deploy.md projects them.
func BenchmarkRedisStreamMemory(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: redistest.Start(b)})
	b.Cleanup(func() { _ = c.Close() })
	var keyBytes, usedBytes float64
	for range b.N {
		require.NoError(b, c.FlushAll(ctx).Err())
		before := redistest.UsedMemory(b, c)
		es := redisstore.NewEventStore(c, "", 10*time.Minute)
		sids := make([]string, n)
		for i := range sids {
			sids[i] = session.NewID()
			for _, ev := range streamEvents {
				require.NoError(b, es.Append(ctx, sids[i], "s1", ev))
			}
		}
		used := redistest.UsedMemory(b, c) - before
		var sum int64
		for _, sid := range sids {
			v, err := c.MemoryUsage(ctx, "mcp:ev:{"+sid+"}:s1").Result()
			require.NoError(b, err)
			sum += v
		}
		keyBytes, usedBytes = float64(sum)/n, float64(used)/n
	}
	b.ReportMetric(keyBytes, "B/key")
	b.ReportMetric(usedBytes, "B/stream")
}

// BenchmarkRedisTaskMemory is what a finished task costs on Redis: n
// completed tasks with a short result, then MEMORY USAGE of each task key
// and the growth of used_memory, per task.
func BenchmarkRedisTaskMemory(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: redistest.Start(b)})
	b.Cleanup(func() { _ = c.Close() })
	result := json.RawMessage(`{"content":[{"type":"text","text":"the answer of the tool, a short sentence"}],"isError":false}`)
	var keyBytes, usedBytes float64
	for range b.N {
		require.NoError(b, c.FlushAll(ctx).Err())
		before := redistest.UsedMemory(b, c)
		s := redisstore.New(c, nil)
		ids := make([]string, n)
		now := time.Now()
		for i := range ids {
			ids[i] = session.NewID()
			require.NoError(b, s.CreateTask(ctx, &session.Task{ID: ids[i], Status: session.TaskCompleted,
				Identity: "sub:user-" + strconv.Itoa(i), Created: now, Updated: now, TTL: time.Hour,
				PollInterval: 500 * time.Millisecond, Result: result}))
		}
		used := redistest.UsedMemory(b, c) - before
		var sum int64
		for _, id := range ids {
			v, err := c.MemoryUsage(ctx, "mcp:sess:task:{"+id+"}").Result()
			require.NoError(b, err)
			sum += v
		}
		keyBytes, usedBytes = float64(sum)/n, float64(used)/n
	}
	b.ReportMetric(keyBytes, "B/key")
	b.ReportMetric(usedBytes, "B/task")
}
