// Package storetest is the contract test suite of session.Store: run it
// against an implementation to check what the MCP engine relies on
// (create-once, idle expiry by TTL, touch, atomic updates, delete, and
// the tools' session state kept in the record and ended with it).
package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

// Run runs the contract suite. newStore returns a fresh, empty store for
// each subtest. ttlUnit is the shortest TTL the backend honours reliably
// (Redis: a few tens of milliseconds); TTL tests sleep a few multiples.
func Run(t *testing.T, newStore func(t *testing.T) session.Store, ttlUnit time.Duration) {
	t.Helper()
	ctx := context.Background()
	record := func() *session.Record {
		now := time.Now().UTC().Truncate(time.Millisecond)
		return &session.Record{ID: session.NewID(), ProtocolVersion: "2025-11-25",
			Client:       mcp.Implementation{Name: "c", Version: "1"},
			Capabilities: mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}},
			Created:      now, LastSeen: now}
	}

	t.Run("CreateGetDelete", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		got, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Equal(t, rec.ID, got.ID)
		assert.Equal(t, rec.ProtocolVersion, got.ProtocolVersion)
		assert.Equal(t, rec.Client, got.Client)
		assert.Equal(t, rec.Capabilities, got.Capabilities)
		assert.True(t, rec.Created.Equal(got.Created))
		require.NoError(t, s.Delete(ctx, rec.ID))
		_, err = s.Get(ctx, rec.ID)
		assert.ErrorIs(t, err, session.ErrNotFound)
		require.NoError(t, s.Delete(ctx, rec.ID), "deleting an unknown ID is not an error")
	})

	t.Run("CreateTwice", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		assert.ErrorIs(t, s.Create(ctx, rec, time.Minute), session.ErrExists)
	})

	t.Run("BadRecord", func(t *testing.T) {
		s := newStore(t)
		assert.Error(t, s.Create(ctx, &session.Record{}, time.Minute), "empty ID")
		assert.Error(t, s.Create(ctx, &session.Record{ID: "has space"}, time.Minute), "invalid ID")
	})

	t.Run("Missing", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Get(ctx, "nope")
		assert.ErrorIs(t, err, session.ErrNotFound)
		_, err = s.Touch(ctx, "nope", time.Minute)
		assert.ErrorIs(t, err, session.ErrNotFound)
		err = s.Update(ctx, "nope", time.Minute, func(*session.Record) error { return nil })
		assert.ErrorIs(t, err, session.ErrNotFound)
	})

	t.Run("CopiesNotAliases", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		rec.LogLevel = mcp.LevelError
		got, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Empty(t, got.LogLevel, "changing the caller's record changes nothing stored")
		got.Subscriptions = append(got.Subscriptions, "x://y")
		again, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Empty(t, again.Subscriptions)
	})

	t.Run("UpdateWritesBack", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		require.NoError(t, s.Update(ctx, rec.ID, time.Minute, func(r *session.Record) error {
			r.LogLevel = mcp.LevelWarning
			r.Initialized = true
			r.Subscriptions = []string{"a://1"}
			r.ID = "ignored"
			return nil
		}))
		got, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Equal(t, mcp.LevelWarning, got.LogLevel)
		assert.True(t, got.Initialized)
		assert.Equal(t, []string{"a://1"}, got.Subscriptions)
		assert.Equal(t, rec.ID, got.ID, "the ID never changes")

		boom := errors.New("boom")
		err = s.Update(ctx, rec.ID, time.Minute, func(r *session.Record) error {
			r.LogLevel = mcp.LevelDebug
			return boom
		})
		assert.ErrorIs(t, err, boom)
		got, err = s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Equal(t, mcp.LevelWarning, got.LogLevel, "a failed update writes nothing")
	})

	t.Run("ConcurrentUpdatesAreNotLost", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		require.NoError(t, s.Create(ctx, rec, time.Minute))
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				assert.NoError(t, s.Update(ctx, rec.ID, time.Minute, func(r *session.Record) error {
					r.Subscriptions = append(r.Subscriptions, string(rune('a'+i)))
					return nil
				}))
			})
		}
		wg.Wait()
		got, err := s.Get(ctx, rec.ID)
		require.NoError(t, err)
		assert.Len(t, got.Subscriptions, 8, "every writer's change is kept")
	})

	t.Run("IdleExpiry", func(t *testing.T) {
		s := newStore(t)
		idle, kept := record(), record()
		ttl := 5 * ttlUnit
		require.NoError(t, s.Create(ctx, idle, ttl))
		require.NoError(t, s.Create(ctx, kept, ttl))
		forever := record()
		require.NoError(t, s.Create(ctx, forever, 0))
		for range 4 {
			time.Sleep(2 * ttlUnit)
			_, err := s.Touch(ctx, kept.ID, ttl)
			require.NoError(t, err, "a touched session stays")
		}
		_, err := s.Get(ctx, idle.ID)
		assert.ErrorIs(t, err, session.ErrNotFound, "an untouched session expired after its TTL")
		_, err = s.Get(ctx, kept.ID)
		assert.NoError(t, err)
		_, err = s.Get(ctx, forever.ID)
		assert.NoError(t, err, "ttl 0 never expires")
		require.NoError(t, s.Create(ctx, idle, ttl), "an expired ID may be created again")
	})

	t.Run("UpdateRestartsTTL", func(t *testing.T) {
		s := newStore(t)
		rec := record()
		ttl := 5 * ttlUnit
		require.NoError(t, s.Create(ctx, rec, ttl))
		for range 4 {
			time.Sleep(2 * ttlUnit)
			require.NoError(t, s.Update(ctx, rec.ID, ttl, func(r *session.Record) error { return nil }))
		}
		_, err := s.Get(ctx, rec.ID)
		assert.NoError(t, err)
	})

	runState(t, newStore, ttlUnit, record)
}
