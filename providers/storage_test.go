package providers_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/redistest"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/providers/storagetest"
)

func TestMemoryStorageContract(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(*testing.T) providers.TokenStorage {
		return providers.NewMemoryStorage(&providers.MemoryStorageOptions{CleanupInterval: 5 * time.Millisecond})
	}, 2*time.Millisecond)
}

func TestMemoryStorageCleanupAndCap(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Unix(1000, 0).UnixNano())
	s := providers.NewMemoryStorage(&providers.MemoryStorageOptions{
		MaxEntries: 2, CleanupInterval: time.Hour,
		Now: func() time.Time { return time.Unix(0, now.Load()) },
	})
	defer s.Close()
	ctx := context.Background()
	require.NoError(t, s.Put(ctx, "a", []byte("1"), time.Second))
	require.NoError(t, s.Put(ctx, "b", []byte("2"), 0))
	require.ErrorIs(t, s.Put(ctx, "c", []byte("3"), 0), providers.ErrStorageFull)
	require.NoError(t, s.Put(ctx, "a", []byte("1b"), time.Second), "overwriting an existing key is allowed when full")

	now.Add(int64(2 * time.Second))
	_, err := s.Get(ctx, "a")
	require.ErrorIs(t, err, providers.ErrNotFound)
	require.Equal(t, 2, s.Len(), "expired entries stay until cleanup")
	s.Cleanup()
	require.Equal(t, 1, s.Len())
	require.NoError(t, s.Put(ctx, "c", []byte("3"), 0), "cleanup frees room")
}

func TestMemoryStorageCloseStopsJanitor(t *testing.T) {
	t.Parallel()
	s := providers.NewMemoryStorage(&providers.MemoryStorageOptions{CleanupInterval: time.Millisecond})
	time.Sleep(5 * time.Millisecond)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	// goleak in TestMain fails the package if the janitor outlived Close.
}

func TestRedisStorageContract(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	var db atomic.Int32
	storagetest.Run(t, func(t *testing.T) providers.TokenStorage {
		// Each subtest gets its own key prefix on the shared server.
		n := db.Add(1)
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = c.Close() })
		return providers.NewRedisStorage(c, fmt.Sprintf("test%d:", n))
	}, 5*time.Millisecond)
}

func TestOpenRedisStorage(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	ctx := context.Background()
	s, err := providers.OpenRedisStorage(ctx, "redis://"+addr+"/0")
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, "k", []byte("v"), time.Minute))
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	v, err := c.Get(ctx, "mcp:oauth:k").Result()
	require.NoError(t, err)
	assert.Equal(t, "v", v, "keys carry the default prefix")
	ttl, err := c.PTTL(ctx, "mcp:oauth:k").Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 50*time.Second)
	require.NoError(t, s.Close())

	_, err = providers.OpenRedisStorage(ctx, "not a url")
	assert.ErrorContains(t, err, "bad Redis URL")
	_, err = providers.OpenRedisStorage(ctx, "redis://127.0.0.1:1/0")
	assert.ErrorContains(t, err, "does not answer")
}

// startRedis runs a throwaway redis-server for the test (internal/redistest).
func startRedis(t *testing.T) string { return redistest.Start(t) }

// checkClientQuota: s, whose MaxClients is 5, takes five client
// registrations and refuses a sixth until one is deleted or expires, and
// other records do not count.
func checkClientQuota(t *testing.T, s providers.TokenStorage) {
	ctx := context.Background()
	for i := range 5 {
		require.NoError(t, s.Put(ctx, fmt.Sprintf("client:%d", i), []byte("c"), time.Hour))
	}
	assert.ErrorIs(t, s.Put(ctx, "client:5", []byte("c"), time.Hour), providers.ErrStorageFull)
	require.NoError(t, s.Put(ctx, "client:4", []byte("c2"), time.Hour), "overwriting a counted client is allowed")
	for i := range 5 {
		require.NoError(t, s.Put(ctx, fmt.Sprintf("rt:%d", i), []byte("r"), time.Hour), "other records have their own room")
	}
	require.NoError(t, s.Delete(ctx, "client:0"))
	require.NoError(t, s.Put(ctx, "client:5", []byte("c"), time.Hour), "a deleted client frees its place")
	// An expired client frees its place too.
	require.NoError(t, s.Delete(ctx, "client:1"))
	require.NoError(t, s.Put(ctx, "client:short", []byte("c"), 20*time.Millisecond))
	assert.ErrorIs(t, s.Put(ctx, "client:6", []byte("c"), time.Hour), providers.ErrStorageFull)
	time.Sleep(1100 * time.Millisecond)
	require.NoError(t, s.Put(ctx, "client:6", []byte("c"), time.Hour), "an expired client frees its place")
}

// Client registrations have their own quota: a flood of them fills it,
// never the room of the other records (issue 21, hole 1).
func TestStorageClientQuota(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	rc := redis.NewClient(&redis.Options{Addr: addr})
	defer rc.Close()
	rs := providers.NewRedisStorage(rc, "quota:")
	rs.MaxClients = 5
	ms := providers.NewMemoryStorage(&providers.MemoryStorageOptions{MaxClients: 5, MaxEntries: 5})
	defer ms.Close()
	for name, s := range map[string]providers.TokenStorage{"memory": ms, "redis": rs} {
		t.Run(name, func(t *testing.T) { checkClientQuota(t, s) })
	}
}

// TestRedisClusterStorage runs the token-storage contract suite and the
// client quota on a Redis Cluster of three masters, every command through
// redistest.SlotCheck: each keeps its keys in one slot, and the Lua
// scripts (Swap, the quota's admission) ran and were checked.
func TestRedisClusterStorage(t *testing.T) {
	t.Parallel()
	addrs := redistest.StartCluster(t)
	c, check := redistest.NewClusterClient(t, addrs)
	t.Run("suites", func(t *testing.T) {
		t.Run("Contract", func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			storagetest.Run(t, func(t *testing.T) providers.TokenStorage {
				return providers.NewRedisStorage(c, fmt.Sprintf("ctest%d:", n.Add(1)))
			}, 5*time.Millisecond)
		})
		t.Run("Open", func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, err := providers.OpenRedisStorage(ctx, strings.Join(addrs, ","))
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close()) }()
			for i := range 20 {
				require.NoError(t, s.Put(ctx, fmt.Sprintf("open%d", i), []byte{byte(i)}, time.Minute))
			}
			v, err := c.Get(ctx, "mcp:oauth:open13").Bytes()
			require.NoError(t, err)
			assert.Equal(t, []byte{13}, v, "keys carry the default prefix, wherever their slot is")
		})
		t.Run("ClientQuota", func(t *testing.T) {
			t.Parallel()
			s := providers.NewRedisStorage(c, "cquota:")
			s.MaxClients = 5
			checkClientQuota(t, s)
		})
	})
	t.Logf("slot-checked: %d scripts", check.Checked(redistest.KindScript))
	assert.Positive(t, check.Checked(redistest.KindScript), "scripts checked")
}
