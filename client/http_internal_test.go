package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// resumeServer answers the GETs a stream reader sends to resume, each with
// the next body of bodies (an empty stream once they run out), and
// records their Last-Event-ID.
type resumeServer struct {
	mu      sync.Mutex
	bodies  []string
	resumed []string
}

func (s *resumeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method != http.MethodGet {
		return nil, errors.New("resumeServer: only GET")
	}
	s.resumed = append(s.resumed, r.Header.Get("Last-Event-ID"))
	body := ""
	if len(s.bodies) > 0 {
		body, s.bodies = s.bodies[0], s.bodies[1:]
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// brokenBody is a response body that breaks after its text.
type brokenBody struct{ io.Reader }

func (b brokenBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if errors.Is(err, io.EOF) {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func (brokenBody) Close() error { return nil }

// runStream runs the reader of a POST's SSE stream, body, to its end on
// a connection whose resuming GETs srv answers, and returns what it
// delivered.
func runStream(t *testing.T, srv *resumeServer, body io.ReadCloser) (*httpConn, []string) {
	t.Helper()
	tr := HTTP("http://mcp.test/mcp", &HTTPOptions{Client: &http.Client{Transport: srv}}).(*httpTransport)
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	c := conn.(*httpConn)
	t.Cleanup(func() { c.shut() })
	c.stream(&http.Response{StatusCode: http.StatusOK, Body: body}, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
	var got []string
	for {
		select {
		case m := <-c.in:
			got = append(got, string(m))
		default:
			return c, got
		}
	}
}

// The events of a resumable server's stream: a priming event (an id, a
// retry of 1 ms, no data), then messages with ids.
const (
	priming      = "id: s_0\nretry: 1\ndata: \n\n"
	progressNote = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	response     = `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`
)

func TestStreamEndsWithItsResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		body io.ReadCloser
	}{
		{"the server closes the stream after the response",
			io.NopCloser(strings.NewReader(priming + "id: s_1\ndata: " + progressNote + "\n\nid: s_2\ndata: " + response + "\n\n"))},
		{"the connection breaks after the response",
			brokenBody{strings.NewReader(priming + "id: s_1\ndata: " + response + "\n\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &resumeServer{}
			c, got := runStream(t, srv, tc.body)
			assert.Equal(t, response, got[len(got)-1], "the response is delivered")
			assert.Empty(t, srv.resumed, "a stream that carried its response is not resumed")
			assert.NoError(t, c.failed, "the connection goes on")
			select {
			case <-c.done:
				t.Fatal("the connection ended")
			default:
			}
		})
	}
}

func TestStreamResumedUntilItsResponse(t *testing.T) {
	srv := &resumeServer{bodies: []string{"id: s_2\ndata: " + response + "\n\n"}}
	c, got := runStream(t, srv, brokenBody{strings.NewReader(priming + "id: s_1\ndata: " + progressNote + "\n\n")})
	assert.Equal(t, []string{"s_1"}, srv.resumed, "the broken stream is resumed after its last event, once")
	assert.Equal(t, []string{progressNote, response}, got)
	assert.NoError(t, c.failed)
}

// resumingServer is a Streamable HTTP server written by hand: tools/call
// of "a" answers "a" as JSON, any other name is served by call (an SSE
// stream that breaks or ends as the test wants), and every resumption
// (GET with Last-Event-ID) is answered 200 text/event-stream with what
// resume writes for the nth one (from 1), then closed: an empty stream
// when it writes nothing. A GET without Last-Event-ID gets 405.
type resumingServer struct {
	call      func(w http.ResponseWriter, id json.RawMessage)
	resume    func(w http.ResponseWriter, n int)
	cancelled chan struct{} // closed at the first notifications/cancelled

	mu      sync.Mutex
	resumed []string // the Last-Event-ID of each resumption
	once    sync.Once
}

func (s *resumingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		last := r.Header.Get("Last-Event-ID")
		if last == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		s.mu.Lock()
		s.resumed = append(s.resumed, last)
		n := len(s.resumed)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if s.resume != nil {
			s.resume(w, n)
		}
		return
	case http.MethodDelete:
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	answer := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}
	switch m.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "resuming-session")
		answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"resuming","version":"1.0.0"}}`)
	case "tools/call":
		if m.Params.Name == "a" {
			answer(`{"content":[{"type":"text","text":"a"}]}`)
			return
		}
		s.call(w, m.ID)
	case "notifications/cancelled":
		s.once.Do(func() { close(s.cancelled) })
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// resumptions returns the Last-Event-ID of each resumption so far.
func (s *resumingServer) resumptions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.resumed)
}

// writeSSE starts an SSE response if it has not started, and writes
// events.
func writeSSE(w http.ResponseWriter, events ...string) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}
	for _, ev := range events {
		_, _ = io.WriteString(w, ev)
	}
	_ = http.NewResponseController(w).Flush()
}

// breakStream cuts the connection of a streamed response without ending
// the stream: the client's read fails.
func breakStream() { panic(http.ErrAbortHandler) }

// connectResuming connects a client to srv over HTTP (no GET stream,
// MaxRetries 3) and returns it with its connection.
func connectResuming(t *testing.T, srv *resumingServer) (*Client, *httpConn) {
	t.Helper()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := Connect(t.Context(), HTTP(ts.URL, &HTTPOptions{NoListen: true, MaxRetries: 3}), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, c.conn.(*httpConn)
}

// requireAlive requires the connection to go on: not ended, and a call
// still answered.
func requireAlive(t *testing.T, c *Client, conn *httpConn) {
	t.Helper()
	conn.wg.Wait() // the stream readers are done: what they decided is final
	select {
	case <-conn.done:
		conn.mu.Lock()
		err := conn.failed
		conn.mu.Unlock()
		t.Fatalf("the connection ended: %v", err)
	default:
	}
	res, err := c.CallTool(t.Context(), "a", nil, nil)
	require.NoError(t, err, "the connection goes on")
	assert.Equal(t, "a", res.Text())
}

// A resumed stream that ends without an event is the server saying it has
// nothing more for the request (2025-11-25 resumability; mcphttp answers
// so for a stream it no longer holds). Once the request is over, its
// response received or its caller gone, that is a clean end of the
// stream; while the response is still awaited the client tries again,
// MaxRetries times in a row, then fails that request alone, saying why.
func TestEmptyResumedStream(t *testing.T) {
	t.Parallel()
	const (
		priming  = "id: s_0\nretry: 1\ndata: \n\n"
		afterLog = "id: s_2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after\"}}\n\n"
	)
	t.Run("after the response: a clean end", func(t *testing.T) {
		t.Parallel()
		// The response, then a log message, then the connection breaks:
		// the stream does not end with the response, so the client
		// resumes it, and the server has nothing more.
		srv := &resumingServer{call: func(w http.ResponseWriter, id json.RawMessage) {
			writeSSE(w, priming, "id: s_1\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(id)+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", afterLog)
			breakStream()
		}}
		c, conn := connectResuming(t, srv)
		res, err := c.CallTool(t.Context(), "work", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "done", res.Text())
		requireAlive(t, c, conn)
	})
	t.Run("after the caller gave up: a clean end", func(t *testing.T) {
		t.Parallel()
		// The caller gives up once a progress report came on the stream
		// (so its reader runs); the server ends the request on
		// notifications/cancelled, and the connection breaks.
		srv := &resumingServer{cancelled: make(chan struct{})}
		srv.call = func(w http.ResponseWriter, id json.RawMessage) {
			writeSSE(w, priming, "id: s_1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":"+string(id)+",\"progress\":1}}\n\n")
			<-srv.cancelled
			breakStream()
		}
		c, conn := connectResuming(t, srv)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, err := c.CallTool(ctx, "work", nil, &CallOptions{Progress: func(mcp.Progress) { cancel() }})
		require.ErrorIs(t, err, context.Canceled)
		requireAlive(t, c, conn)
	})
	t.Run("before the response: retried within MaxRetries, then the request fails", func(t *testing.T) {
		t.Parallel()
		srv := &resumingServer{call: func(w http.ResponseWriter, _ json.RawMessage) {
			writeSSE(w, priming)
			breakStream()
		}}
		c, conn := connectResuming(t, srv)
		_, err := c.CallTool(t.Context(), "work", nil, nil)
		require.Error(t, err)
		var me *mcp.Error
		require.True(t, errors.As(err, &me), "the request fails, not the connection: %T %v", err, err)
		assert.EqualValues(t, mcp.CodeInternalError, me.Code)
		assert.Contains(t, me.Message, "3 resumptions")
		assert.Contains(t, me.Message, `Last-Event-ID "s_0"`)
		assert.Contains(t, me.Message, "empty stream")
		assert.Equal(t, []string{"s_0", "s_0", "s_0"}, srv.resumptions(), "MaxRetries resumptions, no more")
		requireAlive(t, c, conn)
	})
	t.Run("a resumption that brings a new event ID is progress", func(t *testing.T) {
		t.Parallel()
		// SSE polling: each resumption gets a new priming event and the
		// connection closes, five times (more than MaxRetries), before
		// the response comes.
		ids := make(chan json.RawMessage, 1)
		srv := &resumingServer{call: func(w http.ResponseWriter, id json.RawMessage) {
			ids <- id
			writeSSE(w, priming)
			breakStream()
		}}
		srv.resume = func(w http.ResponseWriter, n int) {
			if n <= 5 {
				writeSSE(w, fmt.Sprintf("id: s_%d\nretry: 1\ndata: \n\n", n))
				return
			}
			writeSSE(w, fmt.Sprintf("id: s_%d\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"polled\"}]}}\n\n", n, <-ids))
		}
		c, conn := connectResuming(t, srv)
		res, err := c.CallTool(t.Context(), "work", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "polled", res.Text())
		assert.Equal(t, []string{"s_0", "s_1", "s_2", "s_3", "s_4", "s_5"}, srv.resumptions())
		requireAlive(t, c, conn)
	})
}
