// Package inproc is the in-process client of an MCP http.Handler: it
// feeds JSON-RPC messages through the handler as synthesized Streamable
// HTTP requests and hands back every message the server sends. The stdio
// transport (package stdio) and package client's in-process transport
// (client.InProcess) are built on it, so a request reaches the handler,
// and every middleware around it, the same way over HTTP, stdio and in
// process.
//
// The ResponseWriter of a synthesized request implements [MessageWriter]:
// the engine (mcphttp) hands it each JSON-RPC message whole, so nothing is
// framed as SSE or JSON text only to be parsed back. Whatever a handler
// writes as text instead (another handler, a middleware's error answer,
// a resumable stream's events) is still understood: SSE bodies are parsed
// into messages as they are written, a JSON body when the handler returns.
// Of the module it imports only the JSON-RPC envelope and error codes of
// internal/jsonrpc.
package inproc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// Client is an in-process client session of an MCP http.Handler: it
// feeds JSON-RPC messages through the handler as synthesized requests, the
// way a Streamable HTTP client would, and hands back every message the
// server sends. It is safe for concurrent use.
type Client struct {
	h      http.Handler
	header http.Header
	// Transport names the transport in the requests' RemoteAddr, which
	// [Transport] reads back: TransportStdio (the default) or
	// TransportEmbedded. Set it before the first request.
	Transport string

	mu sync.RWMutex
	// sessionID and version are the Mcp-Session-Id and
	// MCP-Protocol-Version header values every request carries once
	// initialize answered (nil before): one slice each, shared by the
	// requests' header maps (net/http never writes into a value slice).
	sessionID []string
	version   []string

	rev20260728 inflight // 2026-07-28 requests in flight (rev20260728.go)
}

// MessageWriter is implemented by the ResponseWriter of a synthesized
// request (and found through the Unwrap chain of wrappers around it, as
// http.ResponseController finds Flush): a handler that knows it may hand
// over each JSON-RPC message whole with WriteMessage, after setting the
// headers and status with WriteHeader as for any answer, instead of
// writing the message as SSE or JSON text. WriteMessage may keep msg: the
// caller must not change it afterwards. A wrapper that implements Unwrap
// does not see the bytes of a message written this way.
type MessageWriter interface {
	http.ResponseWriter
	WriteMessage(msg []byte) error
}

