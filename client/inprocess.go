package client

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/mcpchain/mcp/internal/inproc"
)

// InProcess returns a Transport to an MCP http.Handler in the same
// process (an mcphttp.Handler, or any chain around one): each message goes
// through the handler, and every middleware around it, as a Streamable
// HTTP request would, without a network. header is added to every request
// (credentials, a tenant); it may be nil. For tests and agents.
func InProcess(h http.Handler, header http.Header) Transport {
	return inProcess{h: h, header: header}
}

type inProcess struct {
	h      http.Handler
	header http.Header
}

func (t inProcess) Connect(context.Context) (Conn, error) {
	if t.h == nil {
		// A handler that was never built (mcphttp.Local's error ignored):
		// nothing is served, and the caller is told why.
		return nil, errors.New("mcp client: InProcess has no handler to send to")
	}
	ic := inproc.New(t.h, t.header)
	ic.Transport = inproc.TransportEmbedded
	ctx, cancel := context.WithCancel(context.Background())
	return &inProcessConn{ic: ic, ctx: ctx, cancel: cancel, in: make(chan []byte, 64)}, nil
}

// inProcessConn is a Conn through an inproc.Client: each Send runs the
// handler on a goroutine of its own (a request's answer may wait for the
// client's own answers) and passes on what it writes.
type inProcessConn struct {
	ic     *inproc.Client
	ctx    context.Context // ends with Close: every request in flight
	cancel context.CancelFunc
	in     chan []byte

	mu      sync.Mutex
	closing bool
	wg      sync.WaitGroup
}

func (c *inProcessConn) emit(msg []byte) {
	select {
	case c.in <- msg:
	case <-c.ctx.Done():
	}
}

// run starts fn as one of the connection's goroutines, unless it is
// closing.
func (c *inProcessConn) run(fn func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return ErrClosed
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
	return nil
}

func (c *inProcessConn) Send(ctx context.Context, msg []byte) error {
	// The request lives as long as the connection, not the caller's
	// ctx, as over HTTP: a caller that gives up sends
	// notifications/cancelled.
	m := msg // the client never writes to a message it sent
	if request, initialize := requestOf(m); request && !initialize {
		// A request runs on a goroutine of its own: its answer may wait
		// for the client's own answers.
		id, rev20260728 := ctx.Value(idKey{}).(int64)
		return c.run(func() {
			c.ic.Send(c.ctx, m, c.emit)
			if rev20260728 {
				// A 2026-07-28 request whose stream the handler ended
				// without its response (it closed, it drained) is over:
				// nothing resumes it (an answer already emitted makes
				// this a no-op). A listen stream is then opened again.
				c.emit(streamEnded(id))
			}
		})
	}
	// initialize, a notification or the client's answer runs to its end
	// before Send returns, as an HTTP POST is answered before the client
	// goes on: the session's id is kept once initialize returns and every
	// later request must carry it, and notifications/initialized must
	// have reached the server before the client's next message (the
	// server asks nothing during either).
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return ErrClosed
	}
	c.ic.Send(c.ctx, m, c.emit)
	return nil
}

// requestOf reads a message as the client encodes it (internal/jsonrpc's
// Append functions): whether it is a request (a numeric id, then a
// method), and whether that request is initialize.
func requestOf(msg []byte) (request, initialize bool) {
	rest, ok := bytes.CutPrefix(msg, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok {
		return false, false
	}
	i := 0
	for i < len(rest) && (rest[i] == '-' || '0' <= rest[i] && rest[i] <= '9') {
		i++
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"method":"`))
	if i == 0 || !ok {
		return false, false
	}
	return true, bytes.HasPrefix(rest, []byte(`initialize"`))
}

func (c *inProcessConn) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.ctx.Done():
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *inProcessConn) listen() {
	_ = c.run(func() { c.ic.Listen(c.ctx, c.emit) })
}

func (c *inProcessConn) Close() error {
	c.mu.Lock()
	already := c.closing
	c.closing = true
	c.mu.Unlock()
	if already {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	c.ic.Close(ctx) // DELETE: the session ends, its GET stream with it
	cancel()
	c.cancel()
	c.wg.Wait()
	return nil
}
