package redisreplay_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/resourceserver/redisreplay"
)

// TestRemember: an id is new once, then seen until its ttl runs out; the
// prefix keeps caches apart; of many concurrent calls with one id
// exactly one reports it new.
func TestRemember(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	c := redisreplay.New(rdb, "")

	fresh, err := c.Remember(ctx, "a", time.Minute)
	require.NoError(t, err)
	assert.True(t, fresh)
	fresh, err = c.Remember(ctx, "a", time.Minute)
	require.NoError(t, err)
	assert.False(t, fresh, "seen")
	ttl, err := rdb.PTTL(ctx, "mcp:dpop:a").Result()
	require.NoError(t, err)
	assert.InDelta(t, time.Minute.Seconds(), ttl.Seconds(), 2, "the key expires with the proof")

	fresh, err = redisreplay.New(rdb, "other:").Remember(ctx, "a", time.Minute)
	require.NoError(t, err)
	assert.True(t, fresh, "another prefix, another cache")

	_, err = c.Remember(ctx, "short", 50*time.Millisecond)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		fresh, err := c.Remember(ctx, "short", time.Minute)
		return err == nil && fresh
	}, 5*time.Second, 20*time.Millisecond, "an id is forgotten when its ttl ran out")

	_, err = c.Remember(ctx, "", time.Minute)
	require.Error(t, err)

	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			fresh, err := redisreplay.New(rdb, "").Remember(ctx, "race", time.Minute)
			assert.NoError(t, err, fmt.Sprint(i))
			if fresh {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load(), "one winner")
}

// TestRedisDown: an unreachable Redis is an error, never "new".
func TestRedisDown(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = rdb.Close() })
	fresh, err := redisreplay.New(rdb, "").Remember(context.Background(), "a", time.Minute)
	require.Error(t, err)
	assert.False(t, fresh)
}