// FindMessageWriter returns the MessageWriter in w's Unwrap chain, or nil
// when w writes to a network connection (or hides what it wraps).
func FindMessageWriter(w http.ResponseWriter) MessageWriter {
	for w != nil {
		if mw, ok := w.(MessageWriter); ok {
			return mw
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// The names of the in-process transports, as requests carry them.
const (
	TransportStdio    = "stdio"
	TransportEmbedded = "embedded"
)

// Transport returns the name of the in-process transport that made r
// (TransportStdio or TransportEmbedded), or "" for a request that came
// over a network.
func Transport(r *http.Request) string {
	switch r.RemoteAddr {
	case TransportStdio:
		return TransportStdio
	case TransportEmbedded:
		return TransportEmbedded
	}
	return ""
}

// New returns a client that sends through h. header is added to every
// synthesized request (it may be nil): credentials, a tenant.
func New(h http.Handler, header http.Header) *Client {
	return &Client{h: h, header: header}
}

// ID returns the Mcp-Session-Id the server issued, once initialized.
func (s *Client) ID() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.sessionID == nil {
		return ""
	}
	return s.sessionID[0]
}

// The header values every synthesized request carries: shared slices, as
// in sessionID.
var (
	acceptBoth  = []string{"application/json, text/event-stream"}
	contentJSON = []string{"application/json"}
)

// body is a synthesized request's body: one allocation instead of a
// bytes.Reader in an io.NopCloser.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

func (s *Client) newRequest(ctx context.Context, method string, msg []byte) *http.Request {
	h := make(http.Header, len(s.header)+4)
	for k, v := range s.header {
		h[k] = v
	}
	h["Accept"] = acceptBoth
	// NewRequestWithContext with a nil body parses "/" and sets the
	// context without the copy WithContext makes.
	r, _ := http.NewRequestWithContext(ctx, method, "/", nil)
	r.Header = h
	r.Host = "localhost"
	r.RemoteAddr = TransportStdio
	if s.Transport != "" {
		r.RemoteAddr = s.Transport
	}
	if msg != nil {
		b := &body{}
		b.Reset(msg)
		r.Body = b
		r.ContentLength = int64(len(msg))
		h["Content-Type"] = contentJSON
	}
	s.mu.RLock()
	if s.sessionID != nil {
		h["Mcp-Session-Id"] = s.sessionID
	}
	if s.version != nil {
		h["Mcp-Protocol-Version"] = s.version
	}
	s.mu.RUnlock()
	return r
}

// Send posts one message and calls emit for every message the server
// sends back on that request's stream (notifications, server requests and
// the response), in order. An HTTP error that is not a JSON-RPC message
// becomes a JSON-RPC error response with the request's id, so a caller
// always gets an answer to a request.
func (s *Client) Send(ctx context.Context, msg []byte, emit func([]byte)) {
	id, method, _ := peek(msg)
	s.Post(ctx, msg, id, method, emit)
}

// Post is Send for a caller that already decoded msg's envelope (stdio's
// reader, the embedded client that wrote it): id and method are the
// message's (nil and "" for a response; id nil for a notification), so it
// is not decoded again before the handler decodes it. Only a message that
// names a 2026-07-28 version in its text, or a notifications/cancelled, has
// its params decoded here (rev20260728.go).
func (s *Client) Post(ctx context.Context, msg []byte, id json.RawMessage, method string, emit func([]byte)) {
	var v string
	if method == "notifications/cancelled" || bytes.Contains(msg, []byte(metaProtocolVersion)) {
		_, _, params := peek(msg)
		if method == "notifications/cancelled" && s.rev20260728.cancel(params) {
			return // it cancelled a 2026-07-28 request
		}
		v = metaVersion(params)
	}
	if v != "" && id != nil && method != "" {
		var done func()
		ctx, done = s.rev20260728.track(ctx, id)
		defer done()
		emit = quietOnceCancelled(ctx, emit)
	}
	w := newWriter(emit)
	w.init = method == "initialize"
	r := s.newRequest(ctx, http.MethodPost, msg)
	if v != "" {
		r = rev20260728Request(r, v)
	}
	s.h.ServeHTTP(w, r)
	w.finish(id)
	if w.init && w.status == http.StatusOK {
		s.mu.Lock()
		if sid := w.header.Get("Mcp-Session-Id"); sid != "" {
			s.sessionID = []string{sid}
		}
		if v := w.initVersion; v != "" {
			s.version = []string{v}
		}
		s.mu.Unlock()
	}
}

// Listen opens the session's GET stream and calls emit for every message
// on it until ctx ends or the server closes the stream. It returns at once
// when the server offers no stream. It reports whether the stream was
// open (the server answered 200): when it was and ctx is not done, the
// server closed it, which it does when it ends the session.
func (s *Client) Listen(ctx context.Context, emit func([]byte)) (opened bool) {
	w := newWriter(emit)
	w.get = true
	s.h.ServeHTTP(w, s.newRequest(ctx, http.MethodGet, nil))
	return w.status == http.StatusOK
}

// Close ends the session on the server (DELETE).
func (s *Client) Close(ctx context.Context) {
	if s.ID() == "" {
		return
	}
	w := newWriter(func([]byte) {})
	w.get = true
	s.h.ServeHTTP(w, s.newRequest(ctx, http.MethodDelete, nil))
}

// peek reads the id, method and params of a message without a full decode.
func peek(msg []byte) (json.RawMessage, string, json.RawMessage) {
	m, err := jsonrpc.Decode(msg)
	if err != nil {
		if de, ok := err.(*jsonrpc.DecodeError); ok {
			return de.ID, "", nil
		}
		return nil, "", nil
	}
	return m.ID, m.Method, m.Params
}

// writer is the http.ResponseWriter of a synthesized request. It takes
// whole messages (WriteMessage), and otherwise turns an SSE body into
// messages as it is written, and a JSON body into one message when the
// handler returns.
type writer struct {
	emit   func([]byte)
	header http.Header
	status int
	get    bool
	// init is set for an initialize request: its answer carries the
	// protocol version every later request sends.
	init bool

	mu          sync.Mutex
	sse         bool
	messages    bool // WriteMessage was used: the body holds nothing to parse
	buf         []byte
	initVersion string
	emitted     bool
}

func newWriter(emit func([]byte)) *writer {
	return &writer{emit: emit, header: http.Header{}}
}

func (w *writer) Header() http.Header { return w.header }

func (w *writer) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	w.sse = strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream")
}

func (w *writer) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if w.sse {
		w.drainEvents()
	}
	return len(p), nil
}

