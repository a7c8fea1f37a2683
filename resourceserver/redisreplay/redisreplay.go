// Package redisreplay is a resourceserver.ReplayCache on Redis (or
// Valkey, KeyDB, Dragonfly), so that the replicas of a resource server
// refuse a DPoP proof that any of them accepted before:
//
//	cfg.DPoP = &resourceserver.DPoPConfig{ReplayCache: redisreplay.New(rdb, "")}
//
// It is a package of its own so that a server that keeps its replay
// cache in memory does not link the Redis client.
package redisreplay

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/resourceserver"
)

// Cache remembers DPoP proof identifiers in Redis: one key per proof,
// written with SET NX PX, so that of two replicas that get one proof at
// once only one accepts it, and the key goes when the proof would fail
// its time check anyway. One key per command, so Redis Cluster works.
// Run Redis with a maxmemory-policy that does not evict keys with a TTL
// before they expire (noeviction, or volatile-ttl), or an evicted proof
// passes again.
type Cache struct {
	c      redis.UniversalClient
	prefix string
}

var _ resourceserver.ReplayCache = (*Cache)(nil)

// New returns a Cache on c whose keys start with prefix (default
// "mcp:dpop:"). The caller keeps c and closes it.
func New(c redis.UniversalClient, prefix string) *Cache {
	if prefix == "" {
		prefix = "mcp:dpop:"
	}
	return &Cache{c: c, prefix: prefix}
}

// Remember implements resourceserver.ReplayCache: SET prefix+id 1 NX PX
// ttl (at least one millisecond).
func (c *Cache) Remember(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	if id == "" {
		return false, errors.New("redisreplay: empty id")
	}
	return c.c.SetNX(ctx, c.prefix+id, 1, max(ttl, time.Millisecond)).Result()
}
