package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Relay carries messages to one replica of a server: the answer a client
// posted to replica B for a request replica A sent (sampling, elicitation,
// roots, ping) is relayed to A, which waits for it. Delivery is at most
// once: a message sent while the replica is not subscribed is lost (the
// request then times out). Implementations must be safe for concurrent
// use.
type Relay interface {
	// Send delivers msg to the subscriber of replica, if any.
	Send(ctx context.Context, replica string, msg []byte) error
	// Subscribe calls fn with every message sent to replica until stop is
	// called; fn runs on one goroutine, in order.
	Subscribe(ctx context.Context, replica string, fn func(msg []byte)) (stop func(), err error)
}

// MemoryRelay is the in-process [Relay], for replicas in one process
// (tests).
type MemoryRelay struct {
	mu   sync.Mutex
	subs map[string]func([]byte)
}

// NewMemoryRelay returns a relay with no subscribers.
func NewMemoryRelay() *MemoryRelay { return &MemoryRelay{subs: map[string]func([]byte){}} }

// Send implements Relay.
func (m *MemoryRelay) Send(_ context.Context, replica string, msg []byte) error {
	m.mu.Lock()
	fn := m.subs[replica]
	m.mu.Unlock()
	if fn != nil {
		fn(append([]byte(nil), msg...))
	}
	return nil
}

// Subscribe implements Relay.
func (m *MemoryRelay) Subscribe(_ context.Context, replica string, fn func([]byte)) (func(), error) {
	m.mu.Lock()
	m.subs[replica] = fn
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.subs, replica)
		m.mu.Unlock()
	}, nil
}

// RedisRelay is a [Relay] on Redis pub/sub: one channel per replica
// (prefix + replica).
type RedisRelay struct {
	c      redis.UniversalClient
	prefix string
}

// NewRedisRelay returns a relay on c whose channels start with prefix
// (default "mcp:relay:"). The caller owns c.
func NewRedisRelay(c redis.UniversalClient, prefix string) *RedisRelay {
	if prefix == "" {
		prefix = "mcp:relay:"
	}
	return &RedisRelay{c: c, prefix: prefix}
}

// Send implements Relay. On a Redis Cluster (a *redis.ClusterClient) the
// message is published through the master of the channel's slot, the node
// ClusterClient.Subscribe listens on: the cluster carries a PUBLISH to
// every node, but the client would send each PUBLISH (a command that names
// no key) to any node, and two messages sent through different nodes can
// arrive in either order.
func (r *RedisRelay) Send(ctx context.Context, replica string, msg []byte) error {
	channel := r.prefix + replica
	var c redis.Cmdable = r.c
	if cc, ok := r.c.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, channel)
		if err != nil {
			return fmt.Errorf("session: redis PUBLISH: %w", err)
		}
		c = node
	}
	if err := c.Publish(ctx, channel, msg).Err(); err != nil {
		return fmt.Errorf("session: redis PUBLISH: %w", err)
	}
	return nil
}

// Subscribe implements Relay. It returns once the subscription is
// confirmed.
func (r *RedisRelay) Subscribe(ctx context.Context, replica string, fn func([]byte)) (func(), error) {
	ps := r.c.Subscribe(ctx, r.prefix+replica)
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("session: redis SUBSCRIBE: %w", err)
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
