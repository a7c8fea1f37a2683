package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/session"
)

// Resumable request streams (Options.Resumable): the transport spec's
// "Resumability and Redelivery" and the SSE polling of revision 2025-11-25
// (SEP-1699). Every request of a stateful session is answered on an SSE
// stream whose events carry IDs "<stream>_<n>" (n counts from 1; 0 is the
// priming event). The stream keeps its events until its response has been
// written to a connection, so a client whose connection broke, or was
// closed by the server with CloseSSEStream, resumes it with GET and
// Last-Event-ID: the events after that ID are replayed and the stream goes
// on live on the new connection. A disconnect does not cancel the request.

// DefaultRetryInterval is the default of [Options.RetryInterval].
const DefaultRetryInterval = time.Second

const (
	// maxStreamEvents bounds the events a stream keeps for replay; the
	// oldest go first.
	maxStreamEvents = 1024
	// maxParkedStreams bounds the finished streams a session keeps for a
	// client that has not resumed them yet; the oldest go first.
	maxParkedStreams = 64
)

// ErrNotResumable is returned by [CloseSSEStream] when the request's
// stream cannot be resumed by its client: Options.Resumable is off, the
// client speaks a revision before 2025-11-25 (it was sent no priming
// event, so it has no event ID to resume from), or the response was sent.
var ErrNotResumable = errors.New("mcphttp: the request's SSE stream is not resumable")

type streamKey struct{}

// CloseSSEStream closes the connection carrying the SSE stream of the
// request ctx belongs to (a tool's ctx), without ending the stream: the
// client reconnects after the retry interval with GET and Last-Event-ID,
// and gets what the request sent meanwhile, its response included. Long
// calls use it to avoid holding a connection open (SSE polling). It
// returns [ErrNotResumable] when the client could not resume; the request
// then goes on on its connection.
func CloseSSEStream(ctx context.Context) error {
	st, _ := ctx.Value(streamKey{}).(*stream)
	if st == nil || !st.primed {
		return ErrNotResumable
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return ErrNotResumable
	}
	if st.w != nil {
		_ = st.w.write(retryField(st.retry))
		st.detachLocked()
	}
	return nil
}

// stream is one resumable request stream.
type stream struct {
	id     string
	seq    uint64 // creation order in the session, for eviction
	c      *sessionState
	primed bool // the client was sent a priming event
	retry  time.Duration
	parked atomic.Bool // done and detached: kept only for a resume

	mu     sync.Mutex
	events [][]byte // framed events; events[i] is number first+i
	first  int
	next   int      // number of the next event
	done   bool     // the last event (the response) is in events
	w      *sseConn // the connection written to; nil while detached
}

// sseConn is one HTTP response carrying a stream. It is written to only
// under the stream's lock and only while attached, so never after its
// handler returned.
type sseConn struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone chan struct{} // closed on detach
}

func newSSEConn(w http.ResponseWriter) *sseConn {
	return &sseConn{w: w, rc: http.NewResponseController(w), gone: make(chan struct{})}
}

func (sc *sseConn) write(b []byte) error {
	if _, err := sc.w.Write(b); err != nil {
		return err
	}
	return sc.rc.Flush()
}

func eventID(stream string, n int) string { return stream + "_" + strconv.Itoa(n) }

func parseEventID(id string) (stream string, n int, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", 0, false
	}
	stream, num := id[:i], id[i+1:]
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return stream, n, true
}

func retryField(d time.Duration) []byte {
	return []byte("retry: " + strconv.FormatInt(d.Milliseconds(), 10) + "\n\n")
}

// resumable reports whether a request is answered on a resumable stream.
// initialize is not: its session is not live before it succeeds.
func (h *Handler) resumable(c *sessionState, msg *jsonrpc.Message) bool {
	return h.opts.Resumable && !h.opts.Stateless && !h.opts.JSONResponse && !c.ephemeral &&
		msg.Method != "initialize"
}

// openStream makes a stream for a request and registers it in the session.
func (c *sessionState) openStream(primed bool, retry time.Duration) *stream {
	st := &stream{id: session.NewID()[:16], c: c, primed: primed, retry: retry, first: 1, next: 1}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streams == nil {
		c.streams = map[string]*stream{}
	}
	c.streamSeq++
	st.seq = c.streamSeq
	c.streams[st.id] = st
	parked := 0
	var oldest *stream
	for _, s := range c.streams {
		if s.parked.Load() {
			parked++
			if oldest == nil || s.seq < oldest.seq {
				oldest = s
			}
		}
	}
	if parked > maxParkedStreams {
		delete(c.streams, oldest.id)
	}
	return st
}

func (c *sessionState) stream(id string) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

