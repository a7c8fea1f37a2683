package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// legacyEvent is one event of a legacy stream.
type legacyEvent struct{ name, data string }

// legacyClient is a client of the legacy HTTP+SSE transport, written from
// the 2024-11-05 transport spec: a GET stream whose first event names the
// URL to POST messages to.
type legacyClient struct {
	t        testing.TB
	hc       *http.Client
	header   http.Header
	endpoint string
	events   chan legacyEvent // closed when the stream ends
	cancel   context.CancelFunc
	done     chan struct{}
}

// dialLegacy opens a legacy stream at sseURL with extra headers (in
// pairs). It returns the client when the server answered 200 and sent the
// endpoint event, else nil with the refused response and its body.
func dialLegacy(t testing.TB, hc *http.Client, sseURL string, header ...string) (*legacyClient, *http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sseURL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return nil, resp, string(b)
	}
	c := &legacyClient{t: t, hc: hc, header: req.Header.Clone(), events: make(chan legacyEvent, 256), cancel: cancel, done: make(chan struct{})}
	c.header.Del("Accept")
	go c.read(resp.Body)
	t.Cleanup(c.close)
	ev := c.next()
	require.Equal(t, "endpoint", ev.name, "the first event names the messages endpoint")
	base, err := url.Parse(sseURL)
	require.NoError(t, err)
	ep, err := base.Parse(ev.data)
	require.NoError(t, err)
	c.endpoint = ep.String()
	return c, resp, ""
}

// openLegacy is dialLegacy that must succeed.
func openLegacy(t testing.TB, hc *http.Client, sseURL string, header ...string) *legacyClient {
	t.Helper()
	c, resp, body := dialLegacy(t, hc, sseURL, header...)
	require.NotNil(t, c, "GET %s: %d %s", sseURL, resp.StatusCode, body)
	return c
}

func (c *legacyClient) read(body io.ReadCloser) {
	defer close(c.done)
	defer close(c.events)
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	var ev legacyEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 || ev.name != "" {
				ev.data = strings.Join(data, "\n")
				c.events <- ev
			}
			ev, data = legacyEvent{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// close ends the stream from the client side and waits for its reader.
func (c *legacyClient) close() {
	c.cancel()
	<-c.done
}

// next returns the next event; it fails the test after 5 s or when the
// stream ended.
func (c *legacyClient) next() legacyEvent {
	c.t.Helper()
	select {
	case ev, ok := <-c.events:
		require.True(c.t, ok, "the stream ended")
		return ev
	case <-time.After(5 * time.Second):
		c.t.Fatal("no event within 5 s")
	}
	return legacyEvent{}
}

// nextMessage returns the next message on the stream.
func (c *legacyClient) nextMessage() msg {
	c.t.Helper()
	ev := c.next()
	require.Equal(c.t, "message", ev.name)
	var m msg
	require.NoError(c.t, json.Unmarshal([]byte(ev.data), &m), ev.data)
	return m
}

// waitClosed requires the server to end the stream within 5 s.
func (c *legacyClient) waitClosed() {
	c.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-c.events:
			if !ok {
				return
			}
		case <-deadline:
			c.t.Fatal("the server did not close the stream within 5 s")
		}
	}
}

// post sends body to the messages endpoint with the stream's headers (and
// extra ones in pairs; an empty value deletes one).
func (c *legacyClient) post(body string, header ...string) (*http.Response, string) {
	c.t.Helper()
	return legacyPost(c.t, c.hc, c.endpoint, body, append(headerPairs(c.header), header...)...)
}

func headerPairs(h http.Header) []string {
	var out []string
	for k, v := range h {
		out = append(out, k, v[0])
	}
	return out
}

func legacyPost(t testing.TB, hc *http.Client, u, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// send posts one message and requires 202 Accepted.
func (c *legacyClient) send(body string) {
	c.t.Helper()
	resp, b := c.post(body)
	require.Equal(c.t, http.StatusAccepted, resp.StatusCode, b)
	require.Equal(c.t, "Accepted", b)
}

// call sends a request and returns its response from the stream, with the
// messages that came before it.
func (c *legacyClient) call(id int, method, params string) (msg, []msg) {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, id, method)
	if params != "" {
		body += `,"params":` + params
	}
	c.send(body + "}")
	var before []msg
	for {
		m := c.nextMessage()
		if m.IsResponse() && string(m.ID) == fmt.Sprint(id) {
			return m, before
		}
		before = append(before, m)
	}
}

const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"legacy","version":"1.0.0"}}}`

// initialize runs the handshake and returns the initialize result.
func (c *legacyClient) initialize() msg {
	c.t.Helper()
	m, before := c.call(0, "initialize", `{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"legacy","version":"1.0.0"}}`)
	require.Empty(c.t, before)
	require.Nil(c.t, m.Error, "%+v", m.Error)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// legacyHooks records the session hooks' calls.
type legacyHooks struct {
	starts chan mcphttp.SessionInfo
	ends   chan mcphttp.EndReason
}

func newLegacyHooks() (*legacyHooks, *mcphttp.SessionHooks) {
	l := &legacyHooks{starts: make(chan mcphttp.SessionInfo, 8), ends: make(chan mcphttp.EndReason, 8)}
	return l, &mcphttp.SessionHooks{
		OnStart: func(s mcphttp.SessionInfo) { l.starts <- s },
		OnEnd:   func(_ mcphttp.SessionInfo, r mcphttp.EndReason) { l.ends <- r },
	}
}

func (l *legacyHooks) start(t testing.TB) mcphttp.SessionInfo {
	t.Helper()
	select {
	case s := <-l.starts:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("OnStart was not called")
	}
	return mcphttp.SessionInfo{}
}

func (l *legacyHooks) end(t testing.TB) mcphttp.EndReason {
	t.Helper()
	select {
	case r := <-l.ends:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("OnEnd was not called")
	}
	return ""
}

// newLegacyServer serves srv through NewMux with the legacy transport on,
// under prefix when it is not empty.
func newLegacyServer(t testing.TB, srv *mcp.Server, opts *mcphttp.Options, prefix string) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	var o mcphttp.Options
	if opts != nil {
		o = *opts
	}
	o.LegacySSE = true
	h := mcphttp.New(srv, &o)
	var handler http.Handler = mcphttp.NewMux(h, nil)
	if prefix != "" {
		parent := http.NewServeMux()
		parent.Handle(prefix+"/", http.StripPrefix(prefix, handler))
		handler = parent
	}
	ts := httptest.NewServer(handler)
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return ts, h
}

// newLegacyTestServer is the engine test server plus tools that reach the
// client: sampling, and a tool that logs at every level.
func newLegacyTestServer(t testing.TB) *mcp.Server {
	srv := newEngineServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, in struct {
		Q string `json:"q"`
	}) (string, error) {
		res, err := c.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text(in.Q)}}})
		if err != nil {
			return "", err
		}
		return res.Content.(mcp.TextContent).Text, nil
	})
	return srv
}

type legacyTenantKey struct{}
