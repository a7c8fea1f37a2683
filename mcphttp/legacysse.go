package mcphttp

// The legacy HTTP+SSE transport of protocol revision 2024-11-05, for
// clients that predate Streamable HTTP (the TypeScript SDK's
// SSEClientTransport, the Python SDK's sse_client, the Go SDK's
// SSEClientTransport). It is a front end only: every message a client
// POSTs becomes a synthesized Streamable HTTP POST through the endpoint's
// chain to the same *Handler, and everything the engine answers on those
// requests and on the session's own GET stream is relayed to the client's
// SSE stream. See "Legacy HTTP+SSE" in docs/architecture.md.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/session"
)

// The paths [NewMux] mounts the legacy transport at (below its own root,
// so under a prefix too). The stream announces the messages endpoint as a
// reference relative to its own URL, so the pair also works behind a
// proxy that strips a prefix.
const (
	LegacySSEPath      = "/sse"
	LegacyMessagesPath = "/messages"
)

// legacySessionParam is the query parameter of the messages endpoint that
// names the stream (the TypeScript SDK's name).
const legacySessionParam = "sessionId"

// errLegacyStreamClosed is what relaying a message to a stream that has
// closed returns.
var errLegacyStreamClosed = errors.New("mcphttp: the legacy SSE stream has closed")

// legacySSE serves the two routes of the legacy transport for one Handler.
type legacySSE struct {
	h *Handler
	// endpoint is the chain of the synthesized requests: the endpoint's
	// own (recovery, the Host/Origin check, the server's authentication,
	// the mux's middleware), then admit, then the Handler with its own
	// chain.
	endpoint http.Handler

	mu       sync.Mutex
	sessions map[string]*legacySession
	// streams counts the open streams, initialized or not, in all and by
	// client (Options.MaxSessions, MaxSessionsPerClient): a stream holds
	// no session slot until its initialize.
	streams streamCap
}

// legacySession is one open legacy stream, and the engine session it
// stands for once the client initialized.
type legacySession struct {
	id     string
	client string   // clientKey of the caller, for legacySSE.streams
	auth   any      // the caller who opened the stream; its POSTs must come from the same one
	url    *url.URL // the stream's; the engine GET that relays the session's messages has it too

	ctx    context.Context // ends with the stream: cancels the synthesized requests
	cancel context.CancelFunc
	out    chan []byte   // messages for the stream; the stream's handler is the one writer
	done   chan struct{} // closed when the stream ends: relaying fails from then on
	pumped chan struct{} // closed when the relay of the engine's GET stream returns

	mu      sync.Mutex
	closing bool           // no new POSTs (and goroutines) are taken
	wg      sync.WaitGroup // the goroutines of synthesized requests; Add only under mu while !closing
	sid     string         // the engine's Mcp-Session-Id, once initialize succeeded
	version string         // the negotiated protocol revision
}

// mountLegacySSE mounts the legacy transport on mux: GET LegacySSEPath
// behind base, the Host/Origin check, the server's authentication and
// mw; POST LegacyMessagesPath behind base, whose messages then take the
// same chain to the Handler.
func mountLegacySSE(mux *http.ServeMux, h *Handler, base alice.Chain, mw []func(http.Handler) http.Handler) {
	l := &legacySSE{h: h, sessions: map[string]*legacySession{}}
	front := base.Append(h.rebind.middleware, h.AuthMiddleware).Append(constructors(mw)...)
	l.endpoint = front.Append(l.admit).Then(h)
	mux.Handle("GET "+LegacySSEPath, front.ThenFunc(l.serveStream))
	mux.Handle("POST "+LegacyMessagesPath, base.ThenFunc(l.serveMessage))
}

