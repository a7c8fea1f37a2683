package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/stdio"
	"github.com/stretchr/testify/require"
)

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// newEngineServer is the server the engine tests call: tools for every
// outcome a tool can have.
func newEngineServer(t testing.TB, slow *mcptest.Probe) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "mcphttp-test", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
			return strconv.Itoa(in.A + in.B), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "fail"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", errors.New("the disk is full")
	})
	mcp.AddTool(srv, mcp.Tool{Name: "user_error"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", &mcp.UserError{Message: "Please pick a date in the future."}
	})
	mcp.AddTool(srv, mcp.Tool{Name: "panic"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		panic("kaboom")
	})
	mcp.AddTool(srv, mcp.Tool{Name: "timeout", Timeout: 20 * time.Millisecond},
		func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
	mcp.AddTool(srv, mcp.Tool{Name: "log"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Debug("debug message")
		c.Log.Info("info message")
		c.Log.Error("error message", map[string]any{"code": 7})
		return "logged", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "progress"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		for i := 1; i <= 3; i++ {
			if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3}); err != nil {
				return "no progress: " + err.Error(), nil
			}
		}
		return "progressed", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "slow"}, slow.Tool)
	srv.AddResource(mcp.Resource{URI: "mem://hello", Name: "hello", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Hello " + args["name"]), nil
		}})
	return srv
}

// msg is one JSON-RPC message the server sent.
type msg = wiretest.Msg

// httpClient talks to an engine served by httptest.
type httpClient struct {
	t       testing.TB
	url     string
	hc      *http.Client
	sid     string
	version string
}

// newHTTP serves srv with opts and returns a client of it.
func newHTTP(t testing.TB, srv *mcp.Server, opts *mcphttp.Options) (*httpClient, *mcphttp.Handler) {
	t.Helper()
	h := mcphttp.New(srv, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return &httpClient{t: t, url: ts.URL, hc: ts.Client()}, h
}

// do sends a request with the session's headers (and extra ones, in
// pairs) and returns the response with its body read.
func (c *httpClient) do(method, body string, header ...string) (*http.Response, []byte) {
	c.t.Helper()
	return c.doCtx(context.Background(), method, body, header...)
}

// request builds a request with the session's headers, and extra ones in
// pairs (an empty value deletes the header).
func (c *httpClient) request(ctx context.Context, method, body string, header ...string) *http.Request {
	var session []string
	if c.sid != "" {
		session = append(session, "Mcp-Session-Id", c.sid)
	}
	if c.version != "" {
		session = append(session, "MCP-Protocol-Version", c.version)
	}
	return wiretest.NewRequest(ctx, method, c.url, body, append(session, header...)...)
}

func (c *httpClient) doCtx(ctx context.Context, method, body string, header ...string) (*http.Response, []byte) {
	c.t.Helper()
	resp, b, err := wiretest.Do(c.hc, c.request(ctx, method, body, header...))
	require.NoError(c.t, err)
	return resp, b
}

// post sends a JSON-RPC body and returns the status and the messages of
// the answer (a JSON body, a JSON array or an event stream).
func (c *httpClient) post(body string, header ...string) (int, []msg) {
	c.t.Helper()
	resp, b := c.do(http.MethodPost, body, header...)
	return resp.StatusCode, wiretest.ParseMessages(c.t, resp.Header.Get("Content-Type"), b)
}

// initialize starts a session speaking version.
func (c *httpClient) initialize(version string) {
	c.t.Helper()
	c.startSession(version, `{}`, "test", "1.0.0")
}

// initWith starts a 2025-11-25 session with the given client capabilities
// and name.
func (c *httpClient) initWith(caps, name string) {
	c.t.Helper()
	c.startSession(string(mcp.Version20251125), caps, name, "2.0.0")
}

// startSession sends initialize at version with the client capabilities
// caps and clientInfo name and clientVersion, then
// notifications/initialized, each with the extra headers (in pairs); c
// then speaks in the new session.
func (c *httpClient) startSession(version, caps, name, clientVersion string, header ...string) {
	c.t.Helper()
	resp, b := c.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":%q,"version":%q}}}`,
		version, caps, name, clientVersion), header...)
	require.Equal(c.t, http.StatusOK, resp.StatusCode, "%s", b)
	c.sid = resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(c.t, c.sid)
	c.version = version
	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, header...)
	require.Equal(c.t, http.StatusAccepted, status)
}

// call sends one request and returns its response and the messages that
// preceded it on the stream.
func (c *httpClient) call(id int, method, params string) (msg, []msg) {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, id, method)
	if params != "" {
		body += `,"params":` + params
	}
	status, msgs := c.post(body + "}")
	require.Equal(c.t, http.StatusOK, status)
	require.NotEmpty(c.t, msgs)
	last := msgs[len(msgs)-1]
	require.True(c.t, last.IsResponse(), "the response comes last")
	require.Equal(c.t, strconv.Itoa(id), string(last.ID))
	return last, msgs[:len(msgs)-1]
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// stdioConn is a client of a handler served over stdio (stdio.Serve on
// pipes): what it sends is written to the server's stdin, and each
// JSON-RPC message the server writes to stdout comes on lines.
type stdioConn struct {
	t     testing.TB
	in    *io.PipeWriter
	lines chan msg // closed when stdout ends
	seen  []msg    // read by await while it looked for another message
}

