// Package redisstorage is a providers.TokenStorage on Redis (or Valkey,
// KeyDB, Dragonfly), so that several instances of an OAuth proxy share
// their clients, logins and tokens. It is a package of its own so that a
// server whose proxy keeps its state in memory does not link the Redis
// client.
package redisstorage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/internal/redisurl"
	"github.com/mcpchain/mcp/providers"
)

// Storage is a providers.TokenStorage on Redis (or Valkey, KeyDB, Dragonfly):
// several server instances pointing at one Redis share their clients,
// logins and tokens. Every command and script touches one key, so it works
// with Redis Cluster (TestClusterStorage checks it on one). It needs
// Redis 6.2 or later (GETDEL) with Lua scripting.
// Run Redis with maxmemory-policy noeviction (or a volatile-* policy): an
// LRU policy would silently drop client registrations.
//
// Client registrations count against MaxClients, kept in one sorted set
// ({prefix}clients: client key by expiry time), and authorizations in
// progress against MaxTransactions, in another ({prefix}txns): the
// records anyone can create without logging in have quotas of their own,
// so a flood of them fills its quota, never the memory the logins need.
// Size Redis for them: a registration or a transaction takes about 5 KB
// at most, so the default quotas need some 100 MB beside the logins.
type Storage struct {
	// MaxClients caps the number of live client registrations; Put of a
	// new one beyond it fails with providers.ErrStorageFull. Set it before the
	// storage is used. Default (0): 10 000.
	MaxClients int
	// MaxTransactions caps the number of live authorizations in progress
	// (keys starting with providers.TransactionKeyPrefix), as MaxClients
	// does registrations. Default (0): 10 000.
	MaxTransactions int

	c      redis.UniversalClient
	prefix string
	owned  bool
}

// swapScript is Swap: replace a present key's value and TTL, return the old.
var swapScript = redis.NewScript(`
local old = redis.call('GET', KEYS[1])
if not old then return false end
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return old`)

