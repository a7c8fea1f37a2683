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
type drainListener struct {
	net.Listener
	once   sync.Once
	closed atomic.Bool
	err    error
}

func (l *drainListener) Close() error {
	l.once.Do(func() {
		l.closed.Store(true)
		l.err = l.Listener.Close()
	})
	return l.err
}

func (l *drainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.closed.Load() {
		return nil, http.ErrServerClosed
	}
	return c, err
}
