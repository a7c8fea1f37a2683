package mcphttp

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// canceller is a request in flight that the client's
// notifications/cancelled, or the end of its session, cancels.
type canceller interface {
	cancel(cause error)
}

// requestContext is the context of a session's request: a child of the
// HTTP request's context that notifications/cancelled cancels with
// errCancelled, and that is cancelled once the request returns, as a
// context.WithCancelCause child would be.
//
// It is such a child, made only when something needs one: until then it
// is a view of its parent. context.WithCancelCause registers the child in
// a map of net/http's per-request context, made afresh for every request
// (the child, its cancel function and that map cost about 3% of the CPU
// of a stateful tools/call), while most requests never ask for
// Done, derive no context and are never cancelled. The real child is made
// the first time one of those happens (Done, a cancel, or a lookup after
// the end), so what the request's code sees is the same:
//
//   - Done, and every context derived from this one (WithCancel,
//     WithTimeout, AfterFunc), works on the real child;
//   - Err and Value (context.Cause looks a context's cancellation up
//     through Value) answer for the parent while nothing has happened to
//     this context, which is what a child that nothing cancelled
//     answers, and for the real child after;
//   - after the request returned, Err is context.Canceled (or the
//     parent's error) and Done is closed, for code that kept the context.
type requestContext struct {
	parent context.Context
	// linked is set once the real child exists or the request ended:
	// from then on Err and Value go through real (made on demand).
	linked atomic.Bool
	// child is the real child once made; read without the lock, so that
	// a tool polling Done pays an atomic load, as on any cancelCtx.
	child atomic.Pointer[realChild]

	mu    sync.Mutex // serializes making the child with the request's end
	ended bool       // the request returned before a child was made
}

// realChild is the context.WithCancelCause child and its cancel function.
type realChild struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// init makes c a view of parent, for a request about to run.
func (c *requestContext) init(parent context.Context) { c.parent = parent }

// real returns the real child, making it on first use. A request that
// already ended gets it cancelled.
func (c *requestContext) real() *realChild {
	if rc := c.child.Load(); rc != nil {
		return rc
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc := c.child.Load(); rc != nil {
		return rc
	}
	ctx, cancel := context.WithCancelCause(c.parent)
	if c.ended {
		cancel(nil)
	}
	rc := &realChild{ctx: ctx, cancel: cancel}
	c.child.Store(rc)
	c.linked.Store(true)
	return rc
}

// cancel cancels the request with cause (errCancelled): the handler's
// context is done, and so is every context derived from it.
func (c *requestContext) cancel(cause error) { c.real().cancel(cause) }

// end is the request's return: a real child is cancelled (which also
// releases its registration with the parent), and otherwise the context
// remembers that it ended, for code that kept it.
func (c *requestContext) end() {
	c.mu.Lock()
	if rc := c.child.Load(); rc != nil {
		rc.cancel(nil)
	} else {
		c.ended = true
		c.linked.Store(true)
	}
	c.mu.Unlock()
}

// cancelledBy reports whether the request was cancelled with cause
// before it returned.
func (c *requestContext) cancelledBy(cause error) bool {
	rc := c.child.Load()
	return rc != nil && context.Cause(rc.ctx) == cause
}

// Deadline implements context.Context: the parent's, which the child
// would inherit.
func (c *requestContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Done implements context.Context.
func (c *requestContext) Done() <-chan struct{} { return c.real().ctx.Done() }

// Err implements context.Context.
func (c *requestContext) Err() error {
	if !c.linked.Load() {
		return c.parent.Err()
	}
	return c.real().ctx.Err()
}

// Value implements context.Context.
func (c *requestContext) Value(key any) any {
	if !c.linked.Load() {
		return c.parent.Value(key)
	}
	return c.real().ctx.Value(key)
}
