package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/redact"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// HTTPOptions configure [HTTP]. The zero value is usable.
type HTTPOptions struct {
	// Client sends the requests. Default: a client of its own, without a
	// timeout (streams last as long as their requests).
	Client *http.Client
	// Header is added to every request (an Authorization header, say).
	Header http.Header
	// MaxRetries bounds the reconnections of a broken stream (with
	// Last-Event-ID) in a row that bring nothing (no message, no new
	// event ID) before its request fails. Default 3.
	MaxRetries int
	// NoListen keeps the client from opening, on its own, the stream on
	// which the server sends what is not part of a request: the GET
	// stream of a session (list changes, log messages, its own requests
	// outside a call) and, at revision 2026-07-28, the
	// subscriptions/listen stream of list changes
	// ([Client.Subscribe] still opens one for a resource).
	NoListen bool
	// Auth authorizes the requests to a server that wants OAuth (package
	// client/oauth implements it): every request goes through the
	// RoundTripper it returns. Default: none, requests go as they are.
	Auth Authorizer
}

// HTTP returns a Transport that speaks Streamable HTTP (revisions
// 2025-03-26 to 2025-11-25) to the MCP endpoint at url: one POST per
// message, answers as JSON or as an SSE stream, the session in
// Mcp-Session-Id, the revision in MCP-Protocol-Version, a GET stream for
// the server's own messages, a broken stream resumed with Last-Event-ID
// after the server's retry delay, and DELETE when the connection closes.
// opts may be nil.
func HTTP(url string, opts *HTTPOptions) Transport {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 3
	}
	owned := o.ownClient()
	o.authorize(url)
	return &httpTransport{url: url, opts: o, owned: owned}
}

type httpTransport struct {
	url   string
	opts  HTTPOptions
	owned bool // opts.Client is the transport's own: Close may drop its idle connections
}

func (t *httpTransport) Connect(context.Context) (Conn, error) {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpConn{t: t, ctx: ctx, cancel: cancel, inbox: newInbox()}, nil
}

// httpConn is a Conn over Streamable HTTP.
type httpConn struct {
	t      *httpTransport
	ctx    context.Context // ends with Close: every stream's requests
	cancel context.CancelFunc
	inbox  // what the POSTs' answers and the streams carry; done ends the connection
	once   sync.Once
	wg     sync.WaitGroup

	// awaited reports whether the client still waits for the response
	// to request id (nil: assume it does). Set before the first Send.
	awaited func(id int64) bool

	mu      sync.Mutex
	session string
	version string
	failed  error // why the connection ended, for Recv
	closing bool  // Close has begun: start no other stream
	// inflight cancels the POST of a 2026-07-28 request, by id.
	inflight map[int64]context.CancelFunc
}

