package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/internal/strictjson"
)

func equalAuth(a, b any) bool { return reflect.DeepEqual(a, b) }

// conn is the live side of a session in this process: in-flight requests,
// requests waiting for the client, and the GET stream's queue.
type conn struct {
	h         *Handler
	sess      *sessionstate.Session
	ephemeral bool // a stateless request's throw-away session
	modern    bool // a 2026-07-28 request's throw-away session (modern.go)
	// closed and rootsOK are guarded by mu; they sit here, with the
	// other small fields, so that no field is padded to a word of its
	// own (every session holds a conn).
	closed  bool
	rootsOK bool
	// registered is set once the session is saved (Handler.register, or
	// found in the store): only then does a response name its ID.
	registered atomic.Bool

	mu sync.Mutex
	// The requests in flight, by IDKey, with what cancels each: the
	// first in one inline pair, others in a map made only while two or
	// more run at once. An idle session holds neither: a map kept from
	// its first request cost every session about 200 bytes (issue 10).
	firstKey    string
	firstCancel canceller
	inflight    map[string]canceller
	pending     map[string]chan *jsonrpc.Message
	roots       []mcp.Root
	streams     map[string]*stream // resumable request streams (resume.go)
	streamSeq   uint64

	// The GET stream's queue of server-initiated messages, and the signal
	// that it has some. Both are made on first use: most sessions never
	// get a server-initiated message, and an idle session should cost
	// little (issue 7: a 256-slot channel made up front was 6 KiB of the
	// 7.6 KiB each session held).
	out  [][]byte
	wake chan struct{}
	// slots bounds the session's requests running at once
	// (Options.MaxSessionRequests); made when two first overlap (see
	// acquireSession; until then slotHeld, guarded by mu, says whether
	// one runs).
	slots chan struct{}
	// client is the key the session counts against in
	// Options.MaxSessionsPerClient ("" when not counted); counted says it
	// holds a slot of the session caps, which ending it frees.
	client string

	nextID atomic.Int64
	// gets counts the session's open GET streams (a replaced one counts
	// until it has ended); get is the newest, which a later GET replaces.
	gets     atomic.Int32
	get      *getStream
	counted  bool // see client
	slotHeld bool // see slots

	// done is closed when the session ends. It is made on first use
	// (doneCh), by the few waits that need it (a server-to-client
	// request, the GET stream, a slot wait, resumable streams): an idle
	// session holds no channel.
	done chan struct{}
}

// closedDone is the done channel of a conn closed before anything asked
// for it.
var closedDone = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// doneCh returns a channel closed when the session ends.
func (c *conn) doneCh() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.closed {
			c.done = closedDone
		} else {
			c.done = make(chan struct{})
		}
	}
	return c.done
}

func newConn(h *Handler, sess *sessionstate.Session, ephemeral bool) *conn {
	c := &conn{h: h, sess: sess, ephemeral: ephemeral}
	c.nextID.Store(h.replica)
	return c
}

func (h *Handler) newConn(sess *sessionstate.Session, ephemeral bool) *conn {
	if sess == nil {
		sess = &sessionstate.Session{}
	}
	return newConn(h, sess, ephemeral)
}

func (c *conn) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if c.firstCancel != nil {
		c.firstCancel.cancel(errCancelled)
	}
	for _, r := range c.inflight {
		r.cancel(errCancelled)
	}
	done := c.done
	c.mu.Unlock()
	if done != nil {
		close(done)
	}
}

func (c *conn) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstCancel == nil && len(c.inflight) == 0 && c.gets.Load() == 0
}

func (c *conn) track(key string, cancel canceller) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	// A key is in one place at most: a request that reuses the ID of one
	// in flight replaces it, wherever that one is.
	if c.firstCancel != nil && c.firstKey == key {
		c.firstCancel = cancel
		return true
	}
	if _, ok := c.inflight[key]; ok || c.firstCancel != nil {
		if c.inflight == nil {
			c.inflight = map[string]canceller{}
		}
		c.inflight[key] = cancel
		return true
	}
	c.firstKey, c.firstCancel = key, cancel
	return true
}

