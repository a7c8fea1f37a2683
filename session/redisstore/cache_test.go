package redisstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/mcpchain/mcp/session/storetest"
)

// newCached returns a store with a cache on c, closed when t ends, once
// its cache serves (its subscription is confirmed).
func newCached(t *testing.T, c redis.UniversalClient, o *redisstore.Options) *redisstore.Store {
	t.Helper()
	var opts redisstore.Options
	if o != nil {
		opts = *o
	}
	if opts.Cache == nil {
		opts.Cache = &redisstore.CacheOptions{}
	}
	s := redisstore.New(c, &opts)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	require.Eventually(t, s.CacheLive, 5*time.Second, 5*time.Millisecond, "the cache subscribed")
	return s
}

func newRecord() *session.Record {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &session.Record{ID: session.NewID(), ProtocolVersion: "2025-11-25",
		Client: mcp.Implementation{Name: "c", Version: "1"}, Created: now, LastSeen: now}
}

// TestCachedStoreContract: the store with a cache keeps the session.Store
// contract (on a cluster too: TestRedisClusterContracts).
func TestCachedStoreContract(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = c.Close() })
	n := 0
	storetest.Run(t, func(t *testing.T) session.Store {
		n++
		return newCached(t, c, &redisstore.Options{Prefix: "k" + string(rune('a'+n)) + ":"})
	}, 100*time.Millisecond)
}

// TestCacheSeesOtherReplicas: two replicas' stores on one Redis, each with
// a cache. A change or a deletion made through one is seen by the other
// at once (the invalidation message), and the other's copy is not served
// after it; a change made behind the stores' backs (no message) is seen
// within the lease.
func TestCacheSeesOtherReplicas(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	ca := redis.NewClient(&redis.Options{Addr: addr})
	cb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = ca.Close(); _ = cb.Close() })
	lease := 300 * time.Millisecond
	a := newCached(t, ca, &redisstore.Options{Cache: &redisstore.CacheOptions{MaxStale: lease}})
	b := newCached(t, cb, &redisstore.Options{Cache: &redisstore.CacheOptions{MaxStale: lease}})
	ctx := context.Background()
	ttl := time.Minute

	// seen polls b until want holds, and returns how long it took.
	seen := func(id string, want func(*session.Record, error) bool) time.Duration {
		t.Helper()
		start := time.Now()
		for time.Since(start) < 5*time.Second {
			rec, err := b.Touch(ctx, id, ttl)
			if want(rec, err) {
				return time.Since(start)
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("b never saw the change of session %s", id)
		return 0
	}

	rec := newRecord()
	require.NoError(t, a.Create(ctx, rec, ttl))
	_, err := b.Touch(ctx, rec.ID, ttl)
	require.NoError(t, err)
	require.Equal(t, 1, b.CachedLen(), "b keeps a copy")

	require.NoError(t, a.Update(ctx, rec.ID, ttl, func(r *session.Record) error { r.LogLevel = mcp.LevelError; return nil }))
	d := seen(rec.ID, func(r *session.Record, err error) bool { return err == nil && r.LogLevel == mcp.LevelError })
	t.Logf("an update on a was seen on b after %v", d)
	assert.Less(t, d, lease, "the update was seen through the message, before the lease ran out")

	require.NoError(t, a.Delete(ctx, rec.ID))
	d = seen(rec.ID, func(_ *session.Record, err error) bool { return err != nil })
	_, err = b.Touch(ctx, rec.ID, ttl)
	assert.ErrorIs(t, err, session.ErrNotFound)
	t.Logf("a deletion on a was seen on b after %v", d)
	assert.Less(t, d, lease, "the deletion was seen through the message")

	// A writer that publishes nothing: b's copy goes stale, and b sees
	// the change once the lease has run out.
	rec = newRecord()
	require.NoError(t, a.Create(ctx, rec, ttl))
	_, err = b.Touch(ctx, rec.ID, ttl)
	require.NoError(t, err)
	changed := rec.Clone()
	changed.LogLevel = mcp.LevelDebug
	raw := []byte(`{"id":"` + rec.ID + `","protocolVersion":"2025-11-25","client":{"name":"c","version":"1"},"capabilities":{},"logLevel":"debug","created":"2026-01-01T00:00:00Z","lastSeen":"2026-01-01T00:00:00Z"}`)
	require.NoError(t, ca.Set(ctx, "mcp:sess:{"+rec.ID+"}", raw, ttl).Err())
	d = seen(rec.ID, func(r *session.Record, err error) bool { return err == nil && r.LogLevel == mcp.LevelDebug })
	t.Logf("a change without a message was seen on b after %v", d)
	assert.LessOrEqual(t, d, lease+100*time.Millisecond, "within the lease")

	// An update through b, whose copy is stale against a's write, is
	// not lost: the compare-and-set sees the current record.
	rec = newRecord()
	require.NoError(t, a.Create(ctx, rec, ttl))
	_, err = b.Touch(ctx, rec.ID, ttl)
	require.NoError(t, err)
	require.NoError(t, ca.Set(ctx, "mcp:sess:{"+rec.ID+"}", []byte(`{"id":"`+rec.ID+`","subscriptions":["a://1"]}`), ttl).Err())
	require.NoError(t, b.Update(ctx, rec.ID, ttl, func(r *session.Record) error {
		r.Subscriptions = append(r.Subscriptions, "b://2")
		return nil
	}))
	got, err := a.Get(ctx, rec.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"a://1", "b://2"}, got.Subscriptions)
}