// serveStdio serves h over stdio until the test ends; then it closes
// stdin and requires stdio.Serve to return nil. Register h's Close with
// t.Cleanup before calling it, so that the stdio session ends first.
func serveStdio(t testing.TB, h http.Handler) *stdioConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(context.Background(), h, inR, outW, nil)
		_ = outW.Close()
	}()
	p := &stdioConn{t: t, in: inW, lines: make(chan msg, 100)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m msg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not a JSON-RPC message (%v): %s", err, sc.Bytes())
				continue
			}
			p.lines <- m
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		require.NoError(t, <-served)
		for range p.lines {
		}
	})
	return p
}

// send writes line to the server's stdin.
func (p *stdioConn) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(p.t, err)
}

// await returns the first message for which ok holds, of those read so
// far or to come within 10 s.
func (p *stdioConn) await(what string, ok func(msg) bool) msg {
	p.t.Helper()
	for i, m := range p.seen {
		if ok(m) {
			p.seen = append(p.seen[:i], p.seen[i+1:]...)
			return m
		}
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, open := <-p.lines:
			require.True(p.t, open, "stdout closed")
			if ok(m) {
				return m
			}
			p.seen = append(p.seen, m)
		case <-timeout:
			p.t.Fatalf("no %s", what)
		}
	}
}

// response awaits the response whose ID is id (as JSON: `"a"`, `7`).
func (p *stdioConn) response(id string) msg {
	p.t.Helper()
	return p.await("response "+id, func(m msg) bool { return m.IsResponse() && string(m.ID) == id })
}

// sseEvent is one raw SSE event, with the fields the resume tests look at.
type sseEvent struct {
	ID, Retry, Data          string
	HasID, HasRetry, HasData bool
}

func (e sseEvent) msg(t testing.TB) msg {
	t.Helper()
	require.True(t, e.HasData, "event without data: %+v", e)
	var m msg
	require.NoError(t, json.Unmarshal([]byte(e.Data), &m), "%q", e.Data)
	return m
}

// isPriming reports whether e is a priming event: an ID and empty data.
func (e sseEvent) isPriming() bool { return e.HasID && e.HasData && e.Data == "" }

// sseStream reads the events of one response as they come.
type sseStream struct {
	t    testing.TB
	resp *http.Response
	rd   *bufio.Reader
}

// next returns the next event; false at the end of the stream (or when
// the connection broke).
func (s *sseStream) next() (sseEvent, bool) {
	s.t.Helper()
	var ev sseEvent
	seen := false
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			return ev, false // an event is only dispatched by a blank line
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if seen {
				return ev, true
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment (keep-alive)
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		seen = true
		switch name {
		case "id":
			ev.ID, ev.HasID = value, true
		case "retry":
			ev.Retry, ev.HasRetry = value, true
		case "data":
			if ev.HasData {
				ev.Data += "\n"
			}
			ev.Data += value
			ev.HasData = true
		}
	}
}

func (s *sseStream) mustNext() sseEvent {
	s.t.Helper()
	ev, ok := s.next()
	require.True(s.t, ok, "the stream ended early")
	return ev
}

// all reads the events up to the end of the stream.
func (s *sseStream) all() []sseEvent {
	s.t.Helper()
	var out []sseEvent
	for {
		ev, ok := s.next()
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

// open sends a request with the session's headers (and extra ones, in
// pairs) and returns its response unread. ctx bounds the whole exchange;
// cancelling it breaks the connection.
func (c *httpClient) open(ctx context.Context, method, body string, header ...string) *sseStream {
	c.t.Helper()
	req := c.request(ctx, method, body, header...)
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	c.t.Cleanup(func() { resp.Body.Close() })
	return &sseStream{t: c.t, resp: resp, rd: bufio.NewReader(resp.Body)}
}

// sse sends a request and reads its whole event stream.
func (c *httpClient) sse(method, body string, header ...string) []sseEvent {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := c.open(ctx, method, body, header...)
	require.Equal(c.t, http.StatusOK, s.resp.StatusCode)
	require.Equal(c.t, "text/event-stream", s.resp.Header.Get("Content-Type"))
	return s.all()
}

func toolCall(id int, name string, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

// nextData returns the next message on s, past priming events and
// events without data.
func nextData(t testing.TB, s *sseStream) msg {
	t.Helper()
	for {
		if ev := s.mustNext(); ev.HasData && ev.Data != "" {
			return ev.msg(t)
		}
	}
}

// lastData reads s to its end and returns the last message on it (the
// zero msg when there was none).
func lastData(t testing.TB, s *sseStream) msg {
	t.Helper()
	var last msg
	for {
		ev, ok := s.next()
		if !ok {
			return last
		}
		if ev.HasData && ev.Data != "" {
			last = ev.msg(t)
		}
	}
}

// getStream opens the session's GET stream; ctx bounds it.
func (c *httpClient) getStream(ctx context.Context) *sseStream {
	c.t.Helper()
	s := c.open(ctx, http.MethodGet, "", "Accept", "text/event-stream")
	require.Equal(c.t, http.StatusOK, s.resp.StatusCode)
	return s
}

// nextRequest reads the next server-to-client request from s.
func nextRequest(t testing.TB, s *sseStream) msg {
	t.Helper()
	for {
		if m := nextData(t, s); m.Method != "" && m.ID != nil {
			return m
		}
	}
}

// answer posts the client's result for a server request.
func (c *httpClient) answer(id json.RawMessage, result string) {
	c.t.Helper()
	status, _ := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
	require.Equal(c.t, http.StatusAccepted, status)
}

// receive returns the next value of ch, failing the test with failure
// when none comes within d.
func receive[T any](t testing.TB, ch <-chan T, d time.Duration, failure string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatal(failure)
	}
	var zero T
	return zero
}