// admitScript admits a counted key into the quota set KEYS[1]: it drops
// the expired members, then adds ARGV[1] (expiring at now + ARGV[2] ms, 0:
// never) unless it is new and the set holds ARGV[3] members. 1: admitted.
var admitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
local exp = '+inf'
if tonumber(ARGV[2]) > 0 then exp = now + tonumber(ARGV[2]) end
redis.call('ZADD', KEYS[1], exp, ARGV[1])
return 1`)

// quota names the sorted set and the cap a key counts against: client
// registrations and transactions have one each; other keys none ("").
func (s *Storage) quota(key string) (set string, max int) {
	switch {
	case strings.HasPrefix(key, providers.ClientKeyPrefix):
		set, max = "clients", s.MaxClients
	case strings.HasPrefix(key, providers.TransactionKeyPrefix):
		set, max = "txns", s.MaxTransactions
	default:
		return "", 0
	}
	if max <= 0 {
		max = 10_000
	}
	return s.prefix + set, max
}

// admit counts a key against its quota before it is written.
func (s *Storage) admit(ctx context.Context, key string, ttl time.Duration) error {
	set, max := s.quota(key)
	if set == "" {
		return nil
	}
	ok, err := admitScript.Run(ctx, s.c, []string{set}, key, ttl.Milliseconds(), max).Int()
	if err != nil {
		return err
	}
	if ok != 1 {
		return providers.ErrStorageFull
	}
	return nil
}

// New returns a storage on c, prefixing every key with prefix
// (default "mcp:oauth:"). Close does not close c; the caller owns it.
func New(c redis.UniversalClient, prefix string) *Storage {
	if prefix == "" {
		prefix = "mcp:oauth:"
	}
	return &Storage{c: c, prefix: prefix}
}

// Open connects to the Redis at url ("redis://host:6379/0",
// "rediss://…" for TLS) or to a Redis Cluster
// ("redis://host1:6379?addr=host2:6379&addr=host3:6379", or
// "host1:6379,host2:6379,…"), checks it answers, and returns a storage
// that closes the connection on Close.
func Open(ctx context.Context, url string) (*Storage, error) {
	c, err := redisurl.New(url)
	if err != nil {
		return nil, fmt.Errorf("redisstorage: bad Redis URL: %w", err)
	}
	if err := redisurl.Ping(ctx, c); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("redisstorage: Redis at %s does not answer: %w", url, err)
	}
	s := New(c, "")
	s.owned = true
	return s, nil
}

// Put implements providers.TokenStorage with SET … PX.
func (s *Storage) Put(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return err
	}
	if err := s.admit(ctx, key, ttl); err != nil {
		return err
	}
	return s.c.Set(ctx, s.prefix+key, val, ttl).Err()
}

// PutIfAbsent implements providers.TokenStorage with SET … NX PX.
func (s *Storage) PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return false, err
	}
	if err := s.admit(ctx, key, ttl); err != nil {
		return false, err
	}
	err := s.c.SetArgs(ctx, s.prefix+key, val, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// Swap implements providers.TokenStorage with a Lua script (GET, then SET when
// present), which Redis runs atomically.
func (s *Storage) Swap(ctx context.Context, key string, val []byte, ttl time.Duration) ([]byte, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return nil, err
	}
	b, err := swapScript.Run(ctx, s.c, []string{s.prefix + key}, val, ttl.Milliseconds()).Text()
	return notFound(key)([]byte(b), err)
}

// Update implements providers.TokenStorage with SET … XX PX.
func (s *Storage) Update(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return false, err
	}
	err := s.c.SetArgs(ctx, s.prefix+key, val, redis.SetArgs{Mode: "XX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if set, _ := s.quota(key); err == nil && set != "" {
		// Slide the key's expiry in the quota set too (XX: only if counted).
		exp := "+inf"
		if ttl > 0 {
			exp = fmt.Sprint(time.Now().Add(ttl).UnixMilli())
		}
		err = s.c.Do(ctx, "ZADD", set, "XX", exp, key).Err()
	}
	return err == nil, err
}

// Get implements providers.TokenStorage.
func (s *Storage) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkArgs(ctx, key, 0); err != nil {
		return nil, err
	}
	return notFound(key)(s.c.Get(ctx, s.prefix+key).Bytes())
}

// Take implements providers.TokenStorage with GETDEL, which is atomic. A
// counted key frees its place in its quota at once.
func (s *Storage) Take(ctx context.Context, key string) ([]byte, error) {
	if err := checkArgs(ctx, key, 0); err != nil {
		return nil, err
	}
	b, err := notFound(key)(s.c.GetDel(ctx, s.prefix+key).Bytes())
	if set, _ := s.quota(key); err == nil && set != "" {
		// Best effort: a place not freed now is freed when the key's
		// expiry passes.
		_ = s.c.ZRem(ctx, set, key).Err()
	}
	return b, err
}

// Delete implements providers.TokenStorage.
func (s *Storage) Delete(ctx context.Context, key string) error {
	if err := checkArgs(ctx, key, 0); err != nil {
		return err
	}
	if set, _ := s.quota(key); set != "" {
		if err := s.c.ZRem(ctx, set, key).Err(); err != nil {
			return err
		}
	}
	return s.c.Del(ctx, s.prefix+key).Err()
}

// Close closes the connection if Open made it.
func (s *Storage) Close() error {
	if s.owned {
		return s.c.Close()
	}
	return nil
}

func notFound(key string) func([]byte, error) ([]byte, error) {
	return func(b []byte, err error) ([]byte, error) {
		if errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("%w: %s", providers.ErrNotFound, key)
		}
		return b, err
	}
}

// checkArgs refuses what every providers.TokenStorage refuses: a done
// context, an empty key, a negative TTL.
func checkArgs(ctx context.Context, key string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("redisstorage: empty storage key")
	}
	if ttl < 0 {
		return fmt.Errorf("redisstorage: negative TTL %v for key %s", ttl, key)
	}
	return nil
}

var _ providers.TokenStorage = (*Storage)(nil)
