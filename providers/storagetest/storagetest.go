// Package storagetest is the contract test suite of providers.TokenStorage:
// run it against an implementation to check the semantics the OAuth proxy
// relies on (TTL, atomic take-once, put-if-absent).
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/providers"
)

// Run runs the contract suite. newStorage returns a fresh, empty storage
// for each subtest; Run closes it when the subtest ends. ttlUnit is the
// shortest TTL the backend honours reliably (Redis: a few milliseconds);
// TTL tests sleep a few multiples of it.
func Run(t *testing.T, newStorage func(t *testing.T) providers.TokenStorage, ttlUnit time.Duration) {
	t.Helper()
	fresh := func(t *testing.T) providers.TokenStorage {
		s := newStorage(t)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	}
	ctx := context.Background()

	t.Run("PutGetDelete", func(t *testing.T) {
		s := fresh(t)
		require.NoError(t, s.Put(ctx, "a", []byte("1"), 0))
		got, err := s.Get(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, []byte("1"), got)
		require.NoError(t, s.Put(ctx, "a", []byte("2"), 0), "Put overwrites")
		got, err = s.Get(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, []byte("2"), got)
		require.NoError(t, s.Delete(ctx, "a"))
		_, err = s.Get(ctx, "a")
		assert.ErrorIs(t, err, providers.ErrNotFound)
		require.NoError(t, s.Delete(ctx, "a"), "deleting an absent key is not an error")
	})

	t.Run("MissingKey", func(t *testing.T) {
		s := fresh(t)
		_, err := s.Get(ctx, "nope")
		assert.ErrorIs(t, err, providers.ErrNotFound)
		_, err = s.Take(ctx, "nope")
		assert.ErrorIs(t, err, providers.ErrNotFound)
	})

	t.Run("BadArguments", func(t *testing.T) {
		s := fresh(t)
		assert.Error(t, s.Put(ctx, "", []byte("x"), 0), "empty key")
		assert.Error(t, s.Put(ctx, "k", []byte("x"), -time.Second), "negative TTL")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		assert.ErrorIs(t, s.Put(cctx, "k", []byte("x"), 0), context.Canceled)
		_, err := s.Get(cctx, "k")
		assert.ErrorIs(t, err, context.Canceled)
	})

	t.Run("ValuesAreCopied", func(t *testing.T) {
		s := fresh(t)
		v := []byte("abc")
		require.NoError(t, s.Put(ctx, "k", v, 0))
		v[0] = 'X'
		got, err := s.Get(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, []byte("abc"), got, "the storage must not keep the caller's slice")
	})

	t.Run("TTLExpires", func(t *testing.T) {
		s := fresh(t)
		require.NoError(t, s.Put(ctx, "short", []byte("x"), 5*ttlUnit))
		require.NoError(t, s.Put(ctx, "long", []byte("y"), 0))
		got, err := s.Get(ctx, "short")
		require.NoError(t, err)
		assert.Equal(t, []byte("x"), got)
		time.Sleep(10 * ttlUnit)
		_, err = s.Get(ctx, "short")
		assert.ErrorIs(t, err, providers.ErrNotFound, "an expired key must never be returned")
		_, err = s.Take(ctx, "short")
		assert.ErrorIs(t, err, providers.ErrNotFound)
		_, err = s.Get(ctx, "long")
		assert.NoError(t, err, "ttl 0 never expires")
	})

	t.Run("TakeOnce", func(t *testing.T) {
		s := fresh(t)
		require.NoError(t, s.Put(ctx, "code", []byte("v"), time.Minute))
		got, err := s.Take(ctx, "code")
		require.NoError(t, err)
		assert.Equal(t, []byte("v"), got)
		_, err = s.Take(ctx, "code")
		assert.ErrorIs(t, err, providers.ErrNotFound, "second Take")
		_, err = s.Get(ctx, "code")
		assert.ErrorIs(t, err, providers.ErrNotFound, "Get after Take")
	})

	t.Run("TakeIsAtomic", func(t *testing.T) {
		s := fresh(t)
		for round := range 5 {
			key := fmt.Sprintf("code-%d", round)
			require.NoError(t, s.Put(ctx, key, []byte("v"), time.Minute))
			var wins atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range 50 {
				wg.Go(func() {
					<-start
					_, err := s.Take(ctx, key)
					if err == nil {
						wins.Add(1)
					} else if !errors.Is(err, providers.ErrNotFound) {
						t.Errorf("Take: %v", err)
					}
				})
			}
			close(start)
			wg.Wait()
			assert.Equal(t, int32(1), wins.Load(), "exactly one of 50 concurrent Takes gets the value")
		}
	})

	t.Run("PutIfAbsent", func(t *testing.T) {
		s := fresh(t)
		ok, err := s.PutIfAbsent(ctx, "lock", []byte("a"), time.Minute)
		require.NoError(t, err)
		assert.True(t, ok)
		ok, err = s.PutIfAbsent(ctx, "lock", []byte("b"), time.Minute)
		require.NoError(t, err)
		assert.False(t, ok, "second PutIfAbsent must fail")
		got, err := s.Get(ctx, "lock")
		require.NoError(t, err)
		assert.Equal(t, []byte("a"), got, "the first value stays")

		ok, err = s.PutIfAbsent(ctx, "brief", []byte("a"), 5*ttlUnit)
		require.NoError(t, err)
		require.True(t, ok)
		time.Sleep(10 * ttlUnit)
		ok, err = s.PutIfAbsent(ctx, "brief", []byte("b"), 0)
		require.NoError(t, err)
		assert.True(t, ok, "an expired key counts as absent")
	})

	t.Run("PutIfAbsentIsAtomic", func(t *testing.T) {
		s := fresh(t)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				ok, err := s.PutIfAbsent(ctx, "once", []byte("x"), time.Minute)
				if err != nil {
					t.Errorf("PutIfAbsent: %v", err)
				}
				if ok {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, int32(1), wins.Load())
	})

	t.Run("Swap", func(t *testing.T) {
		s := fresh(t)
		_, err := s.Swap(ctx, "absent", []byte("x"), time.Minute)
		assert.ErrorIs(t, err, providers.ErrNotFound)
		_, err = s.Get(ctx, "absent")
		assert.ErrorIs(t, err, providers.ErrNotFound, "Swap of an absent key creates nothing")
		require.NoError(t, s.Put(ctx, "k", []byte("live"), time.Minute))
		old, err := s.Swap(ctx, "k", []byte("used"), 5*ttlUnit)
		require.NoError(t, err)
		assert.Equal(t, []byte("live"), old)
		got, err := s.Get(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, []byte("used"), got)
		time.Sleep(10 * ttlUnit)
		_, err = s.Get(ctx, "k")
		assert.ErrorIs(t, err, providers.ErrNotFound, "Swap sets the new TTL")
	})

	t.Run("SwapIsAtomic", func(t *testing.T) {
		s := fresh(t)
		for round := range 5 {
			key := fmt.Sprintf("rt-%d", round)
			require.NoError(t, s.Put(ctx, key, []byte("live"), time.Minute))
			var live, used atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range 50 {
				wg.Go(func() {
					<-start
					old, err := s.Swap(ctx, key, []byte("used"), time.Minute)
					switch {
					case err != nil:
						t.Errorf("Swap: %v", err)
					case string(old) == "live":
						live.Add(1)
					case string(old) == "used":
						used.Add(1)
					}
				})
			}
			close(start)
			wg.Wait()
			assert.Equal(t, int32(1), live.Load(), "exactly one of 50 concurrent Swaps gets the live value")
			assert.Equal(t, int32(49), used.Load(), "the others get the mark")
		}
	})

	t.Run("Update", func(t *testing.T) {
		s := fresh(t)
		ok, err := s.Update(ctx, "absent", []byte("x"), time.Minute)
		require.NoError(t, err)
		assert.False(t, ok, "Update of an absent key")
		_, err = s.Get(ctx, "absent")
		assert.ErrorIs(t, err, providers.ErrNotFound)
		require.NoError(t, s.Put(ctx, "k", []byte("1"), time.Minute))
		ok, err = s.Update(ctx, "k", []byte("2"), 5*ttlUnit)
		require.NoError(t, err)
		assert.True(t, ok)
		got, err := s.Get(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, []byte("2"), got)
		time.Sleep(10 * ttlUnit)
		ok, err = s.Update(ctx, "k", []byte("3"), time.Minute)
		require.NoError(t, err)
		assert.False(t, ok, "an expired key counts as absent")
	})

	t.Run("UpdateNeverUndoesDelete", func(t *testing.T) {
		// A grant saved back by one request while another revokes it:
		// once Delete has returned, no later Update may bring it back.
		s := fresh(t)
		for round := range 20 {
			key := fmt.Sprintf("grant-%d", round)
			require.NoError(t, s.Put(ctx, key, []byte("g"), time.Minute))
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range 20 {
				wg.Go(func() {
					<-start
					if _, err := s.Update(ctx, key, []byte("g2"), time.Minute); err != nil {
						t.Errorf("Update: %v", err)
					}
				})
			}
			close(start)
			require.NoError(t, s.Delete(ctx, key))
			wg.Wait()
			ok, err := s.Update(ctx, key, []byte("g3"), time.Minute)
			require.NoError(t, err)
			assert.False(t, ok)
			_, err = s.Get(ctx, key)
			assert.ErrorIs(t, err, providers.ErrNotFound, "a deleted key stays deleted")
		}
	})
}