// WriteMessage implements [MessageWriter]: msg is handed on as it is.
func (w *writer) WriteMessage(msg []byte) error {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = true
	w.out(msg)
	return nil
}

// Flush implements http.Flusher; events are handed on as they are written.
func (w *writer) Flush() {}

// drainEvents emits every complete SSE event in buf.
func (w *writer) drainEvents() {
	for {
		i := bytes.Index(w.buf, []byte("\n\n"))
		if i < 0 {
			return
		}
		event := w.buf[:i]
		var data []byte
		for _, line := range bytes.Split(event, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				v = bytes.TrimPrefix(v, []byte(" "))
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, v...)
			}
		}
		if len(bytes.TrimSpace(data)) > 0 {
			w.out(append([]byte(nil), data...))
		}
		w.buf = w.buf[i+2:]
	}
}

func (w *writer) out(msg []byte) {
	w.emitted = true
	if w.init && w.initVersion == "" {
		var probe struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &probe) == nil {
			w.initVersion = probe.Result.ProtocolVersion
		}
	}
	w.emit(msg)
}

// finish emits a JSON body, or turns an HTTP error into a JSON-RPC error
// response for request id.
func (w *writer) finish(id json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sse || (w.messages && len(w.buf) == 0) {
		return
	}
	body := bytes.TrimSpace(w.buf)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	ok := w.status >= 200 && w.status < 300
	if len(body) > 0 && (body[0] == '{' || body[0] == '[') && json.Valid(body) {
		if body[0] == '[' {
			var items []json.RawMessage
			_ = json.Unmarshal(body, &items)
			for _, it := range items {
				w.out(it)
			}
			return
		}
		m, err := jsonrpc.Decode(body)
		if err == nil && (ok || m.ID != nil || id == nil) {
			w.out(append([]byte(nil), body...))
			return
		}
		if err == nil && m.Error != nil { // an error without id: give it the request's
			var e jsonrpc.ResponseError
			if json.Unmarshal(m.Error, &e) == nil {
				w.out(jsonrpc.AppendError(nil, id, e.Code, e.Message, dataOf(e.Data)))
				return
			}
		}
	}
	if ok || id == nil {
		return // a notification or response was accepted (202), or nothing to answer
	}
	w.out(jsonrpc.AppendError(nil, id, jsonrpc.CodeServerError, httpErrorMessage(w.status, body), HTTPErrorData{Status: w.status}))
}

// HTTPErrorData is the data member of the [jsonrpc.CodeServerError] error that
// answers a request the handler refused with an HTTP error status and a
// body that is not a JSON-RPC message (an authentication middleware's 401,
// say): the HTTP status the handler answered with.
type HTTPErrorData struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
}

// httpErrorMessage makes a plain message of an HTTP error answer: the
// error_description of an OAuth-style error object (as the auth
// middleware writes), else the body's text, else the status text; always
// starting with the status text, never a JSON document in a string.
func httpErrorMessage(status int, body []byte) string {
	text := http.StatusText(status)
	if text == "" {
		text = fmt.Sprintf("HTTP status %d", status)
	}
	var oauth struct {
		Description string `json:"error_description"`
	}
	if len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &oauth) == nil && oauth.Description != "" {
		if strings.HasPrefix(oauth.Description, text) {
			return oauth.Description
		}
		return text + ": " + oauth.Description
	}
	msg := strings.TrimSpace(string(body))
	switch {
	case msg == "" || msg == text:
		return text
	case strings.HasPrefix(msg, text):
		return msg
	}
	return text + ": " + msg
}

func dataOf(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return raw
}
