package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk client hands notifications to their handlers on a separate
// goroutine from the one that delivers responses, so the order in which
// handlers run says nothing about the order on the wire. To assert wire
// order (progress before the result, say), the tests record every JSON-RPC
// message in the order the client read it: over stdio by wrapping the
// mcp.Connection, over HTTP by teeing request and response bodies in an
// http.RoundTripper (the streamable connection cannot be wrapped: it relies
// on unexported interfaces).

// wireMsg is one JSON-RPC message seen by the client.
type wireMsg struct {
	In       bool            // read from the server (else written to it)
	Method   string          // requests and notifications
	ID       string          // requests and responses; "" for notifications
	Response bool            // a response (Result or Err set)
	Params   json.RawMessage // requests and notifications
	Result   json.RawMessage // successful responses
	Err      error           // error responses
	At       time.Time       // when the client read or wrote it
}

// httpExchange is one HTTP request/response pair seen by the client.
type httpExchange struct {
	Method  string
	Status  int
	Request string // the request's body, if any
}

// wireRecorder records messages in the order the client read or wrote them.
type wireRecorder struct {
	mu    sync.Mutex
	msgs  []wireMsg
	http  []httpExchange
	fails []string
}

func idString(id jsonrpc.ID) string {
	if !id.IsValid() {
		return ""
	}
	return fmt.Sprint(id.Raw())
}

func (r *wireRecorder) add(in bool, m jsonrpc.Message) {
	var w wireMsg
	switch m := m.(type) {
	case *jsonrpc.Request:
		w = wireMsg{In: in, Method: m.Method, ID: idString(m.ID), Params: m.Params}
	case *jsonrpc.Response:
		w = wireMsg{In: in, ID: idString(m.ID), Response: true, Result: m.Result, Err: m.Error}
	default:
		return
	}
	w.At = time.Now()
	r.mu.Lock()
	r.msgs = append(r.msgs, w)
	r.mu.Unlock()
}

// addRaw decodes one HTTP body (a message or a batch) and records it.
func (r *wireRecorder) addRaw(in bool, data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	if data[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			r.fail(fmt.Sprintf("undecodable batch %q: %v", data, err))
			return
		}
		for _, b := range batch {
			r.addRaw(in, b)
		}
		return
	}
	m, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		// jsonrpc.DecodeMessage rejects error responses with "id": null,
		// which JSON-RPC allows when the request ID could not be determined.
		var e struct {
			ID    json.RawMessage `json:"id"`
			Error *jsonrpc.Error  `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != nil && string(e.ID) == "null" {
			r.mu.Lock()
			r.msgs = append(r.msgs, wireMsg{In: in, ID: "null", Response: true, Err: e.Error, At: time.Now()})
			r.mu.Unlock()
			return
		}
		r.fail(fmt.Sprintf("undecodable message %q: %v", data, err))
		return
	}
	r.add(in, m)
}

func (r *wireRecorder) fail(s string) {
	r.mu.Lock()
	r.fails = append(r.fails, s)
	r.mu.Unlock()
}

func (r *wireRecorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.fails)
}

func (r *wireRecorder) snapshot() []wireMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wireMsg(nil), r.msgs...)
}

func (r *wireRecorder) exchanges() []httpExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]httpExchange(nil), r.http...)
}

// callID returns the ID of the last outgoing request for method whose params
// satisfy match.
func callID(msgs []wireMsg, method string, match func(json.RawMessage) bool) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if !m.In && !m.Response && m.ID != "" && m.Method == method && match(m.Params) {
			return m.ID, true
		}
	}
	return "", false
}

// responseIndex returns the index of the incoming response to id, or -1.
func responseIndex(msgs []wireMsg, id string) int {
	for i, m := range msgs {
		if m.In && m.Response && m.ID == id {
			return i
		}
	}
	return -1
}

// recordingTransport wraps an mcp.Transport whose connection has no
// client-specific hooks (stdio) and records every message.
type recordingTransport struct {
	mcp.Transport
	rec *wireRecorder
}

func (t *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, rec: t.rec}, nil
}

type recordingConn struct {
	mcp.Connection
	rec *wireRecorder
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		c.rec.add(true, m)
	}
	return m, err
}

func (c *recordingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	c.rec.add(false, m)
	return c.Connection.Write(ctx, m)
}

// recordingRoundTripper records the JSON-RPC messages in HTTP bodies.
type recordingRoundTripper struct {
	base http.RoundTripper
	rec  *wireRecorder
}

func (rt *recordingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var sent []byte
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		rt.rec.addRaw(false, body)
		sent = body
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	rt.rec.mu.Lock()
	rt.rec.http = append(rt.rec.http, httpExchange{Method: req.Method, Status: resp.StatusCode, Request: string(sent)})
	rt.rec.mu.Unlock()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		resp.Body = &sseTee{body: resp.Body, rec: rt.rec}
	case "application/json":
		resp.Body = &jsonTee{body: resp.Body, rec: rt.rec}
	}
	return resp, nil
}

// jsonTee records a JSON response body once it has been read to EOF.
type jsonTee struct {
	body io.ReadCloser
	buf  bytes.Buffer
	done bool
	rec  *wireRecorder
}

func (j *jsonTee) Read(p []byte) (int, error) {
	n, err := j.body.Read(p)
	j.buf.Write(p[:n])
	if errors.Is(err, io.EOF) && !j.done {
		j.done = true
		j.rec.addRaw(true, j.buf.Bytes())
	}
	return n, err
}

func (j *jsonTee) Close() error { return j.body.Close() }

// sseTee passes an SSE body through unchanged and records each event's data
// inside the Read that delivers the event's last byte, so an event is always
// recorded before the client can act on it.
type sseTee struct {
	body io.ReadCloser
	line []byte // the current, incomplete line
	data bytes.Buffer
	rec  *wireRecorder
}

func (s *sseTee) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			s.line = append(s.line, chunk...)
			break
		}
		s.line = append(s.line, chunk[:i]...)
		chunk = chunk[i+1:]
		s.endLine(bytes.TrimSuffix(s.line, []byte("\r")))
		s.line = s.line[:0]
	}
	return n, err
}

func (s *sseTee) endLine(line []byte) {
	switch {
	case len(line) == 0:
		if s.data.Len() > 0 {
			s.rec.addRaw(true, s.data.Bytes())
			s.data.Reset()
		}
	case bytes.HasPrefix(line, []byte("data:")):
		v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if s.data.Len() > 0 {
			s.data.WriteByte('\n')
		}
		s.data.Write(v)
	}
}

func (s *sseTee) Close() error { return s.body.Close() }
