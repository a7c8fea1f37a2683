// Package storetest is the contract test suite of session.Store: run it
// against an implementation to check what the MCP engine relies on
// (create-once, idle expiry by TTL, touch, atomic updates, delete, and
// the tools' session state kept in the record and ended with it).
package storetest

import (
	"context"
	"errors"
	"fmt"
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
		ttl := 5 * ttlUnit
		var idle *session.Record
		forever := record()
		require.NoError(t, s.Create(ctx, forever, 0))
		onSchedule(t, ttl, func(o *timedOps) error {
			kept := record()
			idle = record()
			require.NoError(t, s.Create(ctx, idle, ttl))
			if err := o.do(func() error { return s.Create(ctx, kept, ttl) }); err != nil {
				return err
			}
			for range 4 {
				time.Sleep(2 * ttlUnit)
				if err := o.do(func() error { _, err := s.Touch(ctx, kept.ID, ttl); return err }); err != nil {
					return fmt.Errorf("a touched session stays: %w", err)
				}
			}
			return o.do(func() error { _, err := s.Get(ctx, kept.ID); return err })
		})
		_, err := s.Get(ctx, idle.ID)
		assert.ErrorIs(t, err, session.ErrNotFound, "an untouched session expired after its TTL")
		_, err = s.Get(ctx, forever.ID)
		assert.NoError(t, err, "ttl 0 never expires")
		require.NoError(t, s.Create(ctx, idle, ttl), "an expired ID may be created again")
	})

	t.Run("UpdateRestartsTTL", func(t *testing.T) {
		s := newStore(t)
		ttl := 5 * ttlUnit
		onSchedule(t, ttl, func(o *timedOps) error {
			rec := record()
			if err := o.do(func() error { return s.Create(ctx, rec, ttl) }); err != nil {
				return err
			}
			for range 4 {
				time.Sleep(2 * ttlUnit)
				if err := o.do(func() error {
					return s.Update(ctx, rec.ID, ttl, func(r *session.Record) error { return nil })
				}); err != nil {
					return fmt.Errorf("an updated session stays: %w", err)
				}
			}
			return o.do(func() error { _, err := s.Get(ctx, rec.ID); return err })
		})
	})

	runState(t, newStore, ttlUnit, record)
}

// timedOps records when each store operation of a timed scenario started
// and ended, to tell a store that lost a record before its TTL from a
// machine that stalled the scenario for longer than the TTL.
type timedOps struct{ spans [][2]time.Time }

// do runs one store operation and records its span.
func (o *timedOps) do(op func() error) error {
	start := time.Now()
	err := op()
	o.spans = append(o.spans, [2]time.Time{start, time.Now()})
	return err
}

// stalled reports whether an operation ended ttl or more after the one
// before it started: the TTL that operation set may have run out before
// the next one reached the store.
func (o *timedOps) stalled(ttl time.Duration) bool {
	for i := 1; i < len(o.spans); i++ {
		if o.spans[i][1].Sub(o.spans[i-1][0]) >= ttl {
			return true
		}
	}
	return false
}

// onSchedule runs a scenario whose store operations each renew a TTL before
// the previous one runs out, and fails the test when a run that kept that
// schedule returns an error. A run the machine stalled past the TTL (a
// loaded machine can hold a goroutine for longer than a Redis TTL of a few
// hundred milliseconds) proves nothing either way and runs again; three
// stalled runs fail the test.
func onSchedule(t *testing.T, ttl time.Duration, scenario func(o *timedOps) error) {
	t.Helper()
	for run := 1; ; run++ {
		var o timedOps
		err := scenario(&o)
		switch {
		case err == nil:
			return
		case !o.stalled(ttl):
			t.Fatal(err)
		case run == 3:
			t.Fatalf("three runs were stalled past the TTL of %v; the last failed with: %v", ttl, err)
		}
		t.Logf("run %d was stalled past the TTL of %v (%v); running it again", run, ttl, err)
	}
}