// abort closes the POST of 2026-07-28 request id, which cancels it on the
// server; false when it is not in flight.
func (c *httpConn) abort(id int64) bool {
	c.mu.Lock()
	cancel := c.inflight[id]
	c.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

// goStream runs fn as one of the connection's stream readers, unless the
// connection is closing (then it closes body and returns false).
func (c *httpConn) goStream(body io.Closer, fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		body.Close()
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
	return true
}

// HTTPError is a request of the client the server answered with an HTTP
// error status rather than a JSON-RPC message.
type HTTPError struct {
	// Status is the HTTP status code.
	Status int
	// Body is the start of the response body (at most 1 KB).
	Body string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("mcp client: HTTP %d %s", e.Status, http.StatusText(e.Status))
	if b := strings.TrimSpace(e.Body); b != "" {
		msg += ": " + b
	}
	return msg
}

// errSessionEnded is returned when the server no longer knows the
// session (404 to a request that carried its Mcp-Session-Id): the client
// must connect again. It wraps mcp.ErrNoSession.
var errSessionEnded = fmt.Errorf("mcp client: the server ended the session: %w", mcp.ErrNoSession)

func (c *httpConn) setProtocolVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

func (c *httpConn) header(r *http.Request) {
	for k, vs := range c.t.opts.Header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	c.mu.Lock()
	if c.session != "" {
		r.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		r.Header.Set("MCP-Protocol-Version", c.version)
	}
	c.mu.Unlock()
}

func (c *httpConn) Send(ctx context.Context, msg []byte) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	// The request lives as long as its stream, not as the caller's ctx:
	// a call that gives up sends notifications/cancelled, and the stream
	// then ends on its own.
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.t.url, bytes.NewReader(msg))
	if err != nil {
		return redact.Error(err)
	}
	c.header(req)
	for k, vs := range requestHeader(ctx) {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	finish := func() {}
	if id, ok := ctx.Value(idKey{}).(int64); ok {
		// A request of 2026-07-28 is cancelled by closing its POST.
		rctx, cancel := context.WithCancel(c.ctx)
		req = req.WithContext(rctx)
		c.mu.Lock()
		if c.inflight == nil {
			c.inflight = map[int64]context.CancelFunc{}
		}
		c.inflight[id] = cancel
		c.mu.Unlock()
		finish = func() {
			cancel()
			c.mu.Lock()
			delete(c.inflight, id)
			c.mu.Unlock()
		}
	}
	type result struct {
		resp *http.Response
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := c.t.opts.Client.Do(req)
		got <- result{resp, err}
	}()
	var r result
	select {
	case r = <-got:
	case <-ctx.Done():
		go func() {
			if r := <-got; r.resp != nil {
				c.consume(r.resp, msg, finish)
			} else {
				finish()
			}
		}()
		return ctx.Err()
	}
	if r.err != nil {
		finish()
		return fmt.Errorf("mcp client: POST %s: %w", redact.URL(c.t.url), redact.Error(r.err))
	}
	resp := r.resp
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.mu.Lock()
		if c.session == "" {
			c.session = sid
		}
		c.mu.Unlock()
	}
	if resp.StatusCode >= 300 {
		defer finish()
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		c.mu.Lock()
		had := c.session != ""
		c.mu.Unlock()
		if resp.StatusCode == http.StatusNotFound && had {
			return errSessionEnded
		}
		return c.errorStatus(resp.StatusCode, b)
	}
	c.consume(resp, msg, c.endStream(ctx, finish))
	return nil
}

// endStream returns finish, for a request of 2026-07-28 (one with an
// id in ctx) followed by streamEnded: a stream that ends without the
// server's response ends the request, since that revision resumes no
// stream. An answer already delivered makes it a no-op.
func (c *httpConn) endStream(ctx context.Context, finish func()) func() {
	id, ok := ctx.Value(idKey{}).(int64)
	if !ok {
		return finish
	}
	return func() {
		finish()
		c.deliver(streamEnded(id))
	}
}

// setAwaited is awaiter's: the client's pending requests.
func (c *httpConn) setAwaited(f func(id int64) bool) { c.awaited = f }

// noListen reports HTTPOptions.NoListen to the client.
func (c *httpConn) noListen() bool { return c.t.opts.NoListen }

// maxErrorBody bounds the body of an error status that is read.
const maxErrorBody = 64 << 10

// isResponse reports whether b is a JSON-RPC response (no method).
func isResponse(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	m, err := jsonrpc.Decode(b)
	return err == nil && m.IsResponse()
}

// isErrorResponse reports whether b is a JSON-RPC error response with an
// id: the answer to a request.
func isErrorResponse(b []byte) bool {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(b, &m) == nil && len(m.Error) > 0 && string(m.Error) != "null" &&
		len(m.ID) > 0 && string(m.ID) != "null"
}

// consume delivers what the response to the POST of request carries:
// nothing (202), one JSON message or a batch, or an SSE stream read in
// the background; then it calls finish.
func (c *httpConn) consume(resp *http.Response, request []byte, finish func()) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		resp.Body.Close()
		finish()
	case mt == "text/event-stream":
		if !c.goStream(resp.Body, func() { defer finish(); c.stream(resp, request) }) {
			finish()
		}
	default:
		defer finish()
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
		if err != nil || len(b) > maxMessage {
			c.fail(fmt.Errorf("reading a response: %v (or more than %d bytes)", err, maxMessage))
			return
		}
		c.deliverJSON(b)
	}
}

// deliverJSON passes on a JSON body: a message, or a batch of them.
func (c *httpConn) deliverJSON(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil {
			for _, m := range batch {
				c.deliver(m)
			}
			return
		}
	}
	c.deliver(b)
}

