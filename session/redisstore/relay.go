package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Relay is a session.Relay on Redis pub/sub: one channel per replica
// (prefix + replica).
type Relay struct {
	c      redis.UniversalClient
	prefix string
}

// NewRelay returns a relay on c whose channels start with prefix
// (default "mcp:relay:"). The caller owns c.
func NewRelay(c redis.UniversalClient, prefix string) *Relay {
	if prefix == "" {
		prefix = "mcp:relay:"
	}
	return &Relay{c: c, prefix: prefix}
}

// Send implements session.Relay. On a Redis Cluster (a *redis.ClusterClient) the
// message is published through the master of the channel's slot, the node
// ClusterClient.Subscribe listens on: the cluster carries a PUBLISH to
// every node, but the client would send each PUBLISH (a command that names
// no key) to any node, and two messages sent through different nodes can
// arrive in either order.
func (r *Relay) Send(ctx context.Context, replica string, msg []byte) error {
	channel := r.prefix + replica
	var c redis.Cmdable = r.c
	if cc, ok := r.c.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, channel)
		if err != nil {
			return fmt.Errorf("redisstore: redis PUBLISH: %w", err)
		}
		c = node
	}
	if err := c.Publish(ctx, channel, msg).Err(); err != nil {
		return fmt.Errorf("redisstore: redis PUBLISH: %w", err)
	}
	return nil
}

// Subscribe implements session.Relay. It returns once the subscription is
// confirmed.
func (r *Relay) Subscribe(ctx context.Context, replica string, fn func([]byte)) (func(), error) {
	ps := r.c.Subscribe(ctx, r.prefix+replica)
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("redisstore: redis SUBSCRIBE: %w", err)
	}
	ch := ps.Channel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range ch {
			fn([]byte(m.Payload))
		}
	}()
	return func() { _ = ps.Close(); <-done }, nil
}