// serveStream opens a legacy stream: the endpoint event first, then every
// message the engine sends to this client, until the client goes away,
// the engine ends the session, or the server shuts down; then the
// session ends.
func (l *legacySSE) serveStream(w http.ResponseWriter, r *http.Request) {
	h := l.h
	if h.isShutDown() {
		httpError(w, http.StatusServiceUnavailable, nil, mcp.CodeServerError, "Service Unavailable: the server is shutting down")
		return
	}
	if r.Header.Get("Accept") != "" && !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, nil, mcp.CodeServerError,
			"Not Acceptable: the legacy SSE stream is text/event-stream; the Accept header must allow it")
		return
	}
	if r.Method == http.MethodHead {
		startSSE(w, "")
		return
	}
	key := clientKey(r, mcp.AuthFromContext(r.Context()))
	if no := l.streams.take(key, "legacy SSE streams", h.opts.MaxSessions, h.opts.MaxSessionsPerClient); no != nil {
		h.warned.limitReached.warn(h.log, "mcp: legacy SSE stream refused: stream limit reached", "remote", r.RemoteAddr, "status", no.status)
		w.Header().Set("Retry-After", "5")
		httpError(w, no.status, nil, mcp.CodeServerError, no.msg)
		return
	}
	ls := l.open(r, key)
	startSSE(w, "")
	rc := http.NewResponseController(w)
	endpoint := strings.TrimPrefix(LegacyMessagesPath, "/") + "?" + legacySessionParam + "=" + url.QueryEscape(ls.id)
	if _, err := fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint); err != nil || rc.Flush() != nil {
		l.close(ls, EndLost)
		return
	}
	h.log.Debug("mcp: legacy SSE stream opened", "stream", ls.id)

	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	write := func(b []byte) bool {
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	drain := h.drainCh()
	pumped := ls.pumped
	var idle chan struct{} // set when draining: closed once no request is in flight
	// startDrain begins a graceful end: no new messages are taken, the
	// calls in flight finish and deliver their answers, then idle closes.
	startDrain := func() {
		drain = nil
		idle = make(chan struct{})
		ls.mu.Lock()
		ls.closing = true
		ls.mu.Unlock()
		go func() {
			ls.wg.Wait()
			close(idle)
		}()
	}
	for {
		select {
		case msg := <-ls.out:
			if !write(appendLegacyEvent(make([]byte, 0, len(msg)+32), msg)) {
				l.close(ls, EndLost)
				return
			}
		case <-tick:
			if !write([]byte(": keepalive\n\n")) {
				l.close(ls, EndLost)
				return
			}
		case <-r.Context().Done():
			// The client closed the stream: on this transport that is
			// how a session is ended, as DELETE is on Streamable HTTP.
			l.close(ls, EndDeleted)
			return
		case <-pumped:
			// The engine's GET stream of the session ended: the engine
			// ended the session (EndSession, a client lost to pings), or
			// refused the stream, so nothing more can reach this client;
			// or the engine is draining (it may notice before this loop
			// does), and the calls in flight still finish first.
			pumped = nil
			switch {
			case idle != nil:
			case r.Context().Err() != nil:
				// The client closed the stream, which also ended the
				// engine's: both cases were ready, and the client's
				// close is the cause.
				l.close(ls, EndDeleted)
				return
			case closedCh(h.drainCh()):
				startDrain()
			default:
				l.close(ls, EndServer)
				return
			}
		case <-h.done:
			l.close(ls, EndServer)
			return
		case <-drain:
			startDrain()
		case <-idle:
			l.close(ls, EndServer)
			return
		}
	}
}

// appendLegacyEvent appends msg as one SSE "message" event, a data line
// per line of msg (JSON never needs more than one, but a raw result may
// be pretty-printed).
func appendLegacyEvent(b, msg []byte) []byte {
	b = append(b, "event: message\n"...)
	for line := range bytes.Lines(msg) {
		line = bytes.TrimRight(line, "\r\n")
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
	}
	return append(b, '\n')
}

// open registers a new stream for the caller of r.
func (l *legacySSE) open(r *http.Request, client string) *legacySession {
	// The stream's context keeps r's values (the connection's addresses,
	// what the middleware stored) for the engine GET it opens later; it
	// ends with the stream.
	ctx, cancel := context.WithCancel(r.Context())
	ls := &legacySession{id: session.NewID(), client: client, auth: mcp.AuthFromContext(r.Context()), url: cloneURL(r.URL),
		ctx: ctx, cancel: cancel, out: make(chan []byte), done: make(chan struct{}), pumped: make(chan struct{})}
	l.mu.Lock()
	l.sessions[ls.id] = ls
	l.mu.Unlock()
	return ls
}

// lookup returns the open stream id, or nil.
func (l *legacySSE) lookup(id string) *legacySession {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sessions[id]
}

// close ends a stream: later POSTs naming it get 404, relaying to it
// fails, its synthesized requests are cancelled, and the engine session
// ends with reason (unless the engine ended it already). It waits for the
// stream's goroutines, which return promptly once cancelled.
func (l *legacySSE) close(ls *legacySession, reason EndReason) {
	l.mu.Lock()
	delete(l.sessions, ls.id)
	l.mu.Unlock()
	ls.mu.Lock()
	ls.closing = true
	sid := ls.sid
	ls.mu.Unlock()
	close(ls.done)
	ls.cancel()
	if sid != "" {
		l.h.endSessionID(sid, reason)
	}
	ls.wg.Wait()
	l.streams.give(ls.client)
	l.h.log.Debug("mcp: legacy SSE stream closed", "stream", ls.id, "session", sid, "reason", reason)
}

