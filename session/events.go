package session

import (
	"context"
	"sync"
	"time"
)

// Event is one message of a resumable request stream: its number in the
// stream, the JSON-RPC message, and whether it is the last (the
// response). Event 0 is the priming event: stored when the stream opens, it
// makes the stream known before its first message; its Data is the ID of
// the request the stream answers (empty in streams stored before that).
// An event with no data that is neither event 0 nor final is a heartbeat:
// the request is still running on the replica that stores the stream.
type Event struct {
	// N numbers the event in its stream: 0 the priming event, then 1, 2, …
	N int
	// Data is the JSON-RPC message.
	Data []byte
	// Final marks the last event of the stream.
	Final bool
}

// EventStore keeps the events of resumable request streams so that a
// client can resume a stream with Last-Event-ID on any replica that shares
// the store. Streams are keyed by session and stream ID; each expires a
// while (the store's TTL) after its last append. Implementations must be
// safe for concurrent use.
type EventStore interface {
	// Append adds event ev to a stream; numbers increase by one.
	Append(ctx context.Context, sessionID, streamID string, ev Event) error
	// After returns the events numbered above after (-1: from event 0 on), in order. When there
	// are none yet it waits up to wait for one (or ctx). It returns
	// [ErrNotFound] for a stream it has no event of (never made, expired,
	// deleted, or whose events after `after` were dropped).
	After(ctx context.Context, sessionID, streamID string, after int, wait time.Duration) ([]Event, error)
	// Delete drops a stream; dropping an unknown one is not an error.
	Delete(ctx context.Context, sessionID, streamID string) error
}

// maxEvents bounds the events a stream keeps; the oldest go first.
const maxEvents = 1024

// MemoryEventStore is the in-process [EventStore]: one replica only.
type MemoryEventStore struct {
	ttl     time.Duration
	mu      sync.Mutex
	streams map[string]*memStream
}

type memStream struct {
	events  []Event
	expires time.Time
	more    chan struct{} // closed on the next append
}

// NewMemoryEventStore returns an empty store whose streams expire ttl
// after their last append (0: one hour).
func NewMemoryEventStore(ttl time.Duration) *MemoryEventStore {
	if ttl <= 0 {
		ttl = time.Hour
	}
	return &MemoryEventStore{ttl: ttl, streams: map[string]*memStream{}}
}

func streamKey(sessionID, streamID string) string { return sessionID + "/" + streamID }

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, sessionID, streamID string, ev Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for k, s := range m.streams { // a bounded sweep of expired streams
		if now.After(s.expires) {
			delete(m.streams, k)
		}
		break
	}
	k := streamKey(sessionID, streamID)
	s := m.streams[k]
	if s == nil || now.After(s.expires) {
		s = &memStream{more: make(chan struct{})}
		m.streams[k] = s
	}
	ev.Data = append([]byte(nil), ev.Data...)
	s.events = append(s.events, ev)
	if len(s.events) > maxEvents {
		s.events = s.events[1:]
	}
	s.expires = now.Add(m.ttl)
	close(s.more)
	s.more = make(chan struct{})
	return nil
}

// After implements EventStore.
func (m *MemoryEventStore) After(ctx context.Context, sessionID, streamID string, after int, wait time.Duration) ([]Event, error) {
	k := streamKey(sessionID, streamID)
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		s := m.streams[k]
		if s == nil || time.Now().After(s.expires) || len(s.events) == 0 || s.events[0].N > after+1 {
			m.mu.Unlock()
			return nil, ErrNotFound
		}
		var out []Event
		for _, ev := range s.events {
			if ev.N > after {
				out = append(out, ev)
			}
		}
		more := s.more
		m.mu.Unlock()
		if len(out) > 0 {
			return out, nil
		}
		select {
		case <-more:
		case <-deadline.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Delete implements EventStore.
func (m *MemoryEventStore) Delete(_ context.Context, sessionID, streamID string) error {
	m.mu.Lock()
	delete(m.streams, streamKey(sessionID, streamID))
	m.mu.Unlock()
	return nil
}
