// Package rediscache keeps the answers of the response cache
// (middleware/cache) in Redis (github.com/redis/go-redis/v9), shared by
// every replica that uses the same Redis: a subject's answer computed on
// one replica is served by another. It is a package of its own so that a
// server that caches in memory does not link the Redis client.
//
// An answer is one string key, the prefix and the cache's key (a SHA-256
// of the caller, the tool, its arguments and the rest: see package cache),
// holding the result's JSON, with the TTL as its expiry. Clear, which the
// cache calls when the server's tools change, deletes every key under the
// prefix (SCAN and UNLINK, on every master of a cluster), so a change on
// one replica drops the answers of all.
package rediscache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/middleware/cache"
)

// defaultPrefix starts the keys of a [Store] made without one.
const defaultPrefix = "mcp:cache:"

// Store is a cache.Store on Redis. The caller owns the client (close it
// when done).
type Store struct {
	c      redis.UniversalClient
	prefix string
}

var _ cache.Store = (*Store)(nil)

// New returns a store on c whose keys start with prefix (empty:
// "mcp:cache:"). Servers whose answers must not mix (other tools under
// the same names) use different prefixes.
func New(c redis.UniversalClient, prefix string) *Store {
	if prefix == "" {
		prefix = defaultPrefix
	}
	return &Store{c: c, prefix: prefix}
}

// Get implements cache.Store.
func (s *Store) Get(ctx context.Context, key string) (*mcp.ContentResult, bool, error) {
	b, err := s.c.Get(ctx, s.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("rediscache: GET: %w", err)
	}
	var res mcp.ContentResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, false, fmt.Errorf("rediscache: an answer that does not decode under %s: %w", s.prefix+key, err)
	}
	return &res, true, nil
}

// Set implements cache.Store.
func (s *Store) Set(ctx context.Context, key string, res *mcp.ContentResult, ttl time.Duration) error {
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("rediscache: encoding the answer: %w", err)
	}
	if err := s.c.Set(ctx, s.prefix+key, b, ttl).Err(); err != nil {
		return fmt.Errorf("rediscache: SET: %w", err)
	}
	return nil
}

// Clear implements cache.Store: every key under the prefix is deleted.
func (s *Store) Clear(ctx context.Context) error {
	scanUnlink := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, s.prefix+"*", 1000).Iterator()
		var batch []string
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			err := c.Unlink(ctx, batch...).Err()
			batch = batch[:0]
			return err
		}
		for iter.Next(ctx) {
			batch = append(batch, iter.Val())
			if len(batch) == 1000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := iter.Err(); err != nil {
			return err
		}
		return flush()
	}
	var err error
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		// A key lives on one master; one UNLINK per key keeps every
		// command within one slot.
		err = cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			iter := m.Scan(ctx, 0, s.prefix+"*", 1000).Iterator()
			for iter.Next(ctx) {
				if err := m.Unlink(ctx, iter.Val()).Err(); err != nil {
					return err
				}
			}
			return iter.Err()
		})
	} else {
		err = scanUnlink(ctx, s.c)
	}
	if err != nil {
		return fmt.Errorf("rediscache: clearing %s*: %w", s.prefix, err)
	}
	return nil
}
