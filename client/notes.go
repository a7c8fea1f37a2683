package client

import "sync"

// afterNotesKey is the context key of a call that returns only once the
// callbacks of the notifications read before its answer have run
// (CallOptions.AfterNotifications).
type afterNotesKey struct{}

// noteCount counts the notifications the reader queued for the
// callbacks (queued, the reader's alone) and those whose callbacks ran.
type noteCount struct {
	queued int64

	mu       sync.Mutex
	cond     *sync.Cond
	handled  int64
	finished bool
}

// queue passes m to the callbacks' goroutine, counted. Called by the
// reader only.
func (c *Client) queue(m *message) {
	c.noted.queued++
	c.notes <- m
}

// done counts one notification handled.
func (n *noteCount) done() {
	n.mu.Lock()
	n.handled++
	if n.cond != nil {
		n.cond.Broadcast()
	}
	n.mu.Unlock()
}

// finish releases every waiter: the callbacks' goroutine ended.
func (n *noteCount) finish() {
	n.mu.Lock()
	n.finished = true
	if n.cond != nil {
		n.cond.Broadcast()
	}
	n.mu.Unlock()
}

// wait returns once upTo notifications have been handled, or the
// callbacks' goroutine ended.
func (n *noteCount) wait(upTo int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cond == nil {
		n.cond = sync.NewCond(&n.mu)
	}
	for n.handled < upTo && !n.finished {
		n.cond.Wait()
	}
}
