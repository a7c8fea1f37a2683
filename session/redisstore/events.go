package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/session"
)

// maxEvents bounds the entries a stream keeps, as the memory event store
// does; the oldest go first.
const maxEvents = 1024

// EventStore is a session.EventStore on Redis Streams: one stream key per
// request stream, whose entry IDs are "1-<n>" so that XRANGE and XREAD
// BLOCK read "after n" directly, trimmed to the last 1024 entries and
// expiring TTL after its last append. A replica that resumes a stream
// made on another one tails it with XREAD BLOCK: no pub/sub is needed.
type EventStore struct {
	c      redis.UniversalClient
	prefix string
	ttl    time.Duration
}

// NewEventStore returns an event store on c whose keys start with
// prefix (default "mcp:ev:") and expire ttl after the last append
// (0: one hour). The caller owns c.
func NewEventStore(c redis.UniversalClient, prefix string, ttl time.Duration) *EventStore {
	if prefix == "" {
		prefix = "mcp:ev:"
	}
	if ttl <= 0 {
		ttl = time.Hour
	}
	return &EventStore{c: c, prefix: prefix, ttl: ttl}
}

func (s *EventStore) key(sessionID, streamID string) string {
	return s.prefix + "{" + sessionID + "}:" + streamID
}

// Append implements session.EventStore.
func (s *EventStore) Append(ctx context.Context, sessionID, streamID string, ev session.Event) error {
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
		return fmt.Errorf("redisstore: redis XADD: %w", err)
	}
	return nil
}

func toEvents(msgs []redis.XMessage) ([]session.Event, error) {
	out := make([]session.Event, 0, len(msgs))
	for _, m := range msgs {
		var n int
		if _, err := fmt.Sscanf(m.ID, "1-%d", &n); err != nil {
			return nil, fmt.Errorf("redisstore: a stored event has the ID %q", m.ID)
		}
		d, _ := m.Values["d"].(string)
		f, _ := m.Values["f"].(string)
		out = append(out, session.Event{N: n, Data: []byte(d), Final: f == "1"})
	}
	return out, nil
}

// After implements session.EventStore.
func (s *EventStore) After(ctx context.Context, sessionID, streamID string, after int, wait time.Duration) ([]session.Event, error) {
	key := s.key(sessionID, streamID)
	first, err := s.c.XRangeN(ctx, key, "-", "+", 1).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis XRANGE: %w", err)
	}
	if len(first) == 0 {
		return nil, session.ErrNotFound
	}
	if evs, err := toEvents(first); err != nil {
		return nil, err
	} else if evs[0].N > after+1 {
		return nil, session.ErrNotFound // what follows `after` was trimmed
	}
	from := "1-" + strconv.Itoa(after)
	if after < 0 {
		from = "0-0" // from the priming event on
	}
	res, err := s.c.XRange(ctx, key, "("+from, "+").Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis XRANGE: %w", err)
	}
	if len(res) > 0 || wait <= 0 {
		return toEvents(res)
	}
	streams, err := s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{key, from}, Block: wait}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis XREAD: %w", err)
	}
	var out []session.Event
	for _, st := range streams {
		evs, err := toEvents(st.Messages)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

// Delete implements session.EventStore.
func (s *EventStore) Delete(ctx context.Context, sessionID, streamID string) error {
	if err := s.c.Del(ctx, s.key(sessionID, streamID)).Err(); err != nil {
		return fmt.Errorf("redisstore: redis DEL: %w", err)
	}
	return nil
}
