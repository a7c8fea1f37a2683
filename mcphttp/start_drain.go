package mcphttp

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// freshGrace bounds how long a shutdown waits for the connections the
// server had accepted to deliver their first request (see freshConns).
const freshGrace = time.Second

// freshConns holds the connections [Start]'s server has accepted whose
// first request has not reached the handler yet.
//
// net/http's Server.Shutdown drops every request it reads once it has
// begun: the connection is closed without an answer. A balancer that opens
// a connection per request (nginx's default, HAProxy with http-reuse never)
// sends its request right after the connect, so a request on a connection
// accepted just before a SIGTERM would be lost, and the balancer, having
// sent it, answers 502 rather than try another replica. So a shutdown first
// closes the listener (new connections are refused: the balancer sends
// them elsewhere), then waits, at most freshGrace, until every accepted
// connection's first request has reached the handler, and only then calls
// Server.Shutdown, which lets those requests finish.
type freshConns struct {
	mu      sync.Mutex
	n       int           // connections whose first request has not reached the handler
	changed chan struct{} // closed (and cleared) when n goes down
}

// freshConn is one accepted connection, in its context.
type freshConn struct{ pending atomic.Bool }

type freshConnKey struct{}

// install sets srv's hooks: each new connection is counted until its first
// request reaches the handler, or it closes.
func (f *freshConns) install(srv *http.Server) {
	var byConn sync.Map // net.Conn -> *freshConn, for ConnState
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		fc := &freshConn{}
		fc.pending.Store(true)
		byConn.Store(c, fc)
		f.mu.Lock()
		f.n++
		f.mu.Unlock()
		return context.WithValue(ctx, freshConnKey{}, fc)
	}
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateClosed || s == http.StateHijacked {
			if fc, ok := byConn.LoadAndDelete(c); ok {
				f.done(fc.(*freshConn))
			}
		}
	}
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fc, ok := r.Context().Value(freshConnKey{}).(*freshConn); ok && fc.pending.Load() {
			f.done(fc)
		}
		next.ServeHTTP(w, r)
	})
}

// done records that fc's first request reached the handler, or that fc
// closed.
func (f *freshConns) done(fc *freshConn) {
	if !fc.pending.Swap(false) {
		return
	}
	f.mu.Lock()
	f.n--
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
	f.mu.Unlock()
}

// wait returns once no accepted connection waits for its first request to
// be read, or after freshGrace, or when ctx ends.
func (f *freshConns) wait(ctx context.Context) {
	t := time.NewTimer(freshGrace)
	defer t.Stop()
	for {
		f.mu.Lock()
		if f.n == 0 {
			f.mu.Unlock()
			return
		}
		if f.changed == nil {
			f.changed = make(chan struct{})
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// drainListener is the listener of [Start]'s server. Close stops accepting
// (once; later calls return nil), and the accept loop then ends as for a
// shutdown.
//
// Closing a listening socket resets the connections the kernel completed
// but the server had not yet accepted (its accept queue), and a balancer
// may already have sent a request on one: behind HAProxy, a request on a
// kept-alive client connection is then lost without an answer or a log line
// (the client's connection is closed, for it to retry, which no SDK does
// for a POST), behind nginx it is a 502. Under load the accept loop can lag
// by milliseconds, so even a replica the balancer stopped routing to just
// before its SIGTERM can have such connections. So Close first takes every
// queued connection (takeQueued), and Accept hands them to the server before
// it reports the shutdown.
type drainListener struct {
	net.Listener
	once   sync.Once
	closed atomic.Bool
	err    error

	mu     sync.Mutex
	queued []net.Conn    // taken from the accept queue by Close, not yet handed out
	handed chan struct{} // closed once Accept has handed out every queued connection
	last   sync.Once     // closes handed
}

func (l *drainListener) Close() error {
	l.once.Do(func() {
		queued := takeQueued(l.Listener)
		l.mu.Lock()
		l.queued = queued
		l.handed = make(chan struct{})
		l.mu.Unlock()
		l.closed.Store(true)
		l.err = l.Listener.Close()
	})
	return l.err
}

func (l *drainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.closed.Load() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.queued) > 0 {
			c, l.queued = l.queued[0], l.queued[1:]
			return c, nil
		}
		// net/http's Serve calls Accept again only once it has set up the
		// connection before (its ConnContext has counted it as fresh), so
		// from here every queued connection is the server's.
		l.last.Do(func() { close(l.handed) })
		return nil, http.ErrServerClosed
	}
	return c, err
}

// waitHanded returns once the server's accept loop has taken every
// connection Close found queued, or after freshGrace, or when ctx ends; in
// the last two cases the server is not accepting, and the connections it
// did not take are closed rather than left open.
func (l *drainListener) waitHanded(ctx context.Context) {
	l.mu.Lock()
	handed := l.handed
	l.mu.Unlock()
	if handed == nil {
		return
	}
	t := time.NewTimer(freshGrace)
	defer t.Stop()
	select {
	case <-handed:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.queued {
		_ = c.Close()
	}
	l.queued = nil
}
