package session_test

import (
	"context"
	"testing"
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

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	s := session.New(time.Now())
	s.Init("2025-06-18", mcp.Implementation{Name: "c", Version: "1"}, mcp.ClientCapabilities{}, "alice")
	s.SetInitialized()
	s.SetLogLevel(mcp.LevelError)
	s.Subscribe("b://2")
	s.Subscribe("a://1")
	rec := s.Record()
	assert.Equal(t, []string{"a://1", "b://2"}, rec.Subscriptions, "sorted")
	assert.Equal(t, session.Identity("alice"), rec.Identity)

	cp := session.FromRecord(rec, "alice")
	assert.Equal(t, s.ID, cp.ID)
	assert.Equal(t, "2025-06-18", cp.ProtocolVersion())
	assert.True(t, cp.Initialized())
	assert.Equal(t, mcp.LevelError, cp.LogLevel())
	assert.True(t, cp.Subscribed("a://1"))
	assert.Equal(t, "alice", cp.Auth())

	rec.Subscriptions = nil
	rec.LogLevel = ""
	cp.Apply(rec)
	assert.False(t, cp.Subscribed("a://1"), "Apply takes what another replica wrote")
	assert.Equal(t, mcp.LogLevel(""), cp.LogLevel())
}

type subj string

func (s subj) Subject() string { return string(s) }

func TestIdentity(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", session.Identity(nil))
	assert.Equal(t, "sub:bob", session.Identity(subj("bob")))
	assert.Equal(t, session.Identity(map[string]any{"a": 1}), session.Identity(map[string]any{"a": 1}))
	assert.NotEqual(t, session.Identity("alice"), session.Identity("bob"))
	assert.Equal(t, session.Unencodable, session.Identity(func() {}))
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

// TestMemoryStoreTouchApply: TouchApply refreshes a session from its
// record as Touch then Apply would, restarts the TTL, copies nothing, and
// reports an unknown or expired ID as ErrNotFound.
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
			s := session.New(time.Now())
			err := m.TouchApply(ctx, tt.id, ttl, s)
			require.ErrorIs(t, err, tt.err)
			if tt.err != nil {
				assert.False(t, s.Initialized(), "nothing applied")
				return
			}
			assert.True(t, s.Initialized())
			assert.Equal(t, mcp.LevelWarning, s.LogLevel())
			assert.True(t, s.Subscribed("a://1"))
		})
	}

	// A record without subscriptions (Apply builds the session's own set
	// of them): nothing allocated, the record is not copied.
	require.NoError(t, m.Create(ctx, &session.Record{ID: "s0", Initialized: true}, ttl))
	s := session.New(time.Now())
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = m.TouchApply(ctx, "s0", ttl, s) }), "no copy of the record")

	// Each touch restarts the TTL: touched for longer than one TTL, the
	// record lives on; left alone, it expires.
	for range 4 {
		time.Sleep(ttl / 4)
		require.NoError(t, m.TouchApply(ctx, "s1", ttl, s))
	}
	time.Sleep(ttl + 20*time.Millisecond)
	assert.ErrorIs(t, m.TouchApply(ctx, "s1", ttl, s), session.ErrNotFound)
}
