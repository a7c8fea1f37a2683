package session

import (
	"context"
	"slices"
	"sync"
)

// Relay carries messages to one replica of a server: the answer a client
// posted to replica B for a request replica A sent (sampling, elicitation,
// roots, ping) is relayed to A, which waits for it. Delivery is at most
// once: a message sent while the replica is not subscribed is lost (the
// request then times out). Implementations must be safe for concurrent
// use.
type Relay interface {
	// Send delivers msg to every subscriber of replica, if any (several
	// replicas subscribe to one name for the changes that every one of
	// them hears).
	Send(ctx context.Context, replica string, msg []byte) error
	// Subscribe calls fn with every message sent to replica until stop is
	// called; fn runs on one goroutine, in order.
	Subscribe(ctx context.Context, replica string, fn func(msg []byte)) (stop func(), err error)
}

// MemoryRelay is the in-process [Relay], for replicas in one process
// (tests). A message goes to every subscriber of its replica name, as on
// Redis, where several processes may subscribe to one channel.
type MemoryRelay struct {
	mu   sync.Mutex
	subs map[string][]*memorySub
}

type memorySub struct{ fn func([]byte) }

// NewMemoryRelay returns a relay with no subscribers.
func NewMemoryRelay() *MemoryRelay { return &MemoryRelay{subs: map[string][]*memorySub{}} }

// Send implements Relay.
func (m *MemoryRelay) Send(_ context.Context, replica string, msg []byte) error {
	m.mu.Lock()
	subs := m.subs[replica]
	m.mu.Unlock()
	for _, s := range subs {
		s.fn(append([]byte(nil), msg...))
	}
	return nil
}

// Subscribe implements Relay.
func (m *MemoryRelay) Subscribe(_ context.Context, replica string, fn func([]byte)) (func(), error) {
	s := &memorySub{fn: fn}
	m.mu.Lock()
	m.subs[replica] = append(slices.Clone(m.subs[replica]), s)
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		subs := slices.DeleteFunc(slices.Clone(m.subs[replica]), func(x *memorySub) bool { return x == s })
		if len(subs) == 0 {
			delete(m.subs, replica)
		} else {
			m.subs[replica] = subs
		}
		m.mu.Unlock()
	}, nil
}
