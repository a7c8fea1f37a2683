package session

import (
	"context"
	"sync"
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
