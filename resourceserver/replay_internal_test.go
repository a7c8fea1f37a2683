package resourceserver

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMemoryReplayKeyQuota: a key's share of the in-memory replay cache
// comes back as its proofs expire; a replay is still a replay at the
// quota; Remember (no key) is bounded by the whole cache only.
func TestMemoryReplayKeyQuota(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	m := newMemoryReplay(func() time.Time { return now })
	for i := range maxReplayIDsPerKey {
		fresh, err := m.rememberFor("A", "a"+strconv.Itoa(i), time.Minute)
		require.NoError(t, err)
		require.True(t, fresh)
	}
	_, err := m.rememberFor("A", "one-more", time.Minute)
	require.ErrorIs(t, err, errKeyQuota)
	fresh, err := m.rememberFor("A", "a0", time.Minute)
	require.NoError(t, err, "a replay is told as such")
	require.False(t, fresh)
	fresh, err = m.rememberFor("B", "b0", time.Minute)
	require.NoError(t, err)
	require.True(t, fresh, "another key is not held back")
	fresh, err = m.Remember(context.Background(), "no-key", time.Minute)
	require.NoError(t, err)
	require.True(t, fresh)

	now = now.Add(time.Minute + sweepEvery)
	fresh, err = m.rememberFor("A", "later", time.Minute)
	require.NoError(t, err, "the expired proofs gave the key its share back")
	require.True(t, fresh)
	require.Equal(t, 1, m.perKey["A"])
	require.Equal(t, 1, len(m.ids))
}
