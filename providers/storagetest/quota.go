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

// RunClientQuota checks the client-registration quota of s, which must be
// configured with MaxClients = ClientQuotaSize (and be empty): it takes
// that many client registrations and refuses one more (with
// providers.ErrStorageFull) until one is deleted or expires; overwriting
// a counted client is allowed, and other records do not count. It waits
// a little over a second for an expiry.
func RunClientQuota(t *testing.T, s providers.TokenStorage) {
	t.Helper()
	ctx := context.Background()
	for i := range ClientQuotaSize {
		require.NoError(t, s.Put(ctx, fmt.Sprintf("client:%d", i), []byte("c"), time.Hour))
	}
	assert.ErrorIs(t, s.Put(ctx, "client:5", []byte("c"), time.Hour), providers.ErrStorageFull)
	require.NoError(t, s.Put(ctx, "client:4", []byte("c2"), time.Hour), "overwriting a counted client is allowed")
	for i := range ClientQuotaSize {
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
