package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
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

// RedisEventStore is an [EventStore] on Redis Streams: one stream key per
// request stream, whose entry IDs are "1-<n>" so that XRANGE and XREAD
// BLOCK read "after n" directly, trimmed to the last 1024 entries and
// expiring TTL after its last append. A replica that resumes a stream
// made on another one tails it with XREAD BLOCK: no pub/sub is needed.
type RedisEventStore struct {
	c      redis.UniversalClient
	prefix string
	ttl    time.Duration
}

// NewRedisEventStore returns an event store on c whose keys start with
// prefix (default "mcp:ev:") and expire ttl after the last append
// (0: one hour). The caller owns c.
func NewRedisEventStore(c redis.UniversalClient, prefix string, ttl time.Duration) *RedisEventStore {
	if prefix == "" {
		prefix = "mcp:ev:"
	}
	if ttl <= 0 {
		ttl = time.Hour
	}
	return &RedisEventStore{c: c, prefix: prefix, ttl: ttl}
}

func (s *RedisEventStore) key(sessionID, streamID string) string {
	return s.prefix + "{" + sessionID + "}:" + streamID
}

// Append implements EventStore.
func (s *RedisEventStore) Append(ctx context.Context, sessionID, streamID string, ev Event) error {
	key := s.key(sessionID, streamID)
	final := "0"
	if ev.Final {
		final = "1"
	}
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: "1-" + strconv.Itoa(ev.N), MaxLen: maxEvents, Approx: true,
			Values: []any{"d", ev.Data, "f", final}})
		p.Expire(ctx, key, s.ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("session: redis XADD: %w", err)
	}
	return nil
}

func toEvents(msgs []redis.XMessage) ([]Event, error) {
	out := make([]Event, 0, len(msgs))
	for _, m := range msgs {
		var n int
		if _, err := fmt.Sscanf(m.ID, "1-%d", &n); err != nil {
			return nil, fmt.Errorf("session: a stored event has the ID %q", m.ID)
		}
		d, _ := m.Values["d"].(string)
		f, _ := m.Values["f"].(string)
		out = append(out, Event{N: n, Data: []byte(d), Final: f == "1"})
	}
	return out, nil
}

// After implements EventStore.
func (s *RedisEventStore) After(ctx context.Context, sessionID, streamID string, after int, wait time.Duration) ([]Event, error) {
	key := s.key(sessionID, streamID)
	first, err := s.c.XRangeN(ctx, key, "-", "+", 1).Result()
	if err != nil {
		return nil, fmt.Errorf("session: redis XRANGE: %w", err)
	}
	if len(first) == 0 {
		return nil, ErrNotFound
	}
	if evs, err := toEvents(first); err != nil {
		return nil, err
	} else if evs[0].N > after+1 {
		return nil, ErrNotFound // what follows `after` was trimmed
	}
	from := "1-" + strconv.Itoa(after)
	if after < 0 {
		from = "0-0" // from the priming event on
	}
	res, err := s.c.XRange(ctx, key, "("+from, "+").Result()
	if err != nil {
		return nil, fmt.Errorf("session: redis XRANGE: %w", err)
	}
	if len(res) > 0 || wait <= 0 {
		return toEvents(res)
	}
	streams, err := s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{key, from}, Block: wait}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: redis XREAD: %w", err)
	}
	var out []Event
	for _, st := range streams {
		evs, err := toEvents(st.Messages)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

// Delete implements EventStore.
func (s *RedisEventStore) Delete(ctx context.Context, sessionID, streamID string) error {
	if err := s.c.Del(ctx, s.key(sessionID, streamID)).Err(); err != nil {
		return fmt.Errorf("session: redis DEL: %w", err)
	}
	return nil
}
