package proxy_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client"
)

// taps are upstream connections a test can speak on as the upstream
// would: it injects messages the gateway's client reads as the
// upstream's, and reads the gateway's answers to injected requests. Each
// is named by whose connection it is.
type taps struct {
	mu   sync.Mutex
	byID map[string]*tapConn
	seen chan string // the name of each connection opened
}

func newTaps() *taps { return &taps{byID: map[string]*tapConn{}, seen: make(chan string, 16)} }

// transport wraps inner: its connections are tapped under name.
func (ts *taps) transport(name string, inner client.Transport) client.Transport {
	return tapTransport{ts: ts, name: name, inner: inner}
}

// get returns the latest connection opened under name.
func (ts *taps) get(t *testing.T, name string) *tapConn {
	t.Helper()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	c := ts.byID[name]
	require.NotNil(t, c, "no upstream connection was opened for %s", name)
	return c
}

type tapTransport struct {
	ts    *taps
	name  string
	inner client.Transport
}

func (t tapTransport) Connect(ctx context.Context) (client.Conn, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &tapConn{Conn: conn, in: make(chan []byte, 16), replies: make(chan map[string]json.RawMessage, 16),
		recv: make(chan recvd, 16), done: make(chan struct{})}
	go c.pump()
	t.ts.mu.Lock()
	t.ts.byID[t.name] = c
	t.ts.mu.Unlock()
	t.ts.seen <- t.name
	return c, nil
}

// tapConn is a client.Conn whose reads the test can add to and whose
// answers to the injected requests (ids "inj-…") it gets.
type tapConn struct {
	client.Conn
	in      chan []byte
	replies chan map[string]json.RawMessage
	recv    chan recvd
	done    chan struct{}
	once    sync.Once
}

type recvd struct {
	b   []byte
	err error
}

// pump reads the inner connection until it ends.
func (c *tapConn) pump() {
	for {
		b, err := c.Conn.Recv(context.Background())
		select {
		case c.recv <- recvd{b, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// inject makes the gateway's client read msg as the upstream's.
func (c *tapConn) inject(msg string) { c.in <- []byte(msg) }

func (c *tapConn) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case r := <-c.recv:
		return r.b, r.err
	case <-c.done:
		return nil, client.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *tapConn) Send(ctx context.Context, msg []byte) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) == nil && m["method"] == nil && strings.HasPrefix(string(m["id"]), `"inj-`) {
		c.replies <- m
		return nil
	}
	return c.Conn.Send(ctx, msg)
}

func (c *tapConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { close(c.done) })
	return err
}
