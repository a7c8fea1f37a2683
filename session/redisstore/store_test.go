package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/mcpchain/mcp/session/storetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRedisStoreContract(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	n := 0
	storetest.Run(t, func(*testing.T) session.Store {
		n++
		return redisstore.New(c, &redisstore.Options{Prefix: "t" + string(rune('a'+n)) + ":"})
	}, 100*time.Millisecond)
}

// TestRedisStoreReportsOutage: a store that cannot reach Redis returns an
// error, never ErrNotFound (which would end the session).
func TestRedisStoreReportsOutage(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	s := redisstore.New(c, nil)
	_, err := s.Get(context.Background(), "abc")
	require.Error(t, err)
	assert.NotErrorIs(t, err, session.ErrNotFound)
	_, err = s.Touch(context.Background(), "abc", time.Minute)
	assert.NotErrorIs(t, err, session.ErrNotFound)
	assert.Error(t, err)
}

func TestRedisEventStoreContract(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	n := 0
	storetest.RunEvents(t, func(*testing.T) session.EventStore {
		n++
		return redisstore.NewEventStore(c, "ev"+string(rune('a'+n))+":", time.Minute)
	})
}

func TestRedisTaskStoreContract(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	n := 0
	storetest.RunTasks(t, func(*testing.T) session.TaskStore {
		n++
		return redisstore.New(c, &redisstore.Options{Prefix: "tt" + string(rune('a'+n)) + ":"})
	}, 100*time.Millisecond)
}
