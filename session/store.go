package session

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
)

// ErrExists is returned by [Store.Create] for an ID already in use.
var ErrExists = errors.New("session: ID already in use")

// Record is the stored state of one session: plain data, serialisable as
// JSON, so any replica that shares the store can serve the session. The
// engine keeps a working copy of it in each process that serves the
// session and writes changes back with [Store.Update]; a store only keeps
// records.
type Record struct {
	// ID is the Mcp-Session-Id.
	ID string `json:"id"`
	// ProtocolVersion is the negotiated revision.
	ProtocolVersion string `json:"protocolVersion"`
	// Client is the clientInfo of initialize.
	Client mcp.Implementation `json:"client"`
	// Capabilities are the client's declared capabilities.
	Capabilities mcp.ClientCapabilities `json:"capabilities"`
	// LogLevel is the minimum level of logging/setLevel; "" means every
	// level.
	LogLevel mcp.LogLevel `json:"logLevel,omitempty"`
	// Initialized says notifications/initialized was received.
	Initialized bool `json:"initialized,omitempty"`
	// Subscriptions are the resource URIs the client subscribed to,
	// sorted.
	Subscriptions []string `json:"subscriptions,omitempty"`
	// Identity binds the session to the caller that initialized it: a
	// string the engine derives from the caller's auth data ("" for an
	// anonymous session, "sub:" and the subject, or "opaque" for auth data
	// without a subject, which no replica but the one that made the
	// session serves), compared by the engine, kept as is by a store.
	Identity string `json:"identity,omitempty"`
	// Created is when initialize made the session.
	Created time.Time `json:"created"`
	// LastSeen is the time of the last activity written to the store.
	LastSeen time.Time `json:"lastSeen"`
	// State is the session's state of the tools (state.Set): each key's
	// value as JSON. It lives in the record so that it follows the session
	// to every replica and ends with it (Delete, idle expiry); a store
	// keeps it like every other field. Values are replaced, never changed
	// in place, so a copy of the map shares them.
	State map[string]json.RawMessage `json:"state,omitempty"`
}

// Clone returns a deep copy of r.
func (r *Record) Clone() *Record {
	cp := *r
	cp.Subscriptions = slices.Clone(r.Subscriptions)
	cp.Capabilities = cloneCaps(r.Capabilities)
	cp.State = maps.Clone(r.State)
	return &cp
}

// cloneCaps copies capabilities. They are what the client said at
// initialize and are never modified after: the copy gets its own Roots
// and Sampling and its own top-level Experimental and Extensions maps
// (the values inside are shared).
// No JSON round trip: the memory store clones on every write.
func cloneCaps(c mcp.ClientCapabilities) mcp.ClientCapabilities {
	if c.Roots != nil {
		roots := *c.Roots
		c.Roots = &roots
	}
	if c.Sampling != nil {
		sampling := *c.Sampling
		c.Sampling = &sampling
	}
	c.Experimental = maps.Clone(c.Experimental)
	c.Extensions = maps.Clone(c.Extensions)
	return c
}

// Store keeps session records, with an idle expiry: a record not touched
// for its TTL is gone. Every method returns the store's error as is (a
// handler answers a request it cannot serve for it with an internal
// error); implementations must be safe for concurrent use by many
// processes when they are shared. A ttl <= 0 means no expiry.
type Store interface {
	// Create stores a new record; [ErrExists] if its ID is in use.
	Create(ctx context.Context, rec *Record, ttl time.Duration) error
	// Get returns the record, or [ErrNotFound].
	Get(ctx context.Context, id string) (*Record, error)
	// Touch returns the record and restarts its TTL, or [ErrNotFound].
	Touch(ctx context.Context, id string, ttl time.Duration) (*Record, error)
	// Update applies fn to the current record and stores the result
	// atomically (fn may run more than once when writers race), restarting
	// its TTL; [ErrNotFound] if there is none; an error from fn is returned
	// and nothing is written.
	Update(ctx context.Context, id string, ttl time.Duration, fn func(*Record) error) error
	// Delete removes the record; deleting an unknown ID is not an error.
	Delete(ctx context.Context, id string) error
}

