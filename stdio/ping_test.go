package stdio_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/stdio"
)

// pingServer is a stdio server pinged as po says, logging to a buffer.
func pingServer(t *testing.T, po *middleware.PingOptions) (*pipeServer, *syncBuffer) {
	t.Helper()
	var logs syncBuffer
	srv := mcp.NewServer(mcp.Options{Name: "stdio-ping", Version: "1.0.0",
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		return in.S, nil
	})
	h := mcphttp.New(srv, &mcphttp.Options{Ping: po})
	t.Cleanup(func() { _ = h.Close() })
	p := startServe(t, context.Background(), h, nil)
	p.initialize()
	return p, &logs
}

// served waits for Serve to return and gives its error, leaving it for
// startServe's cleanup too.
func (p *pipeServer) served(within time.Duration) (error, bool) {
	select {
	case err := <-p.done:
		p.done <- err
		return err, true
	case <-time.After(within):
		return nil, false
	}
}

// TestStdioPingAnswered: with PingOptions.Stdio the engine pings a stdio
// client at the interval; a client that answers keeps its session.
func TestStdioPingAnswered(t *testing.T) {
	t.Parallel()
	// A long Timeout: on a loaded machine an answer may come later than
	// the interval, and this test is about answered pings.
	p, _ := pingServer(t, &middleware.PingOptions{Stdio: true, Interval: 10 * time.Millisecond, Timeout: 10 * time.Second, MaxFailures: 2})
	for range 5 { // more than MaxFailures: answered pings never add up
		m := p.next()
		require.Equal(t, "ping", m.Method, "the server pings the stdio client")
		require.NotNil(t, m.ID)
		p.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
	}
	p.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"echo","arguments":{"s":"still here"}}}`)
	res, _ := p.response(`"call"`)
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), "still here")
	_, returned := p.served(0)
	assert.False(t, returned, "Serve goes on while the client answers")
}

// TestStdioPingUnansweredEndsServe: a stdio client that leaves
// MaxFailures pings unanswered loses its session, and Serve returns
// ErrSessionEnded, after a warning that names the transport.
func TestStdioPingUnansweredEndsServe(t *testing.T) {
	t.Parallel()
	p, logs := pingServer(t, &middleware.PingOptions{Stdio: true, Interval: 10 * time.Millisecond, MaxFailures: 3})
	err, returned := p.served(10 * time.Second)
	require.True(t, returned, "Serve returns once the session is ended")
	require.ErrorIs(t, err, stdio.ErrSessionEnded)
	pings := 0
	for line := range p.lines { // closed once Serve returned
		if bytes.Contains(line, []byte(`"method":"ping"`)) {
			pings++
		}
	}
	assert.Equal(t, 3, pings, "MaxFailures unanswered pings end the session")
	assert.Contains(t, logs.String(), "mcp session ended: its client did not answer pings")
	assert.Contains(t, logs.String(), "transport=stdio")
}

// TestStdioNotPingedByDefault: without PingOptions.Stdio a stdio client is
// not pinged, however short the interval.
func TestStdioNotPingedByDefault(t *testing.T) {
	t.Parallel()
	p, _ := pingServer(t, &middleware.PingOptions{Interval: 5 * time.Millisecond, MaxFailures: 1})
	// Twenty intervals of the client's own traffic: a ping would show
	// among the answers, and one unanswered would end the session.
	deadline := time.Now().Add(100 * time.Millisecond)
	for i := 0; time.Now().Before(deadline); i++ {
		id := `"c` + string(rune('a'+i%26)) + `"`
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		m, before := p.response(id)
		require.Nil(t, m.Error)
		require.Empty(t, before, "nothing but the answer: no server ping")
		time.Sleep(5 * time.Millisecond) // spread the calls over the intervals
	}
	_, returned := p.served(0)
	assert.False(t, returned)
}

// TestStdioEndSessionEndsServe: the engine ending the one session a stdio
// transport carries (here Handler.EndSession) ends Serve too: every later
// request would get 404.
func TestStdioEndSessionEndsServe(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	h := newHandler(t, srv)
	p := startServe(t, context.Background(), h, nil)
	p.initialize()
	// The answer to a request read after notifications/initialized: the
	// session is initialized, so list changes reach it.
	p.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	p.response(`"sync"`)
	// A list change travels on the session's GET stream: once it is out,
	// the stream is open.
	mcp.AddTool(srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	require.Equal(t, "notifications/tools/list_changed", p.next().Method)
	sessions := h.Sessions()
	require.Len(t, sessions, 1)
	h.EndSession(sessions[0].ID)
	err, returned := p.served(10 * time.Second)
	require.True(t, returned)
	require.ErrorIs(t, err, stdio.ErrSessionEnded)
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
