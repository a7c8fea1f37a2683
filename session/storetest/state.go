package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/session"
)

// runState is the part of [Run] about Record.State, the per-session state
// of tools (state.Set): a store keeps it with the record, copies it,
// loses no concurrent write of another key, and drops it with the record
// (Delete, idle expiry).
func runState(t *testing.T, newStore func(t *testing.T) session.Store, ttlUnit time.Duration, record func() *session.Record) {
	ctx := context.Background()
	setKey := func(t *testing.T, s session.Store, id, key, val string, ttl time.Duration) {
		t.Helper()
		require.NoError(t, s.Update(ctx, id, ttl, func(r *session.Record) error {
			if r.State == nil {
				r.State = map[string]json.RawMessage{}
			}
			r.State[key] = json.RawMessage(val)
			return nil
		}))
	}

	t.Run("StateKeptWithTheRecord", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		rec.State = map[string]json.RawMessage{"cart": json.RawMessage(`["apple"]`)}
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		setKey(t, s, rec.ID, "user", `{"name":"ada","n":1}`, time.Minute)
		got, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Equal(t, map[string]json.RawMessage{"cart": json.RawMessage(`["apple"]`), "user": json.RawMessage(`{"name":"ada","n":1}`)}, got.State)
		touched, err := s.Touch(ctx, rec.ID, time.Minute)
		require.NoError(t, err)
		assert.Equal(t, got.State, touched.State, "Touch returns the state too")

		got.State["cart"] = json.RawMessage(`[]`)
		delete(got.State, "user")
		again, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.JSONEq(t, `["apple"]`, string(again.State["cart"]), "changing a returned record changes nothing stored")
		assert.Contains(t, again.State, "user")

		require.NoError(t, s.Update(ctx, rec.ID, time.Minute, func(r *session.Record) error {
			delete(r.State, "cart")
			return nil
		}))
		again, err = s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.NotContains(t, again.State, "cart", "a deleted key is gone")
		assert.Contains(t, again.State, "user")
	})

	t.Run("ConcurrentStateWritesAreNotLost", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		const n = 8
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				assert.NoError(t, s.Update(ctx, rec.ID, time.Minute, func(r *session.Record) error {
					if r.State == nil {
						r.State = map[string]json.RawMessage{}
					}
					r.State[fmt.Sprintf("k%d", i)] = json.RawMessage(fmt.Sprint(i))
					return nil
				}))
			})
		}
		wg.Wait()
		got, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Len(t, got.State, n, "every writer's key is kept")
	})

	t.Run("StateEndsWithTheRecord", func(t *testing.T) {
		s := newStore(t)
		deleted, idle := record(), record()
		ttl := 5 * ttlUnit
		require.NoError(t, s.Create(ctx, deleted, time.Minute))
		require.NoError(t, s.Create(ctx, idle, ttl))
		setKey(t, s, deleted.ID, "k", `"v"`, time.Minute)
		setKey(t, s, idle.ID, "k", `"v"`, ttl)

		require.NoError(t, s.Delete(ctx, deleted.ID))
		time.Sleep(2 * ttl)
		for _, id := range []string{deleted.ID, idle.ID} {
			_, err := s.Get(ctx, id)
			assert.ErrorIs(t, err, session.ErrNotFound)
			// The same ID made again starts with no state.
			fresh := record()
			fresh.ID = id
			require.NoError(t, s.Create(ctx, fresh, time.Minute))
			got, err := s.Get(ctx, id)
			require.NoError(t, err)
			assert.Empty(t, got.State, "the state of an ended session is gone with it")
		}
	})
}