// TestCacheConcurrentReplicas: writers on two replicas racing on one
// session lose no update, and each replica then reads the final record.
func TestCacheConcurrentReplicas(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	ca := redis.NewClient(&redis.Options{Addr: addr})
	cb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = ca.Close(); _ = cb.Close() })
	stores := []*redisstore.Store{newCached(t, ca, nil), newCached(t, cb, nil)}
	ctx := context.Background()
	rec := newRecord()
	require.NoError(t, stores[0].Create(ctx, rec, time.Minute))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			s := stores[i%2]
			_, err := s.Touch(ctx, rec.ID, time.Minute)
			assert.NoError(t, err)
			assert.NoError(t, s.Update(ctx, rec.ID, time.Minute, func(r *session.Record) error {
				r.Subscriptions = append(r.Subscriptions, string(rune('a'+i)))
				return nil
			}))
		})
	}
	wg.Wait()
	for i, s := range stores {
		require.Eventually(t, func() bool {
			got, err := s.Touch(ctx, rec.ID, time.Minute)
			return err == nil && len(got.Subscriptions) == 16
		}, 2*time.Second, 5*time.Millisecond, "replica %d reads every writer's change", i)
	}
}

// TestCacheBounded: the cache keeps at most MaxEntries copies, and none
// of a deleted session.
func TestCacheBounded(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = c.Close() })
	s := newCached(t, c, &redisstore.Options{Cache: &redisstore.CacheOptions{MaxEntries: 10}})
	ctx := context.Background()
	var ids []string
	for range 100 {
		rec := newRecord()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		ids = append(ids, rec.ID)
		require.LessOrEqual(t, s.CachedLen(), 10)
	}
	for _, id := range ids {
		_, err := s.Touch(ctx, id, time.Minute)
		require.NoError(t, err, "an evicted copy is read again from Redis")
		require.LessOrEqual(t, s.CachedLen(), 10)
	}
	for _, id := range ids {
		require.NoError(t, s.Delete(ctx, id))
	}
	assert.Zero(t, s.CachedLen(), "deleted sessions leave no copy")
}

// TestCacheOutage: when Redis dies the cache stops serving copies, so a
// request gets the store's error (not a record Redis may have lost, and
// not ErrNotFound, which would end the session); when Redis is back the
// cache subscribes again and serves.
func TestCacheOutage(t *testing.T) {
	t.Parallel()
	srv := redistest.StartServer(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	lease := 500 * time.Millisecond
	s := newCached(t, c, &redisstore.Options{Cache: &redisstore.CacheOptions{MaxStale: lease}})
	ctx := context.Background()
	rec := newRecord()
	require.NoError(t, s.Create(ctx, rec, time.Minute))
	_, err := s.Touch(ctx, rec.ID, time.Minute)
	require.NoError(t, err)

	srv.Stop()
	start := time.Now()
	require.Eventually(t, func() bool { return !s.CacheLive() }, 2*time.Second, time.Millisecond,
		"the cache noticed its subscription broke")
	t.Logf("the cache stopped serving copies %v after Redis died", time.Since(start))
	_, err = s.Touch(ctx, rec.ID, time.Minute)
	require.Error(t, err, "no copy is served while Redis is away")
	assert.NotErrorIs(t, err, session.ErrNotFound)

	srv.Start()
	require.Eventually(t, s.CacheLive, 5*time.Second, 10*time.Millisecond, "the cache subscribed again")
	got, err := s.Touch(ctx, rec.ID, time.Minute)
	require.NoError(t, err, "the session Redis kept is served again")
	assert.Equal(t, rec.ID, got.ID)
}
