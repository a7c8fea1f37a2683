package session_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/storetest"
)

func TestMemoryStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(*testing.T) session.Store { return session.NewMemoryStore() }, 50*time.Millisecond)
}

func TestMemoryEventStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunEvents(t, func(*testing.T) session.EventStore { return session.NewMemoryEventStore(time.Minute) })
}

// TestRecordClone: a clone's subscriptions, roots capability and
// experimental map are its own, so changing one record leaves the other
// as it was; and cloning costs no JSON round trip.
func TestRecordClone(t *testing.T) { // not parallel: AllocsPerRun
	rec := &session.Record{ID: "s", Subscriptions: []string{"a://1"},
		Capabilities: mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true},
			Experimental: map[string]any{"x": true}}}
	cp := rec.Clone()
	assert.Equal(t, rec, cp)
	cp.Subscriptions[0] = "b://2"
	cp.Capabilities.Roots.ListChanged = false
	cp.Capabilities.Experimental["y"] = 1
	assert.Equal(t, []string{"a://1"}, rec.Subscriptions)
	assert.True(t, rec.Capabilities.Roots.ListChanged)
	assert.Equal(t, map[string]any{"x": true}, rec.Capabilities.Experimental)
	// The record, its subscriptions, roots and map: a few allocations,
	// not the dozen of an encode and decode.
	assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { rec.Clone() }), 5.0)
}

func TestMemoryTaskStoreContract(t *testing.T) {
	t.Parallel()
	storetest.RunTasks(t, func(*testing.T) session.TaskStore { return session.NewMemoryStore() }, 50*time.Millisecond)
}

// TestMemoryStoreTouchApply: TouchApply shows the stored record as Touch
// would return it, restarts the TTL, copies nothing, and reports an
// unknown or expired ID as ErrNotFound without calling apply.
func TestMemoryStoreTouchApply(t *testing.T) { // not parallel: AllocsPerRun
	ctx := context.Background()
	m := session.NewMemoryStore()
	const ttl = 80 * time.Millisecond
	rec := &session.Record{ID: "s1", ProtocolVersion: "2025-06-18", LogLevel: mcp.LevelWarning,
		Initialized: true, Subscriptions: []string{"a://1"}}
	require.NoError(t, m.Create(ctx, rec, ttl))

	tests := []struct {
		name string
		id   string
		err  error
	}{
		{"live", "s1", nil},
		{"unknown", "s2", session.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *session.Record
			err := m.TouchApply(ctx, tt.id, ttl, func(r *session.Record) { got = r.Clone() })
			require.ErrorIs(t, err, tt.err)
			if tt.err != nil {
				assert.Nil(t, got, "apply not called")
				return
			}
			assert.Equal(t, rec, got)
		})
	}

	// The record is shown, not copied: nothing allocated.
	var level mcp.LogLevel
	apply := func(r *session.Record) { level = r.LogLevel }
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = m.TouchApply(ctx, "s1", ttl, apply) }), "no copy of the record")
	assert.Equal(t, mcp.LevelWarning, level)

	// Each touch restarts the TTL: touched for longer than one TTL, the
	// record lives on; left alone, it expires. On the bubble's clock, so
	// that a loaded machine's late wake-ups cannot expire it early.
	synctest.Test(t, func(t *testing.T) {
		m := session.NewMemoryStore()
		require.NoError(t, m.Create(ctx, rec.Clone(), ttl))
		for range 4 {
			time.Sleep(ttl / 2)
			require.NoError(t, m.TouchApply(ctx, "s1", ttl, apply))
		}
		time.Sleep(ttl - time.Millisecond)
		require.NoError(t, m.TouchApply(ctx, "s1", ttl, apply), "alive just inside the TTL")
		time.Sleep(ttl)
		assert.ErrorIs(t, m.TouchApply(ctx, "s1", ttl, apply), session.ErrNotFound)
	})
}