// stream reads an SSE response, and when it breaks before the server
// ended it, resumes it with GET and Last-Event-ID (the last id seen)
// after the server's retry delay. A stream on which no event had an id
// cannot be resumed, nor one that carried its request's response.
// request is the message whose POST opened the stream; nil: it is the GET
// stream, which is opened again even without an id.
//
// A resumed stream that ends without an event is the server saying it has
// nothing more for the request now: the stream is over once the request
// is (its response came, on another stream, or its caller gave up);
// while the response is awaited the client tries again, as it does after
// a failed GET. MaxRetries such tries in a row, with no message and no new
// event id between them, fail the request: its alone when the server
// answered each with an empty stream, the connection's when it could not
// be reached.
func (c *httpConn) stream(resp *http.Response, request []byte) {
	listening := request == nil
	lastID, retry, tries := "", time.Second, 0
	var last []byte  // the last message delivered
	var missed error // why the last resumption brought nothing
	var resumed bool // resp is a resumption
	for {
		seen := lastID
		delivered := false
		err := readSSE(resp.Body, maxMessage, func(ev sseEvent) error {
			if ev.hasID {
				lastID = ev.id
			}
			if ev.retry > 0 {
				retry = ev.retry
			}
			if len(ev.data) > 0 && (ev.event == "" || ev.event == "message") {
				delivered = true
				last = ev.data
				c.deliver(ev.data)
			}
			return nil
		})
		resp.Body.Close()
		if c.ctx.Err() != nil {
			return
		}
		answered := isResponse(last)
		if !listening && c.requestStreamOver(request, answered, lastID) {
			if !answered {
				c.abandon(request)
			}
			return
		}
		switch {
		case delivered || lastID != seen:
			// A message or a new event id: the stream goes on (a server
			// polling with SSE sends a new id, closes the connection and
			// lets the client come back).
			tries = 0
		case resumed && err == nil:
			missed = errEmptyResume
		case resumed:
			missed = fmt.Errorf("the resumed stream broke: %w", redact.Error(err))
		}
		if tries++; tries > c.t.opts.MaxRetries {
			if !listening {
				c.giveUp(request, lastID, missed)
			}
			return
		}
		select {
		case <-time.After(retry):
		case <-c.ctx.Done():
			return
		}
		next, err := c.get(lastID)
		if err != nil {
			if errors.Is(err, errNoStream) {
				if !listening {
					c.abandon(request)
				}
				return
			}
			missed = fmt.Errorf("GET with Last-Event-ID failed: %w", err)
			resumed = false
			resp = &http.Response{Body: http.NoBody}
			continue
		}
		resumed = true
		resp = next
	}
}

// requestStreamOver reports whether the stream of request, which ended
// (closed by the server or broken), is over rather than to be resumed;
// answered says its last message was the response, lastID is its last
// event id.
func (c *httpConn) requestStreamOver(request []byte, answered bool, lastID string) bool {
	switch {
	case answered:
		// A POST carries one request, and its response comes last: the
		// stream is over, whether the server then closed it or the
		// connection broke. A resumable server gives every event an id,
		// so resuming here would find nothing (it answers an empty
		// stream) and, after MaxRetries, end the connection.
		return true
	case c.sessionless():
		// Revision 2026-07-28 resumes no stream (no Last-Event-ID, no
		// GET): a request whose stream broke is over.
		return true
	case lastID == "":
		// No event had an id: the stream cannot be resumed, whether the
		// server closed it (it is over) or it broke.
		return true
	case !c.awaits(request):
		// The request is over: its response came on another stream (it
		// need not be this stream's last message), or its caller gave up
		// and sent notifications/cancelled. Nothing left to resume,
		// whether the stream broke or the server had nothing more.
		return true
	}
	return false
}

// abandon ends the wait for the response to request, whose stream is
// over without that response as its last message: the server closed
// the stream or it broke without event ids to resume it, or the server
// refused the GET that would have resumed it. Nothing else would ever
// answer the request, so it fails with the same error response as a
// 2026-07-28 request does (endStream delivers that one). A response that
// came earlier, on this stream or another, is ahead of it in the inbox
// and wins.
func (c *httpConn) abandon(request []byte) {
	if c.sessionless() || c.isClosing() || !c.awaits(request) {
		return
	}
	if id, ok := idOf(jsonrpc.PrefixID(request)); ok {
		c.deliver(streamEnded(id))
	}
}