// send hands msg to the stream's writer; it reports false when the stream
// has closed.
func (ls *legacySession) send(msg []byte) bool {
	select {
	case ls.out <- msg:
		return true
	case <-ls.done:
		return false
	}
}

// goroutine runs fn on a goroutine of the stream unless the stream is
// closing; it reports whether fn runs.
func (ls *legacySession) goroutine(fn func()) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.closing {
		return false
	}
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		fn()
	}()
	return true
}

// engine returns the engine session ID and the negotiated revision.
func (ls *legacySession) engine() (sid, version string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.sid, ls.version
}

// legacyPost is one synthesized request on its way through the chain.
type legacyPost struct {
	ls       *legacySession
	id       json.RawMessage // the JSON-RPC id of a request, else nil
	admitted chan struct{}   // closed by admit: the chain let the request through
}

type legacyPostKey struct{}

// admit is the last step of the synthesized requests' chain before the
// Handler: every check that may refuse the message with an HTTP status
// (Host/Origin, authentication, the mux's middleware) has passed, so the
// legacy POST of a request can be answered 202 while the engine works. It also checks
// that the caller is the one who opened the stream, so no one else's
// message, nor its error, ever reaches that stream.
func (l *legacySSE) admit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := r.Context().Value(legacyPostKey{}).(*legacyPost)
		if p == nil {
			next.ServeHTTP(w, r)
			return
		}
		if auth := mcp.AuthFromContext(r.Context()); !identity.Same(p.ls.auth, auth) {
			msg := "Forbidden: this SSE stream belongs to another caller"
			if subjectTrap(p.ls.auth, auth) {
				msg += subjectHint
			}
			httpError(w, http.StatusForbidden, p.id, mcp.CodeServerError, msg)
			return
		}
		close(p.admitted)
		next.ServeHTTP(w, r)
	})
}

// serveMessage takes one message of a legacy client: it checks what only
// this endpoint can (the stream, Content-Type, the body limit, the JSON-RPC
// envelope), then sends the message through the endpoint's chain to the
// Handler. The answer is the chain's own when it refuses the message (401
// from authentication, 403 from the Host/Origin check), else 202 Accepted:
// for a request once the chain admitted it (the engine's answer goes out
// on the stream), for a notification or a response once the engine has
// handled it.
func (l *legacySSE) serveMessage(w http.ResponseWriter, r *http.Request) {
	ls, body, msg, ok := l.readMessage(w, r)
	if !ok {
		return
	}

	p := &legacyPost{ls: ls, admitted: make(chan struct{})}
	if msg.IsRequest() {
		p.id = msg.ID
	}
	initialize := msg.Method == "initialize"
	// The synthesized request keeps r's values (auth data, addresses) but
	// not its end: it lives as long as the stream, whatever becomes of
	// this POST's connection after the 202.
	ctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(r.Context()), legacyPostKey{}, p))
	stop := context.AfterFunc(ls.ctx, cancel)
	sr := l.synthesize(r, ctx, ls, body)
	rw := &relayWriter{header: http.Header{}}
	var tmpl *http.Request // initialize: the template of the session's GET
	if initialize {
		tmpl = sr.Clone(context.WithoutCancel(r.Context()))
	}
	rw.emit = func(m []byte) error {
		if initialize {
			ls.noteVersion(m)
		}
		if !ls.send(m) {
			return errLegacyStreamClosed
		}
		return nil
	}
	if initialize {
		rw.onHeader = func() { l.initialized(ls, rw, tmpl) }
	}
	finished := make(chan struct{})
	run := func() {
		defer close(finished)
		defer cancel()
		defer stop()
		l.endpoint.ServeHTTP(rw, sr)
		select {
		case <-p.admitted:
			l.finish(ls, rw, msg)
		default: // refused by the chain: serveMessage answers with its response
		}
	}
	if !ls.goroutine(run) {
		stop()
		cancel()
		httpError(w, http.StatusServiceUnavailable, p.id, mcp.CodeServerError,
			"Service Unavailable: this SSE stream is closing; open a new one")
		return
	}
	// A request is answered once admitted: its response goes out on the
	// stream, and a long call must not hold the POST. A notification or a
	// response is answered once the engine has handled it, as Streamable
	// HTTP answers it (and the TypeScript SDK's SSE server): a client
	// that sends notifications/initialized and has its 202 is then told
	// of every list change, none falls between the 202 and the engine
	// marking the session initialized.
	admitted := p.admitted
	if !msg.IsRequest() {
		admitted = nil
	}
	select {
	case <-admitted:
	case <-finished:
		select {
		case <-p.admitted:
		default:
			rw.copyTo(w)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "Accepted")
}

