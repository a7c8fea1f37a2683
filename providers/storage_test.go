package providers_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

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

// Client registrations have their own quota: a flood of them fills it,
// never the room of the other records.
func TestStorageClientQuota(t *testing.T) {
	t.Parallel()
	ms := providers.NewMemoryStorage(&providers.MemoryStorageOptions{MaxClients: storagetest.ClientQuotaSize, MaxEntries: 5})
	defer ms.Close()
	storagetest.RunClientQuota(t, ms)
}

// Authorizations in progress have their own quota too.
func TestStorageTransactionQuota(t *testing.T) {
	t.Parallel()
	ms := providers.NewMemoryStorage(&providers.MemoryStorageOptions{MaxTransactions: storagetest.TransactionQuotaSize, MaxEntries: 5})
	defer ms.Close()
	storagetest.RunTransactionQuota(t, ms)
}
