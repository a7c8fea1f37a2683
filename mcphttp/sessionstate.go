package mcphttp

import (
	"sync"
	"sync/atomic"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// sessionState is the live side of a session in this process: in-flight
// requests, requests waiting for the client, and the GET stream's queue.
type sessionState struct {
	h           *Handler
	sess        *sessionstate.Session
	ephemeral   bool // a stateless request's throw-away session
	rev20260728 bool // a 2026-07-28 request's throw-away session (rev20260728.go)
	// closed and rootsOK are guarded by mu; they sit here, with the
	// other small fields, so that no field is padded to a word of its
	// own (every session holds a sessionState).
	closed  bool
	rootsOK bool
	// registered is set once the session is saved (Handler.register, or
	// found in the store): only then does a response name its ID.
	registered atomic.Bool

	mu sync.Mutex
	// The requests in flight, by IDKey, with what cancels each: the
	// first in one inline pair, others in a map made only while two or
	// more run at once. An idle session holds neither: a map kept from
	// its first request would cost every session about 200 bytes.
	firstKey    string
	firstCancel canceller
	inflight    map[string]canceller
	pending     map[string]chan *jsonrpc.Message
	roots       []mcp.Root
	streams     map[string]*stream // resumable request streams (resume.go)
	streamSeq   uint64

	// The GET stream's queue of server-initiated messages, and the signal
	// that it has some. Both are made on first use: most sessions never
	// get a server-initiated message, and an idle session should cost
	// little (a 256-slot channel made up front would be 6 KiB of each).
	out  [][]byte
	wake chan struct{}
	// slots bounds the session's requests running at once
	// (Options.MaxSessionRequests); made when two first overlap (see
	// acquireSession; until then slotHeld, guarded by mu, says whether
	// one runs).
	slots chan struct{}
	// client is the key the session counts against in
	// Options.MaxSessionsPerClient ("" when not counted); counted says it
	// holds a slot of the session caps, which ending it frees.
	client string

	nextID atomic.Int64
	// gets counts the session's open GET streams (a replaced one counts
	// until it has ended); get is the newest, which a later GET replaces.
	gets     atomic.Int32
	get      *getStream
	counted  bool // see client
	slotHeld bool // see slots

	// done is closed when the session ends. It is made on first use
	// (doneCh), by the few waits that need it (a server-to-client
	// request, the GET stream, a slot wait, resumable streams): an idle
	// session holds no channel.
	done chan struct{}
}

// closedDone is the done channel of a sessionState closed before anything
// asked for it.
var closedDone = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// doneCh returns a channel closed when the session ends.
func (c *sessionState) doneCh() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.closed {
			c.done = closedDone
		} else {
			c.done = make(chan struct{})
		}
	}
	return c.done
}

func newSessionState(h *Handler, sess *sessionstate.Session, ephemeral bool) *sessionState {
	c := &sessionState{h: h, sess: sess, ephemeral: ephemeral}
	c.nextID.Store(h.replica)
	return c
}

func (h *Handler) newSessionState(sess *sessionstate.Session, ephemeral bool) *sessionState {
	if sess == nil {
		sess = &sessionstate.Session{}
	}
	return newSessionState(h, sess, ephemeral)
}

func (c *sessionState) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if c.firstCancel != nil {
		c.firstCancel.cancel(errCancelled)
	}
	for _, r := range c.inflight {
		r.cancel(errCancelled)
	}
	done := c.done
	c.mu.Unlock()
	if done != nil {
		close(done)
	}
}

func (c *sessionState) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstCancel == nil && len(c.inflight) == 0 && c.gets.Load() == 0
}

func (c *sessionState) track(key string, cancel canceller) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	// A key is in one place at most: a request that reuses the ID of one
	// in flight replaces it, wherever that one is.
	if c.firstCancel != nil && c.firstKey == key {
		c.firstCancel = cancel
		return true
	}
	if _, ok := c.inflight[key]; ok || c.firstCancel != nil {
		if c.inflight == nil {
			c.inflight = map[string]canceller{}
		}
		c.inflight[key] = cancel
		return true
	}
	c.firstKey, c.firstCancel = key, cancel
	return true
}

func (c *sessionState) untrack(key string) {
	c.mu.Lock()
	if c.firstCancel != nil && c.firstKey == key {
		c.firstKey, c.firstCancel = "", nil
	} else {
		delete(c.inflight, key)
		if len(c.inflight) == 0 {
			c.inflight = nil
		}
	}
	c.mu.Unlock()
}

func (c *sessionState) cancel(key string) {
	c.mu.Lock()
	cancel := c.inflight[key]
	if c.firstCancel != nil && c.firstKey == key {
		cancel = c.firstCancel
	}
	c.mu.Unlock()
	if cancel != nil {
		cancel.cancel(errCancelled)
	}
}

// deliver routes a client's response to the server request waiting for
// it. It returns false for the answer to a request another replica sent
// (its ID carries that replica's tag, see Handler.replica): answers are
// not routed between replicas, and the caller refuses it.
func (c *sessionState) deliver(m *jsonrpc.Message) bool {
	key := m.IDKey()
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch == nil {
		if c.h.otherReplica(key) {
			if c.h.relayTo(c, key, m) {
				return true
			}
			c.h.warned.foreignAnswer.warn(c.h.log, "mcp: a response answers a request another replica sent; refused (server-to-client requests need sticky sessions)",
				"session", c.sess.ID, "id", strictjson.ForLog(key))
			return false
		}
		c.h.warned.strayAnswer.warn(c.h.log, "mcp: a response matches no request the server sent; dropped", "session", c.sess.ID, "id", strictjson.ForLog(key))
		return true
	}
	// The message aliases the pooled request body: copy what we keep.
	cp := &jsonrpc.Message{ID: clone(m.ID), Result: clone(m.Result), Error: clone(m.Error)}
	ch <- cp
	return true
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// enqueue puts a server-initiated message on the GET stream's queue. When
// the queue holds maxQueued messages the message is dropped, and the drop
// logged.
func (c *sessionState) enqueue(msg []byte) {
	if c.ephemeral {
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if len(c.out) >= maxQueued {
		c.mu.Unlock()
		c.h.warned.slowReader.warn(c.h.log, "mcp: the session's GET stream queue is full (no client reading it?); message dropped",
			"session", c.sess.ID, "queue", maxQueued)
		return
	}
	c.out = append(c.out, msg)
	wake := c.wakeLocked()
	c.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// requeue puts messages a broken GET stream could not write back at the
// front of the queue, for the next stream.
func (c *sessionState) requeue(msgs [][]byte) {
	c.mu.Lock()
	if !c.closed {
		c.out = append(msgs, c.out...)
		if len(c.out) > maxQueued {
			c.out = c.out[:maxQueued]
		}
	}
	c.mu.Unlock()
}

// takeQueued empties the GET stream's queue and returns what it held.
func (c *sessionState) takeQueued() [][]byte {
	c.mu.Lock()
	msgs := c.out
	c.out = nil
	c.mu.Unlock()
	return msgs
}

// wakeup returns the channel that signals queued messages.
func (c *sessionState) wakeup() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wakeLocked()
}

func (c *sessionState) wakeLocked() chan struct{} {
	if c.wake == nil {
		c.wake = make(chan struct{}, 1)
	}
	return c.wake
}