// readMessage reads the message of a POST to the message endpoint: the
// stream its sessionId names, a JSON body within Options.MaxBodyBytes
// holding one JSON-RPC message, and a supported MCP-Protocol-Version when
// it sends one. When any is wrong it answers the error and reports false.
func (l *legacySSE) readMessage(w http.ResponseWriter, r *http.Request) (*legacySession, []byte, *jsonrpc.Message, bool) {
	id := r.URL.Query().Get(legacySessionParam)
	if id == "" {
		httpError(w, http.StatusBadRequest, nil, mcp.CodeServerError,
			"Bad Request: missing the sessionId query parameter; POST to the URL the SSE stream's endpoint event announced")
		return nil, nil, nil, false
	}
	ls := l.lookup(id)
	if ls == nil {
		httpError(w, http.StatusNotFound, nil, jsonrpc.CodeSessionNotFound,
			fmt.Sprintf("Session not found: no open SSE stream has sessionId %s (its stream closed, or it never existed); open a new stream with GET %s and initialize again", strictjson.Quote(id), LegacySSEPath))
		return nil, nil, nil, false
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, nil, mcp.CodeServerError,
			fmt.Sprintf("Unsupported Media Type: Content-Type must be application/json, not %s", strictjson.Quote(ct)))
		return nil, nil, nil, false
	}
	body, status, problem := readLegacyBody(r, l.h.opts.MaxBodyBytes)
	if status != 0 {
		code := int64(jsonrpc.CodeParseError)
		if status == http.StatusRequestEntityTooLarge {
			w.Header().Set("Connection", "close")
			code = jsonrpc.CodeInvalidRequest
		}
		httpError(w, status, jsonrpc.PrefixID(body), code, problem)
		return nil, nil, nil, false
	}
	msg, err := decodeLegacy(l.h.limits(), body)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		httpError(w, http.StatusBadRequest, de.ID, int64(de.Code), de.Message)
		return nil, nil, nil, false
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
		httpError(w, http.StatusBadRequest, msg.ID, mcp.CodeServerError,
			fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %s (supported: %s)", strictjson.Quote(v), strings.Join(supportedVersions, ", ")))
		return nil, nil, nil, false
	}
	return ls, body, msg, true
}

// readLegacyBody reads a POST body of at most limit bytes; on failure it
// returns what was read (for jsonrpc.PrefixID), the status to answer
// (else 0) and a message that says what was wrong.
func readLegacyBody(r *http.Request, limit int64) ([]byte, int, string) {
	tooLarge := fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", limit)
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return body, http.StatusRequestEntityTooLarge, tooLarge
		}
		return body, http.StatusBadRequest, "Parse error: reading the body failed: " + err.Error()
	}
	return body, 0, ""
}