func (c *sessionState) dropStream(id string) {
	c.mu.Lock()
	delete(c.streams, id)
	c.mu.Unlock()
}

// send adds a message to the stream and writes it to the attached
// connection, if any; final marks the response. A message sent while the
// stream is detached waits for the client to resume.
func (st *stream) send(msg []byte, final bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return errStreamEnded
	}
	id := eventID(st.id, st.next)
	st.next++
	ev := appendEvent(make([]byte, 0, len(msg)+len(id)+32), id, msg)
	st.events = append(st.events, ev)
	if len(st.events) > maxStreamEvents {
		st.events[0] = nil
		st.events = st.events[1:]
		st.first++
	}
	st.done = final
	st.store(session.Event{N: st.next - 1, Data: msg, Final: final})
	if st.w != nil {
		if err := st.w.write(ev); err != nil {
			st.detachLocked()
		} else if final {
			st.deliveredLocked()
		}
	}
	if final && st.w == nil {
		st.parked.Store(true)
	}
	return nil
}

// Heartbeats of streams kept in a shared event store: a request that runs
// longer than resumeHeartbeat stores an empty event every resumeHeartbeat,
// and a replica following the stream for a client that resumed there
// answers the request with an error once it has seen no event for
// resumeOrphanAfter: the replica running it stopped (it was killed, or lost
// Redis), and the client would otherwise wait for ever.
const (
	resumeHeartbeat   = 2 * time.Second
	resumeOrphanAfter = 5 * time.Second
)

// heartbeats stores a heartbeat event every resumeHeartbeat until done.
func (st *stream) heartbeats(done <-chan struct{}) {
	t := time.NewTicker(resumeHeartbeat)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			st.heartbeat()
		}
	}
}

// heartbeat adds an event without data (a client skips it but keeps its
// ID) to a stream still waiting for its response.
func (st *stream) heartbeat() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return
	}
	id := eventID(st.id, st.next)
	st.next++
	ev := []byte("id: " + id + "\ndata: \n\n")
	st.events = append(st.events, ev)
	if len(st.events) > maxStreamEvents {
		st.events[0] = nil
		st.events = st.events[1:]
		st.first++
	}
	st.store(session.Event{N: st.next - 1})
	if st.w != nil && st.w.write(ev) != nil {
		st.detachLocked()
	}
}

// end finishes a stream that got no response (the request was cancelled).
func (st *stream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return
	}
	st.done = true
	// An empty final event tells replicas following it that it is over.
	st.store(session.Event{N: st.next, Final: true})
	if st.w != nil {
		st.deliveredLocked()
	} else {
		st.c.dropStream(st.id)
	}
}

// deliveredLocked ends the attached connection once the stream is complete
// on it; the stream is no longer needed.
func (st *stream) deliveredLocked() {
	st.detachLocked()
	st.events = nil
	st.c.dropStream(st.id)
	if ev := st.c.h.opts.Events; ev != nil {
		ctx, cancel := context.WithTimeout(context.Background(), eventStoreTimeout)
		defer cancel()
		if err := ev.Delete(ctx, st.c.sess.ID, st.id); err != nil {
			st.c.h.warned.storeFailed.warn(st.c.h.log, "mcp: the event store failed to drop a delivered stream (it expires by its TTL)", "session", st.c.sess.ID, "error", err)
		}
	}
}

// eventStoreTimeout bounds each call to Options.Events.
const eventStoreTimeout = 2 * time.Second

// store writes an event through to Options.Events, if set. A failure is
// logged: the stream still resumes on this replica.
func (st *stream) store(ev session.Event) {
	es := st.c.h.opts.Events
	if es == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), eventStoreTimeout)
	defer cancel()
	if err := es.Append(ctx, st.c.sess.ID, st.id, ev); err != nil {
		st.c.h.warned.storeFailed.warn(st.c.h.log, "mcp: the event store failed; the stream resumes on this replica only",
			"session", st.c.sess.ID, "stream", st.id, "error", err)
	}
}

func (st *stream) detachLocked() {
	if st.w == nil {
		return
	}
	close(st.w.gone)
	st.w = nil
	if st.done {
		st.parked.Store(true)
	}
}

