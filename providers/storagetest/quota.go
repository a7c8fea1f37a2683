package storagetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/providers"
)

// ClientQuotaSize is the MaxClients a storage given to [RunClientQuota]
// must be configured with.
const ClientQuotaSize = 5

// TransactionQuotaSize is the MaxTransactions a storage given to
// [RunTransactionQuota] must be configured with.
const TransactionQuotaSize = 5

// RunClientQuota checks the client-registration quota of s, which must be
// configured with MaxClients = ClientQuotaSize (and be empty): it takes
// that many client registrations and refuses one more (with
// providers.ErrStorageFull) until one is deleted or expires; overwriting
// a counted client is allowed, and other records (transactions included)
// do not count. It waits about two seconds for an expiry.
func RunClientQuota(t *testing.T, s providers.TokenStorage) {
	t.Helper()
	runQuota(t, s, providers.ClientKeyPrefix, ClientQuotaSize, providers.TransactionKeyPrefix)
}

// RunTransactionQuota checks the quota of authorizations in progress of
// s, which must be configured with MaxTransactions = TransactionQuotaSize
// (and be empty), as RunClientQuota checks registrations: keys starting
// with providers.TransactionKeyPrefix are counted apart from client
// registrations and from every other record, and a transaction taken
// (the upstream callback takes it) frees its place.
func RunTransactionQuota(t *testing.T, s providers.TokenStorage) {
	t.Helper()
	runQuota(t, s, providers.TransactionKeyPrefix, TransactionQuotaSize, providers.ClientKeyPrefix)
	ctx := context.Background()
	key := func(i int) string { return fmt.Sprintf("%stake%d", providers.TransactionKeyPrefix, i) }
	// runQuota left the quota full.
	assert.ErrorIs(t, s.Put(ctx, key(0), []byte("t"), time.Hour), providers.ErrStorageFull)
	_, err := s.Take(ctx, providers.TransactionKeyPrefix+"2")
	require.NoError(t, err)
	require.NoError(t, s.Put(ctx, key(0), []byte("t"), time.Hour), "a taken transaction frees its place")
}

// runQuota checks the quota of the keys starting with prefix (size of
// them), and that keys starting with other, and keys of neither kind,
// have room of their own.
func runQuota(t *testing.T, s providers.TokenStorage, prefix string, size int, other string) {
	t.Helper()
	ctx := context.Background()
	key := func(i any) string { return fmt.Sprint(prefix, i) }
	for i := range size {
		require.NoError(t, s.Put(ctx, key(i), []byte("c"), time.Hour))
	}
	assert.ErrorIs(t, s.Put(ctx, key(size), []byte("c"), time.Hour), providers.ErrStorageFull)
	ok, err := s.PutIfAbsent(ctx, key(size), []byte("c"), time.Hour)
	assert.False(t, ok, "PutIfAbsent beyond the quota")
	assert.ErrorIs(t, err, providers.ErrStorageFull, "PutIfAbsent beyond the quota")
	require.NoError(t, s.Put(ctx, key(size-1), []byte("c2"), time.Hour), "overwriting a counted key is allowed")
	for i := range size {
		require.NoError(t, s.Put(ctx, fmt.Sprintf("rt:%d", i), []byte("r"), time.Hour), "other records have their own room")
		require.NoError(t, s.Put(ctx, fmt.Sprint(other, i), []byte("o"), time.Hour), "the other quota is apart")
	}
	require.NoError(t, s.Delete(ctx, key(0)))
	require.NoError(t, s.Put(ctx, key(size), []byte("c"), time.Hour), "a deleted key frees its place")
	// An expired key frees its place too.
	require.NoError(t, s.Delete(ctx, key(1)))
	// The short key lives a second: long enough to still count at the next
	// Put on a loaded machine (20 ms did not always), short enough to wait for.
	require.NoError(t, s.Put(ctx, key("short"), []byte("c"), time.Second))
	assert.ErrorIs(t, s.Put(ctx, key(size+1), []byte("c"), time.Hour), providers.ErrStorageFull)
	time.Sleep(2100 * time.Millisecond)
	require.NoError(t, s.Put(ctx, key(size+1), []byte("c"), time.Hour), "an expired key frees its place")
}
