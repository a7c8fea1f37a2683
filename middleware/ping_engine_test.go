package middleware_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// engineClient is a minimal Streamable HTTP client for the tests below.
type engineClient struct {
	t       *testing.T
	url     string
	http    *http.Client
	session string
}

// request builds a request in the client's session, if any.
func (c *engineClient) request(ctx context.Context, method, body string) *http.Request {
	var session []string
	if c.session != "" {
		session = []string{"Mcp-Session-Id", c.session, "MCP-Protocol-Version", string(mcp.Version20251125)}
	}
	return wiretest.NewRequest(ctx, method, c.url, body, session...)
}

func (c *engineClient) post(ctx context.Context, body string) *http.Response {
	c.t.Helper()
	resp, err := c.http.Do(c.request(ctx, http.MethodPost, body))
	require.NoError(c.t, err)
	return resp
}

// connect initializes a session and opens its GET stream.
func (c *engineClient) connect(ctx context.Context) *http.Response {
	c.t.Helper()
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+string(mcp.Version20251125)+
		`","capabilities":{},"clientInfo":{"name":"ping-test","version":"1.0.0"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(c.t, http.StatusOK, resp.StatusCode)
	c.session = resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(c.t, c.session)
	resp = c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	require.Equal(c.t, http.StatusAccepted, resp.StatusCode)

	stream, err := c.http.Do(c.request(ctx, http.MethodGet, ""))
	require.NoError(c.t, err)
	require.Equal(c.t, http.StatusOK, stream.StatusCode)
	return stream
}

// newEngine serves a real mcphttp handler behind the ping middleware.
func newEngine(t *testing.T, opts *middleware.PingOptions) (*engineClient, *logBuffer) {
	t.Helper()
	logger, logs := newLogger()
	// The engine's own pings are off: these tests drive the middleware.
	srv := mcp.NewServer(mcp.Options{Name: "ping-test", Version: "1.0.0", Logger: logger})
	h := mcphttp.New(srv, &mcphttp.Options{Logger: logger, Ping: &middleware.PingOptions{Disabled: true}})
	opts.Logger = logger
	pg := middleware.NewPing(h, opts)
	ts := httptest.NewServer(alice.New(middleware.RequestLog(logger), pg.Middleware).Then(h))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = h.Close() }) // ends the streams, so ts.Close need not wait
	t.Cleanup(pg.Close)
	return &engineClient{t: t, url: ts.URL, http: ts.Client()}, logs
}

func countMsg(t *testing.T, logs *logBuffer, msg string) int {
	n := 0
	for _, l := range logs.lines(t) {
		if l["msg"] == msg {
			n++
		}
	}
	return n
}

func TestPingEngineAnswered(t *testing.T) {
	t.Parallel()
	c, logs := newEngine(t, &middleware.PingOptions{Interval: 20 * time.Millisecond, Timeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	stream := c.connect(ctx)
	defer stream.Body.Close()

	// Read the stream and answer each ping, as a client does.
	answered := 0
	sc := bufio.NewScanner(stream.Body)
	for answered < 3 && sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &msg))
		require.Equal(t, "ping", msg.Method)
		resp := c.post(ctx, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{}}`)
		resp.Body.Close()
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
		answered++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 3, answered)
	require.Eventually(t, func() bool { return countMsg(t, logs, "mcp ping answered") >= 3 },
		10*time.Second, 10*time.Millisecond)
	assert.Zero(t, countMsg(t, logs, "mcp ping failed"))
}

func TestPingEngineUnansweredEndsSession(t *testing.T) {
	t.Parallel()
	c, logs := newEngine(t, &middleware.PingOptions{Interval: 20 * time.Millisecond, Timeout: 50 * time.Millisecond, MaxFailures: 2})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	stream := c.connect(ctx)
	defer stream.Body.Close()

	// A client that reads the stream but never answers: the engine closes
	// the stream when the middleware ends the session.
	body, err := io.ReadAll(stream.Body)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(body), `"method":"ping"`))
	assert.Equal(t, 2, countMsg(t, logs, "mcp ping failed"))
	assert.Equal(t, 1, countMsg(t, logs, "mcp session ended: its client did not answer pings"))

	resp := c.post(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the session is gone")
}