func (st *stream) detach(sc *sseConn) {
	st.mu.Lock()
	if st.w == sc {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// attach makes sc the stream's connection, detaching any other. A new
// stream (after < 0) starts with the priming event; a resumed one first
// replays the events numbered above after.
func (st *stream) attach(sc *sseConn, after int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w != nil {
		st.detachLocked()
	}
	st.w = sc
	st.parked.Store(false)
	if after < 0 {
		if st.primed {
			b := "id: " + eventID(st.id, 0) + "\nretry: " + strconv.FormatInt(st.retry.Milliseconds(), 10) + "\ndata: \n\n"
			if sc.write([]byte(b)) != nil {
				st.detachLocked()
			}
			return
		}
		if sc.rc.Flush() != nil {
			st.detachLocked()
		}
		return
	}
	i := max(after+1-st.first, 0)
	for ; i < len(st.events); i++ {
		if sc.write(st.events[i]) != nil {
			st.detachLocked()
			return
		}
	}
	if len(st.events) == 0 && sc.rc.Flush() != nil {
		st.detachLocked()
		return
	}
	if st.done {
		st.deliveredLocked()
	}
}

// serveResumable answers a request on a new resumable stream. The request
// runs on its own goroutine with a context that outlives the connection
// (the session's end or notifications/cancelled still cancel it); the
// handler returns when the response is written, or when the connection is
// closed or taken over by a resumed GET.
func (h *Handler) serveResumable(w http.ResponseWriter, r *http.Request, c *sessionState, msg *jsonrpc.Message, version string) {
	// The message aliases the pooled body, which servePost reclaims when
	// this returns: the request may run longer.
	msg = &jsonrpc.Message{ID: clone(msg.ID), Method: msg.Method, Params: clone(msg.Params)}
	if err := h.acquire(r.Context(), c); err != nil {
		httpError(w, http.StatusServiceUnavailable, msg.ID, mcp.CodeServerError, err.Error())
		return
	}
	if version == "" {
		version = c.sess.ProtocolVersion()
	}
	retry := h.opts.RetryInterval
	st := c.openStream(mcp.Version(version).Compare(mcp.Version20251125) >= 0, retry)
	// Known to the event store before its first message, with the request's
	// ID for a replica that must answer it should this one stop.
	st.store(session.Event{N: 0, Data: msg.ID})
	rs := newResponder(w, h, c, false)
	rs.st = st
	rs.mu.Lock()
	rs.startSSE()
	rs.mu.Unlock()
	sc := newSSEConn(w)
	st.attach(sc, -1)

	// The request keeps the request context's values but not its
	// cancellation by a disconnect: only a deadline or another cause (a
	// timeout middleware) carries over.
	ctx, cancel := context.WithCancelCause(context.WithValue(context.WithoutCancel(r.Context()), streamKey{}, st))
	stop := context.AfterFunc(r.Context(), func() {
		if cause := context.Cause(r.Context()); !errors.Is(cause, context.Canceled) {
			cancel(cause)
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer h.release(c)
		defer cancel(nil)
		defer stop()
		// handleRequest recovers its own panics (docs/architecture.md, "Panics").
		h.handleRequest(r.WithContext(ctx), c, msg, rs)
		rs.end()
	}()
	if h.opts.Events != nil {
		go st.heartbeats(done)
	}
	select {
	case <-done:
	case <-sc.gone:
	case <-r.Context().Done():
		if !errors.Is(context.Cause(r.Context()), context.Canceled) {
			// A deadline (a timeout middleware), not a disconnect: it
			// cancelled the request, whose answer follows on this
			// connection.
			select {
			case <-done:
			case <-sc.gone:
			case <-c.doneCh():
				cancel(nil)
			}
		}
	case <-c.doneCh(): // the session ended
		cancel(nil)
	}
	// The request's deadline outlives its connection.
	if dl, ok := r.Context().Deadline(); ok &&
		(r.Context().Err() == nil || errors.Is(context.Cause(r.Context()), context.Canceled)) {
		t := time.AfterFunc(time.Until(dl), func() { cancel(errDeadline) })
		context.AfterFunc(ctx, func() { t.Stop() })
	}
	st.detach(sc)
}

// errDeadline cancels a resumable request whose deadline passed after its
// connection closed (the deadline's own cause is lost with the request
// context).
var errDeadline = fmt.Errorf("%w: the request's time limit passed after its connection closed", context.DeadlineExceeded)

// serveResume serves a GET with Last-Event-ID: it resumes the request
// stream the ID belongs to.
func (h *Handler) serveResume(w http.ResponseWriter, r *http.Request, c *sessionState, lastID string) {
	id, n, ok := parseEventID(lastID)
	var st *stream
	if ok {
		st = c.stream(id)
	}
	if st == nil && ok && h.opts.Events != nil {
		h.serveStoredResume(w, r, c, id, n)
		return
	}
	if st == nil && !ok {
		httpError(w, http.StatusBadRequest, nil, mcp.CodeServerError,
			"Bad Request: Last-Event-ID is not an event ID of this server")
		return
	}
	if st == nil {
		h.noStreamToResume(w, c.sess.ID, lastID)
		return
	}
	startSSE(w, c.sess.ID)
	sc := newSSEConn(w)
	st.attach(sc, n)
	select {
	case <-sc.gone:
	case <-r.Context().Done():
	case <-c.doneCh():
	case <-h.done:
	}
	st.detach(sc)
}

// noStreamToResume answers a resumption of a stream the session no longer
// has (its response was delivered, it ended, it expired from the event
// store, or it is another session's) with an SSE stream that ends at
// once, holding no events. A client takes an error status on a
// reconnecting GET as the end of its whole connection (the official Go
// SDK does); an empty stream ends only that request's wait.
func (h *Handler) noStreamToResume(w http.ResponseWriter, sid, lastID string) {
	h.log.Debug("mcp: Last-Event-ID names no stream this session can resume; answering an empty stream",
		"session", sid, "last_event_id", lastID)
	startSSE(w, sid)
}

// serveStoredResume resumes, from Options.Events, a stream this replica
// does not hold (another replica made it): it replays the events after
// the client's last one and follows the stream until its response.
func (h *Handler) serveStoredResume(w http.ResponseWriter, r *http.Request, c *sessionState, id string, after int) {
	sid := c.sess.ID
	evs, err := h.opts.Events.After(r.Context(), sid, id, after, 0)
	switch {
	case errors.Is(err, session.ErrNotFound):
		h.noStreamToResume(w, sid, id)
		return
	case err != nil:
		h.log.Error("mcp: the event store failed", "session", sid, "stream", id, "error", err)
		w.Header().Set("Retry-After", storeRetryAfter)
		httpError(w, http.StatusServiceUnavailable, nil, mcp.CodeInternalError,
			"Service Unavailable: the event store failed reading the stream to resume; retry later")
		return
	}
	startSSE(w, sid)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	drain := h.drainCh()
	lastSeen := time.Now()
	for {
		if len(evs) > 0 {
			lastSeen = time.Now()
		} else if time.Since(lastSeen) > resumeOrphanAfter {
			h.orphaned(w, r, sid, id)
			return
		}
		for _, ev := range evs {
			if ev.Final && len(ev.Data) == 0 {
				return // ended without a response (the request was cancelled)
			}
			frame := appendEvent(make([]byte, 0, len(ev.Data)+len(id)+32), eventID(id, ev.N), ev.Data)
			if len(ev.Data) == 0 { // a heartbeat
				frame = []byte("id: " + eventID(id, ev.N) + "\ndata: \n\n")
			}
			if _, err := w.Write(frame); err != nil {
				return
			}
			after = ev.N
			if ev.Final {
				_ = rc.Flush()
				ctx, cancel := context.WithTimeout(context.Background(), eventStoreTimeout)
				_ = h.opts.Events.Delete(ctx, sid, id)
				cancel()
				return
			}
		}
		if len(evs) > 0 && rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-c.doneCh():
			return
		case <-h.done:
			return
		case <-drain:
			_, _ = w.Write(retryField(h.opts.RetryInterval))
			_ = rc.Flush()
			return
		default:
		}
		evs, err = h.opts.Events.After(r.Context(), sid, id, after, storedResumeWait)
		if err != nil {
			if r.Context().Err() == nil {
				h.warned.storeFailed.warn(h.log, "mcp: the event store failed while following a resumed stream; the client may resume again", "session", sid, "stream", id, "error", err)
				_, _ = w.Write(retryField(h.opts.RetryInterval))
				_ = rc.Flush()
			}
			return
		}
	}
}

// orphaned answers, on a followed stream, the request of a stream whose
// replica stopped storing events (not even heartbeats): an internal error
// saying its outcome is unknown. Without the request's ID (a stream stored
// before IDs were) the stream just ends.
func (h *Handler) orphaned(w http.ResponseWriter, r *http.Request, sid, id string) {
	h.log.Warn("mcp: a resumed stream's replica stopped sending events; answering its request with an error",
		"session", sid, "stream", id, "after", resumeOrphanAfter)
	evs, err := h.opts.Events.After(r.Context(), sid, id, -1, 0)
	if err != nil || len(evs) == 0 || evs[0].N != 0 || len(evs[0].Data) == 0 {
		return
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"the replica running this request stopped (no event for %v); its outcome is unknown"}}`,
		evs[0].Data, mcp.CodeInternalError, resumeOrphanAfter)
	if _, err := w.Write(appendEvent(nil, "", msg)); err == nil {
		_ = http.NewResponseController(w).Flush()
	}
	ctx, cancel := context.WithTimeout(context.Background(), eventStoreTimeout)
	defer cancel()
	_ = h.opts.Events.Delete(ctx, sid, id)
}

// storedResumeWait is how long one read of a followed stream waits for
// its next event.
const storedResumeWait = 500 * time.Millisecond
