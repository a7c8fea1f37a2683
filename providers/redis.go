package providers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisStorage is a [TokenStorage] on Redis (or Valkey, KeyDB, Dragonfly):
// several server instances pointing at one Redis share their clients,
// logins and tokens. Every operation touches one key, so it works with
// Redis Cluster. It needs Redis 6.2 or later (GETDEL). Run Redis with
// maxmemory-policy noeviction (or a volatile-* policy): an LRU policy would
// silently drop client registrations.
type RedisStorage struct {
	c      redis.UniversalClient
	prefix string
	owned  bool
}

// NewRedisStorage returns a storage on c, prefixing every key with prefix
// (default "mcp:oauth:"). Close does not close c; the caller owns it.
func NewRedisStorage(c redis.UniversalClient, prefix string) *RedisStorage {
	if prefix == "" {
		prefix = "mcp:oauth:"
	}
	return &RedisStorage{c: c, prefix: prefix}
}

// OpenRedisStorage connects to the Redis at url ("redis://host:6379/0",
// "rediss://…" for TLS), checks it answers, and returns a storage that
// closes the connection on Close.
func OpenRedisStorage(ctx context.Context, url string) (*RedisStorage, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("providers: bad Redis URL: %w", err)
	}
	c := redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("providers: Redis at %s does not answer: %w", opt.Addr, err)
	}
	s := NewRedisStorage(c, "")
	s.owned = true
	return s, nil
}

// Put implements [TokenStorage] with SET … PX.
func (s *RedisStorage) Put(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return err
	}
	return s.c.Set(ctx, s.prefix+key, val, ttl).Err()
}

// PutIfAbsent implements [TokenStorage] with SET … NX PX.
func (s *RedisStorage) PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return false, err
	}
	err := s.c.SetArgs(ctx, s.prefix+key, val, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// Get implements [TokenStorage].
func (s *RedisStorage) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkArgs(ctx, key, 0); err != nil {
		return nil, err
	}
	return notFound(key)(s.c.Get(ctx, s.prefix+key).Bytes())
}

// Take implements [TokenStorage] with GETDEL, which is atomic.
func (s *RedisStorage) Take(ctx context.Context, key string) ([]byte, error) {
	if err := checkArgs(ctx, key, 0); err != nil {
		return nil, err
	}
	return notFound(key)(s.c.GetDel(ctx, s.prefix+key).Bytes())
}

// Delete implements [TokenStorage].
func (s *RedisStorage) Delete(ctx context.Context, key string) error {
	if err := checkArgs(ctx, key, 0); err != nil {
		return err
	}
	return s.c.Del(ctx, s.prefix+key).Err()
}

// Close closes the connection if OpenRedisStorage made it.
func (s *RedisStorage) Close() error {
	if s.owned {
		return s.c.Close()
	}
	return nil
}

func notFound(key string) func([]byte, error) ([]byte, error) {
	return func(b []byte, err error) ([]byte, error) {
		if errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		return b, err
	}
}
