// Package redisstore keeps MCP sessions, tasks and resumable streams in
// Redis (github.com/redis/go-redis/v9), so that every replica of a server
// that shares the Redis serves any session: [Store] is a session.Store and
// a session.TaskStore, [EventStore] a session.EventStore, and [Relay] a
// session.Relay. It is a package of its own so that a server that keeps
// its sessions in memory does not link the Redis client.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/session"
)

// Options configure a [Store]. The zero value is usable.
type Options struct {
	// Prefix starts every key the store writes. Default "mcp:sess:".
	Prefix string
	// MaxRetries bounds the attempts of an Update that lost a race with
	// another writer. Default 16.
	MaxRetries int
	// Cache, when set, keeps copies of session records in the process,
	// invalidated through Redis pub/sub, so that a session in use costs
	// Redis one round trip per lease rather than one per request; see
	// [CacheOptions] for what other replicas see and when. A store with a
	// cache must be closed ([Store.Close]).
	Cache *CacheOptions
}

// Store is a session.Store and a session.TaskStore on Redis, shared
// by every replica that uses the same Redis: a session made on one replica
// is served by any. A record is one string key holding its JSON, with the
// idle TTL as the key's expiry (GETEX restarts it), and Update is a
// WATCH/MULTI transaction. The tools' session state (Record.State) is
// part of that JSON, so it expires and is deleted with the session.
type Store struct {
	c      redis.UniversalClient
	prefix string
	tries  int
	cache  *cache // nil without Options.Cache
}

// New returns a store on c; opts may be nil. The caller owns c (close it
// when done).
func New(c redis.UniversalClient, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = "mcp:sess:"
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 16
	}
	s := &Store{c: c, prefix: o.Prefix, tries: o.MaxRetries}
	if o.Cache != nil {
		s.cache = newCache(c, s.channel(), *o.Cache)
	}
	return s
}

// Close stops the cache's subscription (Options.Cache) and waits for it to
// end; without a cache it does nothing. It does not close the client.
func (s *Store) Close() error {
	if s.cache == nil {
		return nil
	}
	return s.cache.close()
}

func (s *Store) key(id string) string { return s.prefix + "{" + id + "}" }

func decode(b []byte) (*session.Record, error) {
	var rec session.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("redisstore: a stored record is not valid: %w", err)
	}
	return &rec, nil
}

// Create implements session.Store.
func (s *Store) Create(ctx context.Context, rec *session.Record, ttl time.Duration) error {
	if rec == nil || !session.ValidID(rec.ID) {
		return errors.New("redisstore: Create needs a record with a valid ID")
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: encoding the record: %w", err)
	}
	var seq uint64
	if s.cache != nil {
		seq = s.cache.stripe(rec.ID).Load()
	}
	now := time.Now()
	err = s.c.SetArgs(ctx, s.key(rec.ID), b, redis.SetArgs{Mode: "NX", TTL: max(ttl, 0)}).Err()
	if errors.Is(err, redis.Nil) {
		return session.ErrExists
	}
	if err != nil {
		return fmt.Errorf("redisstore: redis SET: %w", err)
	}
	if s.cache != nil {
		s.cache.put(rec.ID, seq, &cached{rec: rec.Clone(), raw: b, checked: now})
	}
	return nil
}

// Get implements session.Store.
func (s *Store) Get(ctx context.Context, id string) (*session.Record, error) {
	b, err := s.c.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		if s.cache != nil {
			s.cache.drop(id)
		}
		return nil, session.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis GET: %w", err)
	}
	return decode(b)
}

// Touch implements session.Store.
func (s *Store) Touch(ctx context.Context, id string, ttl time.Duration) (*session.Record, error) {
	if s.cache != nil {
		return s.touchCached(ctx, id, ttl)
	}
	b, err := s.getex(ctx, id, ttl)
	if err != nil {
		return nil, err
	}
	return decode(b)
}

// getex reads the record of id and restarts its TTL (GETEX; GET when
// ttl <= 0): its bytes, session.ErrNotFound, or the store's error.
func (s *Store) getex(ctx context.Context, id string, ttl time.Duration) ([]byte, error) {
	var cmd *redis.StringCmd
	if ttl > 0 {
		cmd = s.c.GetEx(ctx, s.key(id), ttl)
	} else {
		cmd = s.c.Get(ctx, s.key(id))
	}
	b, err := cmd.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, session.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis GETEX: %w", err)
	}
	return b, nil
}

// Update implements session.Store.
func (s *Store) Update(ctx context.Context, id string, ttl time.Duration, fn func(*session.Record) error) error {
	if s.cache != nil {
		return s.updateCached(ctx, id, ttl, fn)
	}
	_, err := watchUpdate(ctx, s, s.key(id), decode, func(rec *session.Record) error {
		if err := fn(rec); err != nil {
			return err
		}
		rec.ID = id
		return nil
	}, func(p redis.Pipeliner, key string, b []byte) {
		p.Set(ctx, key, b, max(ttl, 0))
		// Stores with a cache drop their copy (in the transaction: no
		// round trip of its own).
		p.Publish(ctx, s.channel(), s.message(id))
	}, "session", id)
	return err
}

// watchUpdate is a read-modify-write of the JSON value at key in a
// WATCH/MULTI transaction, tried again (s.tries times) when another writer
// changed the key in between: decode, fn, encode, then write with set.
// kind and id name the value in errors.
func watchUpdate[T any](ctx context.Context, s *Store, key string, decode func([]byte) (*T, error),
	fn func(*T) error, set func(p redis.Pipeliner, key string, b []byte), kind, id string) (*T, error) {
	var out *T
	txf := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return session.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("redisstore: redis GET: %w", err)
		}
		v, err := decode(b)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
		nb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("redisstore: encoding %s %s: %w", kind, id, err)
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			set(p, key, nb)
			return nil
		})
		if err == nil {
			out = v
		}
		return err
	}
	for range s.tries {
		err := s.c.Watch(ctx, txf, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return nil, fmt.Errorf("redisstore: updating %s %s lost the race with other writers %d times", kind, id, s.tries)
}

// Delete implements session.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if s.cache != nil {
		s.cache.drop(id)
	}
	// Stores with a cache drop their copy: see delScript.
	err := delScript.Run(ctx, s.c, []string{s.key(id)}, s.channel(), s.message(id)).Err()
	if err != nil {
		return fmt.Errorf("redisstore: redis DEL: %w", err)
	}
	return nil
}

// channel is where Update and Delete announce a changed or deleted
// session to the stores with a cache that share the Redis.
func (s *Store) channel() string { return s.prefix + "invalidate" }

// message is what an Update or Delete of id publishes: the writer's
// cache tag ("-" without a cache), so that a cache ignores its own
// messages, and the session ID.
func (s *Store) message(id string) string {
	origin := "-"
	if s.cache != nil {
		origin = s.cache.origin
	}
	return origin + " " + id
}