// isClosing reports whether Close has begun.
func (c *httpConn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// sessionless reports whether the connection speaks a sessionless
// revision (2026-07-28).
func (c *httpConn) sessionless() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return mcp.Version(c.version).Sessionless()
}

// errEmptyResume is a resumed stream that ended without an event.
var errEmptyResume = errors.New("the server answered with an empty stream")

// awaits reports whether the client still waits for the response to
// request (true when it cannot tell).
func (c *httpConn) awaits(request []byte) bool {
	if c.awaited == nil {
		return true
	}
	id, ok := idOf(jsonrpc.PrefixID(request))
	return !ok || c.awaited(id)
}

// giveUp ends the wait for the response to request after MaxRetries
// resumptions of its stream in a row brought nothing; missed says what
// the last one did. When the server answered it with an empty stream, it
// is reachable and has nothing more for the request: the request fails
// with an error response of the client's own, and the connection goes
// on. When it could not be reached, the connection fails.
func (c *httpConn) giveUp(request []byte, lastID string, missed error) {
	if !c.awaits(request) {
		return
	}
	tries := c.t.opts.MaxRetries
	id := jsonrpc.PrefixID(request)
	if errors.Is(missed, errEmptyResume) && id != nil {
		c.deliver(jsonrpc.AppendError(nil, id, mcp.CodeInternalError,
			fmt.Sprintf("the response stream broke and %d resumptions in a row with Last-Event-ID %s brought no event, "+
				"the last of them an empty stream: the server has nothing more for this request, and its response never came",
				tries, strictjson.Quote(lastID)), nil))
		return
	}
	if missed == nil {
		missed = errors.New("the stream broke")
	}
	c.fail(fmt.Errorf("a response stream broke and %d reconnections failed; the last: %w", tries, missed))
}

var errNoStream = errors.New("the server offers no GET stream")

// get opens a GET stream, resuming after lastID when it is not empty.
func (c *httpConn) get(lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.t.url, nil)
	if err != nil {
		return nil, redact.Error(err)
	}
	c.header(req)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.t.opts.Client.Do(req)
	if err != nil {
		return nil, redact.Error(err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		resp.Body.Close()
		if resp.StatusCode == http.StatusMethodNotAllowed {
			return nil, errNoStream
		}
		return nil, &HTTPError{Status: resp.StatusCode}
	}
	return resp, nil
}

// listen opens the GET stream, if the server offers one, and returns
// once the server answered it (or after listenWait): a server that sends a
// request outside any call's stream (a sampling request of a tool, in
// some SDKs) right after initialize then finds the stream open.
func (c *httpConn) listen() {
	if c.t.opts.NoListen {
		return
	}
	opened := make(chan struct{})
	c.goStream(io.NopCloser(nil), func() {
		resp, err := c.get("")
		close(opened)
		if err != nil {
			return
		}
		c.stream(resp, nil)
	})
	select {
	case <-opened:
	case <-time.After(listenWait):
	}
}

// listenWait bounds how long Connect waits for the GET stream's answer.
const listenWait = 2 * time.Second

func (c *httpConn) fail(err error) {
	c.mu.Lock()
	if c.failed == nil {
		c.failed = err
	}
	c.mu.Unlock()
	c.shut()
}

func (c *httpConn) shut() {
	c.once.Do(func() {
		close(c.done)
		c.cancel()
	})
}

func (c *httpConn) Recv(ctx context.Context) ([]byte, error) {
	return c.recv(ctx, func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.failed
	})
}

// Close ends the session with DELETE (a server that does not allow it
// answers 405, which is fine) and stops every stream.
func (c *httpConn) Close() error {
	// closing comes first: the DELETE below ends the session, and with it
	// the streams of calls still in flight, which then fail with
	// ErrClosed (not as streams that ended without a response).
	c.mu.Lock()
	sid := c.session
	c.closing = true
	c.mu.Unlock()
	var err error
	if sid != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, c.t.url, nil)
		c.header(req)
		if resp, derr := c.t.opts.Client.Do(req); derr == nil {
			resp.Body.Close()
		} else {
			err = derr
		}
		cancel()
	}
	c.shut()
	c.wg.Wait()
	if c.t.owned {
		c.t.opts.Client.CloseIdleConnections()
	}
	return err
}