// MemoryStore is the in-process [Store], the default: one replica only.
type MemoryStore struct {
	mu   sync.Mutex
	recs map[string]memEntry
	now  func() time.Time
	// tasks are the tasks of [TaskStore] (task.go), made on first use.
	tasks map[string]taskEntry
}

type memEntry struct {
	rec     *Record
	expires time.Time // zero: never
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{recs: map[string]memEntry{}, now: time.Now}
}

// clock returns *now, reading the store's clock into it first if it is
// zero: an operation that checks an expiry and sets a new one (Touch, on
// every request of a session) reads the clock once.
func (m *MemoryStore) clock(now *time.Time) time.Time {
	if now.IsZero() {
		*now = m.now()
	}
	return *now
}

func (m *MemoryStore) expiry(ttl time.Duration, now *time.Time) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return m.clock(now).Add(ttl)
}

// liveLocked returns the unexpired entry of id, dropping an expired one.
func (m *MemoryStore) liveLocked(id string, now *time.Time) (memEntry, bool) {
	e, ok := m.recs[id]
	if !ok {
		return e, false
	}
	if !e.expires.IsZero() && !m.clock(now).Before(e.expires) {
		delete(m.recs, id)
		return e, false
	}
	return e, true
}

// sweepLocked drops expired entries, a few at a time, so memory stays
// bounded without a goroutine.
func (m *MemoryStore) sweepLocked() {
	n := 0
	now := m.now()
	for id, e := range m.recs {
		if n++; n > 16 {
			return
		}
		if !e.expires.IsZero() && !now.Before(e.expires) {
			delete(m.recs, id)
		}
	}
}

// Create implements Store.
func (m *MemoryStore) Create(_ context.Context, rec *Record, ttl time.Duration) error {
	if rec == nil || !ValidID(rec.ID) {
		return errors.New("session: Create needs a record with a valid ID")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked()
	var now time.Time
	if _, ok := m.liveLocked(rec.ID, &now); ok {
		return ErrExists
	}
	m.recs[rec.ID] = memEntry{rec: rec.Clone(), expires: m.expiry(ttl, &now)}
	return nil
}

// Get implements Store.
func (m *MemoryStore) Get(_ context.Context, id string) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var now time.Time
	e, ok := m.liveLocked(id, &now)
	if !ok {
		return nil, ErrNotFound
	}
	return e.rec.Clone(), nil
}

// Touch implements Store.
func (m *MemoryStore) Touch(_ context.Context, id string, ttl time.Duration) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var now time.Time
	e, ok := m.liveLocked(id, &now)
	if !ok {
		return nil, ErrNotFound
	}
	e.expires = m.expiry(ttl, &now)
	m.recs[id] = e
	return e.rec.Clone(), nil
}

// TouchApply is [MemoryStore.Touch] without the copy Touch returns: it
// restarts the TTL of the record id and calls apply with the stored
// record under the store's lock, or returns [ErrNotFound]. apply must
// neither keep nor modify the record, nor call the store. A handler that
// refreshes its working copy of a session on every request (the engine)
// saves a copy of the record per request with it.
func (m *MemoryStore) TouchApply(_ context.Context, id string, ttl time.Duration, apply func(*Record)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var now time.Time
	e, ok := m.liveLocked(id, &now)
	if !ok {
		return ErrNotFound
	}
	e.expires = m.expiry(ttl, &now)
	m.recs[id] = e
	apply(e.rec)
	return nil
}

// Update implements Store.
func (m *MemoryStore) Update(_ context.Context, id string, ttl time.Duration, fn func(*Record) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var now time.Time
	e, ok := m.liveLocked(id, &now)
	if !ok {
		return ErrNotFound
	}
	rec := e.rec.Clone()
	if err := fn(rec); err != nil {
		return err
	}
	rec.ID = id
	m.recs[id] = memEntry{rec: rec, expires: m.expiry(ttl, &now)}
	return nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.recs, id)
	m.mu.Unlock()
	return nil
}
