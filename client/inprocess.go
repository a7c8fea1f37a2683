package client

import (
	"bytes"
	"context"
	"encoding/json"
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

func (c *inProcessConn) Send(_ context.Context, msg []byte) error {
	// The request lives as long as the connection, not the caller's
	// ctx, as over HTTP: a caller that gives up sends
	// notifications/cancelled.
	m := append([]byte(nil), msg...)
	if isInitialize(m) {
		// The session's id is kept once the handler returns, and every
		// later request must carry it: initialize runs to its end before
		// Send returns (the server asks nothing during it).
		c.mu.Lock()
		closing := c.closing
		c.mu.Unlock()
		if closing {
			return ErrClosed
		}
		c.ic.Send(c.ctx, m, c.emit)
		return nil
	}
	return c.run(func() { c.ic.Send(c.ctx, m, c.emit) })
}

// isInitialize reports whether msg is an initialize request.
func isInitialize(msg []byte) bool {
	if !bytes.Contains(msg, []byte(`"initialize"`)) {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == "initialize"
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