func (c *conn) untrack(key string) {
	c.mu.Lock()
	if c.firstCancel != nil && c.firstKey == key {
		c.firstKey, c.firstCancel = "", nil
	} else {
		delete(c.inflight, key)
		if len(c.inflight) == 0 {
			c.inflight = nil
		}
	}
	c.mu.Unlock()
}

func (c *conn) cancel(key string) {
	c.mu.Lock()
	cancel := c.inflight[key]
	if c.firstCancel != nil && c.firstKey == key {
		cancel = c.firstCancel
	}
	c.mu.Unlock()
	if cancel != nil {
		cancel.cancel(errCancelled)
	}
}

// deliver routes a client's response to the server request waiting for
// it. It returns false for the answer to a request another replica sent
// (its ID carries that replica's tag, see Handler.replica): answers are
// not routed between replicas, and the caller refuses it.
func (c *conn) deliver(m *jsonrpc.Message) bool {
	key := m.IDKey()
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch == nil {
		if c.h.otherReplica(key) {
			if c.h.relayTo(c, key, m) {
				return true
			}
			c.h.log.Warn("mcp: a response answers a request another replica sent; refused (server-to-client requests need sticky sessions)",
				"session", c.sess.ID, "id", strictjson.ForLog(key))
			return false
		}
		c.h.log.Warn("mcp: a response matches no request the server sent; dropped", "session", c.sess.ID, "id", strictjson.ForLog(key))
		return true
	}
	// The message aliases the pooled request body: copy what we keep.
	cp := &jsonrpc.Message{ID: clone(m.ID), Result: clone(m.Result), Error: clone(m.Error)}
	ch <- cp
	return true
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// enqueue puts a server-initiated message on the GET stream's queue. When
// the queue holds maxQueued messages the message is dropped, and the drop
// logged.
func (c *conn) enqueue(msg []byte) {
	if c.ephemeral {
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if len(c.out) >= maxQueued {
		c.mu.Unlock()
		c.h.log.Warn("mcp: the session's GET stream queue is full (no client reading it?); message dropped",
			"session", c.sess.ID, "queue", maxQueued)
		return
	}
	c.out = append(c.out, msg)
	wake := c.wakeLocked()
	c.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// requeue puts messages a broken GET stream could not write back at the
// front of the queue, for the next stream.
func (c *conn) requeue(msgs [][]byte) {
	c.mu.Lock()
	if !c.closed {
		c.out = append(msgs, c.out...)
		if len(c.out) > maxQueued {
			c.out = c.out[:maxQueued]
		}
	}
	c.mu.Unlock()
}

// takeQueued empties the GET stream's queue and returns what it held.
func (c *conn) takeQueued() [][]byte {
	c.mu.Lock()
	msgs := c.out
	c.out = nil
	c.mu.Unlock()
	return msgs
}

// wakeup returns the channel that signals queued messages.
func (c *conn) wakeup() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wakeLocked()
}

func (c *conn) wakeLocked() chan struct{} {
	if c.wake == nil {
		c.wake = make(chan struct{}, 1)
	}
	return c.wake
}

// errRootsDisabled is what asking for roots returns when the server's
// Options.Roots.Disabled is set.
var errRootsDisabled = fmt.Errorf("%w: roots are disabled by the server (mcp.Options.Roots.Disabled), so it does not ask the client for them", mcp.ErrCapability)

// call sends a server-to-client request through send and waits for the
// client's answer. Every server-to-client request passes here, so this is
// where the roots policy is enforced.
func (c *conn) call(ctx context.Context, send func([]byte) error, method string, params any) (json.RawMessage, error) {
	if method == "roots/list" && c.h.rootsDisabled() {
		return nil, errRootsDisabled
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	ch := make(chan *jsonrpc.Message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("mcp: %s: the session has ended", method)
	}
	if c.pending == nil {
		c.pending = map[string]chan *jsonrpc.Message{}
	}
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	if err := send(jsonrpc.AppendRequest(nil, id, method, p)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			var e mcp.Error
			if err := json.Unmarshal(m.Error, &e); err != nil {
				return nil, fmt.Errorf("mcp: %s: malformed error from the client: %s", method, m.Error)
			}
			return nil, &e
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-c.doneCh():
		return nil, fmt.Errorf("mcp: %s: the session ended before the client answered", method)
	}
}

// cachedRoots returns the roots the client last reported, fetching them
// through peer when unknown.
func (c *conn) cachedRoots(ctx context.Context, peer mcpPeer) ([]mcp.Root, error) {
	c.mu.Lock()
	if c.rootsOK {
		r := c.roots
		c.mu.Unlock()
		return r, nil
	}
	c.mu.Unlock()
	roots, err := hook.listRoots(ctx, peer)
	if err != nil {
		return nil, err
	}
	c.setRoots(roots)
	return roots, nil
}

// rootsDisabled reports whether the server's Options.Roots.Disabled is set.
func (h *Handler) rootsDisabled() bool {
	ro := h.srv.Options().Roots
	return ro != nil && ro.Disabled
}

func (c *conn) setRoots(r []mcp.Root) {
	c.mu.Lock()
	c.roots, c.rootsOK = r, true
	c.mu.Unlock()
}

func (c *conn) invalidateRoots() {
	c.mu.Lock()
	c.roots, c.rootsOK = nil, false
	c.mu.Unlock()
}

// streamPeer sends on the session's GET stream; used for requests that
// belong to no client request (roots/list after initialization).
type streamPeer struct{ c *conn }

func (p streamPeer) Notify(_ context.Context, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	p.c.enqueue(jsonrpc.AppendNotification(nil, method, b))
	return nil
}

func (p streamPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return p.c.call(ctx, func(b []byte) error { p.c.enqueue(b); return nil }, method, params)
}

// responder writes the answer to one POST: application/json when only the
// result is sent, text/event-stream as soon as a notification or request
// precedes it.
type responder struct {
	w http.ResponseWriter
	// mw is set when w is an in-process client's (stdio, Embed): each
	// message goes to it whole, not framed as SSE or JSON text.
	mw       inproc.MessageWriter
	h        *Handler
	c        *conn
	jsonOnly bool
	batch    bool
	// noLogs drops notifications/message (a 2026-07-28 request without
	// _meta's logLevel); status, when set, is the HTTP status of a JSON
	// reply (a modern error: modernStatus).
	noLogs bool
	status int

	mu      sync.Mutex
	sse     bool
	ended   bool
	replies [][]byte // batch replies in JSON mode
	st      *stream  // set: the request's resumable stream carries everything
}

func newResponder(w http.ResponseWriter, h *Handler, c *conn, jsonOnly bool) *responder {
	return &responder{w: w, mw: inproc.FindMessageWriter(w), h: h, c: c, jsonOnly: jsonOnly}
}

func (rs *responder) setSessionHeader() {
	if rs.c != nil && !rs.c.ephemeral && rs.c.sess.ID != "" && rs.c.registered.Load() {
		rs.w.Header().Set("Mcp-Session-Id", rs.c.sess.ID)
	}
}

// setJSONHeaders sets the headers of a plain JSON answer: Content-Type
// and, as setSessionHeader, Mcp-Session-Id. Both values share one
// allocation, and the keys are set as they are (already canonical),
// since this runs on every answer.
func (rs *responder) setJSONHeaders() {
	h := rs.w.Header()
	if rs.c != nil && !rs.c.ephemeral && rs.c.sess.ID != "" && rs.c.registered.Load() {
		v := make([]string, 2)
		v[0], v[1] = "application/json", rs.c.sess.ID
		h["Content-Type"], h["Mcp-Session-Id"] = v[0:1:1], v[1:2:2]
		return
	}
	h["Content-Type"] = []string{"application/json"}
}

func (rs *responder) startSSE() {
	sid := ""
	if rs.c != nil && !rs.c.ephemeral && rs.c.registered.Load() {
		sid = rs.c.sess.ID
	}
	startSSE(rs.w, sid)
	rs.sse = true
}

// startSSE sends the 200 headers of an SSE stream (every stream the
// engine opens: a request's, the GET stream, a resumed one), with the
// session's ID when sid is not empty.
func startSSE(w http.ResponseWriter, sid string) {
	hd := w.Header()
	if sid != "" {
		hd.Set("Mcp-Session-Id", sid)
	}
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache, no-transform")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

// event sends a message that precedes the result.
func (rs *responder) event(msg []byte) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended {
		return errStreamEnded
	}
	if rs.st != nil {
		return rs.st.send(msg, false)
	}
	if rs.jsonOnly {
		rs.h.log.Debug("mcp: JSON response mode drops a message sent during a request", "message", strictjson.ForLogBytes(msg))
		return mcp.ErrNoPeer
	}
	if !rs.sse {
		rs.startSSE()
	}
	return rs.writeEvent(msg)
}

var errStreamEnded = fmt.Errorf("mcp: the request's response was already sent")

// appendEvent appends msg as one SSE "message" event, with an id when
// id is non-empty.
func appendEvent(b []byte, id string, msg []byte) []byte {
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

func (rs *responder) writeEvent(msg []byte) error {
	if rs.mw != nil {
		return rs.mw.WriteMessage(msg)
	}
	if _, err := rs.w.Write(appendEvent(make([]byte, 0, len(msg)+32), "", msg)); err != nil {
		return err
	}
	return http.NewResponseController(rs.w).Flush()
}

// reply sends a response (one of several in a batch).
func (rs *responder) reply(msg []byte) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended {
		return
	}
	if rs.st != nil {
		rs.ended = true
		_ = rs.st.send(msg, true)
		return
	}
	if rs.sse {
		_ = rs.writeEvent(msg)
		return
	}
	if rs.batch {
		rs.replies = append(rs.replies, msg)
		return
	}
	rs.setJSONHeaders()
	status := http.StatusOK
	if rs.status != 0 {
		status = rs.status
	}
	rs.w.WriteHeader(status)
	if rs.mw != nil {
		_ = rs.mw.WriteMessage(msg)
	} else {
		_, _ = rs.w.Write(append(msg, '\n'))
	}
	rs.ended = true
}

// end finishes the response. A request that got no reply (cancelled) ends
// with an empty event stream, which clients read as "no answer".
func (rs *responder) end() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended {
		return
	}
	rs.ended = true
	if rs.st != nil {
		rs.st.end()
		return
	}
	if rs.sse {
		return
	}
	if rs.batch && len(rs.replies) > 0 {
		rs.setSessionHeader()
		rs.w.Header().Set("Content-Type", "application/json")
		rs.w.WriteHeader(http.StatusOK)
		b := []byte{'['}
		for i, r := range rs.replies {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, r...)
		}
		_, _ = rs.w.Write(append(b, ']', '\n'))
		return
	}
	if rs.jsonOnly {
		rs.w.WriteHeader(http.StatusAccepted)
		return
	}
	rs.startSSE()
}

// requestPeer is the way back to the client of one request: its stream.
type requestPeer struct {
	c  *conn
	rs *responder
}

func (p *requestPeer) Notify(_ context.Context, method string, params any) error {
	if p.rs.noLogs && method == "notifications/message" {
		return nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	return p.rs.event(jsonrpc.AppendNotification(make([]byte, 0, len(b)+64), method, b))
}

func (p *requestPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if p.c.ephemeral {
		return nil, mcp.ErrNoPeer
	}
	return p.c.call(ctx, p.rs.event, method, params)
}

// getHandoff bounds how long a new GET stream waits for the one it
// replaces to end (one blocked writing to a client that stopped reading).
const getHandoff = time.Second

// getStream is a session's GET stream, as seen by the one that replaces it.
type getStream struct {
	stop chan struct{} // closed to end the stream
	done chan struct{} // closed when it has ended
}

// claimGet makes the caller's GET the session's stream. An open one is
// told to end and waited for (up to getHandoff), so that queued messages
// go out on one stream at a time. A client opens a second GET when it
// reconnects after a network failure the server has not noticed yet;
// refusing it would break the client for good, and the old stream's
// client is then gone anyway.
func (c *conn) claimGet(ctx context.Context) *getStream {
	gs := &getStream{stop: make(chan struct{}), done: make(chan struct{})}
	c.gets.Add(1)
	c.mu.Lock()
	old := c.get
	c.get = gs
	c.mu.Unlock()
	if old != nil {
		close(old.stop) // only the GET that took old out of c.get closes it
		t := time.NewTimer(getHandoff)
		select {
		case <-old.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return gs
}

// releaseGet records that the GET stream gs has ended.
func (c *conn) releaseGet(gs *getStream) {
	c.mu.Lock()
	if c.get == gs {
		c.get = nil
	}
	c.mu.Unlock()
	close(gs.done)
	c.gets.Add(-1)
}

// serveGet opens the session's stream for server-initiated messages; a
// GET while one is open replaces it.
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if h.opts.Stateless {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError,
			"Method Not Allowed: this server is stateless and offers no GET stream")
		return
	}
	if !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, nil, mcp.CodeServerError,
			"Not Acceptable: the Accept header of a GET must list text/event-stream")
		return
	}
	c, ok := h.resolve(w, r, false, nil)
	if !ok {
		return
	}
	if id := header.Get(r.Header, header.LastEventID); id != "" && h.opts.Resumable {
		h.serveResume(w, r, c, id)
		return
	}
	gs := c.claimGet(r.Context())
	defer c.releaseGet(gs)
	startSSE(w, c.sess.ID)
	rc := http.NewResponseController(w)
	if err := rc.Flush(); err != nil {
		return
	}
	drain := h.drainCh()
	wake := c.wakeup()
	done := c.doneCh()
	mw := inproc.FindMessageWriter(w)
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		if msgs := c.takeQueued(); len(msgs) > 0 {
			for i, msg := range msgs {
				var err error
				if mw != nil {
					err = mw.WriteMessage(msg)
				} else {
					_, err = w.Write(appendEvent(make([]byte, 0, len(msg)+32), "", msg))
				}
				if err != nil {
					c.requeue(msgs[i:]) // keep them for the next stream
					return
				}
			}
			if err := rc.Flush(); err != nil {
				return
			}
			c.sess.Touch(time.Now())
		}
		select {
		case <-wake:
		case <-tick:
			if _, err := w.Write([]byte(": keepalive\n\n")); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-gs.stop:
			return
		case <-done:
			return
		case <-h.done:
			return
		case <-drain:
			// Tell the client when to reconnect (to another replica, or
			// to this one once it is back), then close.
			_, _ = w.Write([]byte("retry: 1000\n\n"))
			_ = rc.Flush()
			return
		}
	}
}

// setHTTPError sets the HTTP status of a lone JSON reply and headers for
// it (an interceptor's mcp.HTTPStatusError); a batch's replies share one
// answer, which keeps its 200.
func (rs *responder) setHTTPError(status int, header http.Header) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.batch || rs.sse || rs.ended || rs.st != nil {
		return
	}
	rs.status = status
	for k, v := range header {
		rs.w.Header()[k] = v
	}
}

// setStatus sets the HTTP status of the reply, when it goes out as JSON.
func (rs *responder) setStatus(status int) {
	rs.mu.Lock()
	rs.status = status
	rs.mu.Unlock()
}
