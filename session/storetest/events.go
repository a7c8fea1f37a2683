package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/session"
)

// RunEvents runs the contract suite of session.EventStore. newStore
// returns a fresh, empty store for each subtest.
func RunEvents(t *testing.T, newStore func(t *testing.T) session.EventStore) {
	t.Helper()
	ctx := context.Background()

	t.Run("AppendAfter", func(t *testing.T) {
		s := newStore(t)
		for n := 1; n <= 3; n++ {
			require.NoError(t, s.Append(ctx, "s1", "a", session.Event{N: n, Data: []byte(`{"n":` + string(rune('0'+n)) + `}`), Final: n == 3}))
		}
		evs, err := s.After(ctx, "s1", "a", 1, 0)
		require.NoError(t, err)
		require.Len(t, evs, 2)
		assert.Equal(t, 2, evs[0].N)
		assert.JSONEq(t, `{"n":2}`, string(evs[0].Data))
		assert.False(t, evs[0].Final)
		assert.True(t, evs[1].Final)
		evs, err = s.After(ctx, "s1", "a", 0, 0)
		require.NoError(t, err)
		assert.Len(t, evs, 3, "after 0 (the priming event) is all of them")
	})

	t.Run("StreamsAreSeparate", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Append(ctx, "s1", "a", session.Event{N: 1, Data: []byte(`1`)}))
		_, err := s.After(ctx, "s1", "b", 0, 0)
		assert.ErrorIs(t, err, session.ErrNotFound, "another stream")
		_, err = s.After(ctx, "s2", "a", 0, 0)
		assert.ErrorIs(t, err, session.ErrNotFound, "another session")
	})

	t.Run("PrimedStreamWithoutEvents", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Append(ctx, "s1", "a", session.Event{N: 0}))
		evs, err := s.After(ctx, "s1", "a", 0, 0)
		require.NoError(t, err, "a primed stream is known before its first message")
		assert.Empty(t, evs)
		require.NoError(t, s.Append(ctx, "s1", "a", session.Event{N: 1, Data: []byte(`1`), Final: true}))
		evs, err = s.After(ctx, "s1", "a", 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, 1, "the priming event itself is never returned")
		assert.Equal(t, 1, evs[0].N)
	})

	t.Run("WaitsForTheNextEvent", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Append(ctx, "s1", "a", session.Event{N: 1, Data: []byte(`1`)}))
		go func() {
			time.Sleep(50 * time.Millisecond)
			_ = s.Append(ctx, "s1", "a", session.Event{N: 2, Data: []byte(`2`), Final: true})
		}()
		start := time.Now()
		evs, err := s.After(ctx, "s1", "a", 1, 2*time.Second)
		require.NoError(t, err)
		require.Len(t, evs, 1)
		assert.True(t, evs[0].Final)
		assert.Less(t, time.Since(start), time.Second, "woken by the append, not the wait")

		evs, err = s.After(ctx, "s1", "a", 2, 50*time.Millisecond)
		require.NoError(t, err)
		assert.Empty(t, evs, "nothing new within the wait")
	})

	t.Run("Delete", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Append(ctx, "s1", "a", session.Event{N: 1, Data: []byte(`1`)}))
		require.NoError(t, s.Delete(ctx, "s1", "a"))
		require.NoError(t, s.Delete(ctx, "s1", "a"))
		_, err := s.After(ctx, "s1", "a", 0, 0)
		assert.ErrorIs(t, err, session.ErrNotFound)
	})
}