// decodeLegacy decodes the one JSON-RPC message of a legacy POST. Batches
// are refused: the transport's revision (2024-11-05) has none, and the
// one that had them (2025-03-26) is spoken over Streamable HTTP.
func decodeLegacy(lim jsonrpc.Limits, body []byte) (*jsonrpc.Message, error) {
	if jsonrpc.IsBatch(body) {
		return nil, &jsonrpc.DecodeError{Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: the legacy HTTP+SSE transport takes one JSON-RPC message per POST, not a batch"}
	}
	return lim.Decode(body)
}

// synthesize makes the Streamable HTTP POST that carries a legacy message
// to the Handler: r's headers (credentials, Host, Origin) with the engine
// session's ID and revision, and body.
func (l *legacySSE) synthesize(r *http.Request, ctx context.Context, ls *legacySession, body []byte) *http.Request {
	sr := r.Clone(ctx)
	sid, version := ls.engine()
	hd := sr.Header
	hd.Del("Mcp-Session-Id") // never the client's: the stream decides the session
	if sid != "" {
		hd.Set("Mcp-Session-Id", sid)
	}
	if hd.Get("MCP-Protocol-Version") == "" && version != "" {
		hd.Set("MCP-Protocol-Version", version)
	}
	hd.Set("Content-Type", "application/json")
	hd.Set("Accept", "application/json, text/event-stream")
	hd.Del("Last-Event-ID")
	sr.Body = io.NopCloser(bytes.NewReader(body))
	sr.ContentLength = int64(len(body))
	sr.GetBody = nil
	sr.TransferEncoding = nil
	return sr
}

// noteVersion records the revision an initialize result negotiated, so
// POSTs of clients that do not send MCP-Protocol-Version carry it.
func (ls *legacySession) noteVersion(m []byte) {
	var probe struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(m, &probe) != nil || probe.Result == nil || probe.Result.ProtocolVersion == "" {
		return
	}
	ls.mu.Lock()
	ls.version = probe.Result.ProtocolVersion
	ls.mu.Unlock()
}

// initialized runs when the engine starts answering an initialize (before
// the result goes out): it binds the stream to the new engine session and
// opens the session's GET stream, whose messages (list changes, pings,
// roots/list) it relays to the legacy stream. gr is a copy of the
// synthesized initialize: the GET carries its credentials, so it comes
// from the caller of the session.
func (l *legacySSE) initialized(ls *legacySession, rw *relayWriter, gr *http.Request) {
	sid := rw.header.Get("Mcp-Session-Id")
	if rw.status != http.StatusOK || sid == "" {
		return // refused, or a stateless handler: no session to follow
	}
	ls.mu.Lock()
	if ls.sid != "" {
		ls.mu.Unlock()
		return
	}
	if ls.closing {
		// The stream closed meanwhile: the session has no client.
		ls.mu.Unlock()
		l.h.endSessionID(sid, EndDeleted)
		return
	}
	ls.sid = sid
	ls.mu.Unlock()
	// Should the stream close before this starts, close ends the session
	// (it has the ID now), so the pump is not needed.
	ls.goroutine(func() {
		defer close(ls.pumped)
		l.pump(ls, gr, sid)
	})
}

// pump relays the engine session's GET stream to the legacy stream until
// either ends. gr is a template of the request (the initialize POST's).
func (l *legacySSE) pump(ls *legacySession, gr *http.Request, sid string) {
	p := &legacyPost{ls: ls, admitted: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(gr.Context(), legacyPostKey{}, p))
	defer cancel()
	stop := context.AfterFunc(ls.ctx, cancel)
	defer stop()
	req := gr.Clone(ctx)
	req.Method = http.MethodGet
	req.URL = cloneURL(ls.url)
	req.RequestURI = ""
	req.Body = http.NoBody
	req.ContentLength = 0
	req.GetBody = nil
	hd := req.Header
	hd.Del("Content-Type")
	hd.Del("Content-Length")
	hd.Del("Last-Event-ID")
	hd.Set("Accept", "text/event-stream")
	hd.Set("Mcp-Session-Id", sid)
	rw := &relayWriter{header: http.Header{}, emit: func(m []byte) error {
		if !ls.send(m) {
			return errLegacyStreamClosed
		}
		return nil
	}}
	l.endpoint.ServeHTTP(rw, req)
	if rw.status != http.StatusOK && ls.ctx.Err() == nil {
		l.h.log.Warn("mcp: the engine refused the GET stream of a legacy SSE session; the stream closes",
			"stream", ls.id, "session", sid, "status", rw.status, "body", strictjson.ForLogBytes(bytes.TrimSpace(rw.buf)))
	}
}

// finish delivers what the engine answered to an admitted message once the
// Handler returned: a JSON response goes on the stream (an SSE answer went
// out event by event already); an HTTP error the engine answered after
// admission (the session ended meanwhile, say) becomes a JSON-RPC error
// response to a request, so its client is not left waiting.
func (l *legacySSE) finish(ls *legacySession, rw *relayWriter, msg *jsonrpc.Message) {
	if rw.sse {
		return
	}
	body := bytes.TrimSpace(rw.buf)
	if rw.status < 300 {
		if len(body) > 0 {
			_ = rw.emit(append([]byte(nil), body...))
		}
		return
	}
	l.h.log.Warn("mcp: the engine refused a legacy SSE message after it was accepted",
		"stream", ls.id, "method", strictjson.ForLog(msg.Method), "status", rw.status, "body", strictjson.ForLogBytes(body))
	if !msg.IsRequest() {
		return
	}
	code, text := int64(mcp.CodeServerError), http.StatusText(rw.status)
	if m, err := jsonrpc.Decode(body); err == nil && m.Error != nil {
		var e jsonrpc.ResponseError
		if json.Unmarshal(m.Error, &e) == nil {
			code, text = e.Code, e.Message
		}
	} else if len(body) > 0 {
		text += ": " + strictjson.Clip(string(body), 200)
	}
	_ = rw.emit(jsonrpc.AppendError(nil, msg.ID, code, text, nil))
}

func cloneURL(u *url.URL) *url.URL {
	c := *u
	if u.User != nil {
		user := *u.User
		c.User = &user
	}
	return &c
}

// closedCh reports whether ch is closed.
func closedCh(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
