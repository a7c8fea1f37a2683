package redisstorage_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/providers/redisstorage"
	"github.com/mcpchain/mcp/providers/storagetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestStorageContract(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	var db atomic.Int32
	storagetest.Run(t, func(t *testing.T) providers.TokenStorage {
		// Each subtest gets its own key prefix on the shared server.
		n := db.Add(1)
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = c.Close() })
		return redisstorage.New(c, fmt.Sprintf("test%d:", n))
	}, 5*time.Millisecond)
}

func TestOpen(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	ctx := context.Background()
	s, err := redisstorage.Open(ctx, "redis://"+addr+"/0")
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

	_, err = redisstorage.Open(ctx, "not a url")
	assert.ErrorContains(t, err, "bad Redis URL")
	_, err = redisstorage.Open(ctx, "redis://127.0.0.1:1/0")
	assert.ErrorContains(t, err, "does not answer")
}

// TestClusterStorage runs the token-storage contract suite and the
// client quota on a Redis Cluster of three masters, every command through
// redistest.SlotCheck: each keeps its keys in one slot, and the Lua
// scripts (Swap, the quota's admission) ran and were checked.
func TestClusterStorage(t *testing.T) {
	t.Parallel()
	addrs := redistest.StartCluster(t)
	c, check := redistest.NewClusterClient(t, addrs)
	t.Run("suites", func(t *testing.T) {
		t.Run("Contract", func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			storagetest.Run(t, func(t *testing.T) providers.TokenStorage {
				return redisstorage.New(c, fmt.Sprintf("ctest%d:", n.Add(1)))
			}, 5*time.Millisecond)
		})
		t.Run("Open", func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, err := redisstorage.Open(ctx, strings.Join(addrs, ","))
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
			s := redisstorage.New(c, "cquota:")
			s.MaxClients = storagetest.ClientQuotaSize
			storagetest.RunClientQuota(t, s)
		})
		t.Run("TransactionQuota", func(t *testing.T) {
			t.Parallel()
			s := redisstorage.New(c, "tquota:")
			s.MaxTransactions = storagetest.TransactionQuotaSize
			storagetest.RunTransactionQuota(t, s)
		})
	})
	t.Logf("slot-checked: %d scripts", check.Checked(redistest.KindScript))
	assert.Positive(t, check.Checked(redistest.KindScript), "scripts checked")
}

// Client registrations have their own quota: a flood of them fills it,
// never the room of the other records.
func TestClientQuota(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: addr})
	defer rc.Close()
	s := redisstorage.New(rc, "quota:")
	s.MaxClients = storagetest.ClientQuotaSize
	storagetest.RunClientQuota(t, s)
}

// Authorizations in progress have a quota of their own too: a flood of anonymous authorization starts fills it, never the
// memory of logins.
func TestTransactionQuota(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: addr})
	defer rc.Close()
	s := redisstorage.New(rc, "tquota:")
	s.MaxTransactions = storagetest.TransactionQuotaSize
	storagetest.RunTransactionQuota(t, s)
}
