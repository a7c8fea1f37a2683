package mcphttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
)

// The protocol revisions the engine speaks, each named by its date so
// that the names sort as the revisions do.
const (
	Version20241105 = "2024-11-05" // the first revision; also the HTTP+SSE transport's
	Version20250326 = "2025-03-26" // Streamable HTTP, JSON-RPC batches
	Version20250618 = "2025-06-18" // structured tool output, elicitation
	Version20251125 = "2025-11-25" // the newest revision with initialize and sessions
	Version20260728 = "2026-07-28" // no initialize, no sessions: served per request
)

// NewestVersion is the newest revision the engine speaks.
const NewestVersion = Version20260728

// supportedVersions are the revisions negotiated by initialize, newest
// first; a client that asks for another is offered the first.
var supportedVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// SupportedVersions returns every protocol revision the engine speaks,
// newest first. The slice is a copy: changing it changes nothing.
func SupportedVersions() []string { return slices.Clone(allVersions) }

// versionAssumed is what a request without MCP-Protocol-Version is taken
// to speak (the transport spec's rule).
const versionAssumed = "2025-03-26"

// Defaults of [Options].
const (
	DefaultMaxBodyBytes       = 4 << 20
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultPageSize           = 500
	DefaultKeepAlive          = 25 * time.Second
	// maxQueued bounds the messages waiting for a session's GET stream.
	maxQueued = 256
)

// Options configure a [Handler]. The zero value (or nil) is a stateful
// handler with DNS-rebinding protection, a 4 MiB body limit, 30 minute
// session expiry, and pings as mcp.Options.Ping says.
type Options struct {
	// Stateless keeps no session: no Mcp-Session-Id is issued, every POST
	// stands alone, GET and DELETE answer 405. It is how one scales out.
	// Server-to-client requests (sampling, elicitation, roots) need a
	// session and fail with mcp.ErrCapability in this mode.
	Stateless bool
	// JSONResponse answers every request with application/json, never
	// SSE; notifications a tool sends during a request are then dropped
	// (and logged at debug level).
	JSONResponse bool
	// MaxBodyBytes bounds a POST body (413 beyond). Default 4 MiB.
	MaxBodyBytes int64
	// MaxDepth bounds how deeply one message nests objects and arrays
	// (the message object is level 1, params 2, a tool's arguments 3).
	// A deeper message is refused with -32600, naming the limit, after one
	// linear scan and before anything recursive reads it. Default 64
	// ([DefaultMaxDepth]); [Start] passes it to stdio.Options.MaxDepth.
	MaxDepth int
	// MaxBatch bounds the number of messages in a JSON-RPC batch (protocol
	// revision 2025-03-26 only); a longer batch is refused whole with 400
	// and -32600, naming the limit. Default 100 ([DefaultMaxBatch]).
	MaxBatch int
	// AllowVersionMismatch accepts, on a session, an MCP-Protocol-Version
	// header that names a supported version other than the one the session
	// negotiated; by default such a request gets 400 naming both. The
	// request is still served as the negotiated version, so the header
	// unlocks nothing (batches follow the negotiated version either way).
	// Turn it on only for clients that send a fixed header whatever they
	// negotiated (the official conformance suite's SSE scenarios do).
	AllowVersionMismatch bool
	// SessionIdleTimeout ends sessions idle that long. Default 30 min;
	// negative means never. What it costs: an idle session holds about
	// 1 KB (with its entry in the in-memory store; more while messages wait
	// for its GET stream), and it holds it for the whole timeout, so
	// memory is about 1 KB × the sessions opened per timeout: MaxSessions
	// (10,000) idle sessions hold about 10 MB; without that cap, a client
	// opening 100 sessions a second holds 180,000 (about 180 MB) at the
	// 30 minute default.
	SessionIdleTimeout time.Duration
	// Sessions stores session state. Default: an in-memory store.
	Sessions session.Store
	// PageSize is the number of items per page of the list methods.
	// Default 500.
	PageSize int
	// KeepAlive is the interval of SSE comment lines on idle GET streams.
	// Default 25 s; negative disables.
	KeepAlive time.Duration
	// Allow lists the Origins accepted besides loopback ones (and, off
	// loopback, the request's own host), and the Host values accepted on
	// a loopback listener besides loopback names; a request with another
	// gets 403 (see middleware.CheckOrigin). Pass the same list to
	// middleware.CORSOptions.Allow when browsers call the endpoint.
	Allow *middleware.AllowList
	// DisableDNSRebindingProtection turns the Host and Origin checks off.
	DisableDNSRebindingProtection bool
	// Hooks are told when a session starts and ends and when its roots
	// change (see [SessionHooks]); [Handler.Sessions] lists the live ones.
	Hooks *SessionHooks
	// Resumable makes request streams resumable (the transport's
	// "Resumability and Redelivery"; SSE polling, SEP-1699): every request
	// but initialize is answered on an SSE stream whose events carry IDs,
	// the stream's events are kept until its response is written, and a
	// client whose connection broke resumes it with GET and Last-Event-ID.
	// A broken connection then no longer cancels the request (the client
	// cancels with notifications/cancelled). Clients speaking 2025-11-25
	// or later first get a priming event (an ID, the retry interval, empty
	// data), and a tool may close its connection early with
	// [CloseSSEStream]. Streams live in this process's memory, and in
	// Events when set. Ignored when Stateless or JSONResponse.
	Resumable bool
	// Events, with Resumable, also keeps every request stream's events
	// in a shared store (redisstore.NewEventStore), so that a client
	// whose GET with Last-Event-ID lands on another replica resumes there:
	// that replica replays the stream from the store and follows it until
	// its response, while the request goes on on the replica that runs
	// it. nil: streams resume only on the replica that made them (another
	// one answers an empty stream).
	Events session.EventStore
	// Relay carries the answers to server-to-client requests (sampling,
	// elicitation, roots, pings) between replicas: an answer posted to a
	// replica other than the one that sent the request is relayed to it
	// (redisstore.NewRelay: Redis pub/sub, at most once). nil: such an
	// answer is dropped with a warning and answered 202 (an error status
	// ends the session of clients such as the official Go SDK), and the
	// tool that asked waits until its timeout.
	Relay session.Relay
	// RetryInterval is the SSE retry field of priming events and of
	// CloseSSEStream: how long a client waits before it reconnects.
	// Default 1 s.
	RetryInterval time.Duration
	// Logger receives diagnostics. Default: the server's logger.
	Logger *slog.Logger
	// LegacySSE makes [NewMux] (so [Start] too) also serve the deprecated
	// HTTP+SSE transport of revision 2024-11-05 for old clients: GET
	// /sse opens a stream, POST /messages?sessionId=… carries the client's
	// messages, through the endpoint's chain. Off by default. See
	// "Legacy HTTP+SSE" in the package doc.
	LegacySSE bool

	// Limits: what clients can make the handler hold (docs/deploy.md,
	// "Limits"). For each, zero means the default and a negative value
	// means no limit.

	// MaxConcurrentRequests bounds the requests the handler runs at once,
	// over all sessions: a POST's request or each request of a batch.
	// More wait, in arrival order, on the goroutine of their POST (a
	// batch's requests one after another, never a goroutine each) until a
	// slot frees, and are answered 503 if their client goes away or their
	// session ends first. Default 1024.
	MaxConcurrentRequests int
	// MaxSessionRequests bounds the requests one session runs at once,
	// the same way; it is what keeps one client's batches from taking
	// every slot of MaxConcurrentRequests. Default 64.
	MaxSessionRequests int
	// MaxSessions bounds the live sessions: an initialize beyond it is
	// answered 503 with Retry-After and a JSON-RPC error naming this
	// option. Sessions that end (DELETE, idle expiry, a lost client,
	// EndSession) free their slot. Default 10,000.
	MaxSessions int
	// MaxSessionsPerClient bounds the live sessions of one client: the
	// subject of its auth data when it implements mcp.Subject, else its
	// remote address (an IPv6 address by its /64). An initialize beyond it
	// is answered 429 with Retry-After. Requests from a loopback address
	// (a local reverse proxy brings every client from there) and
	// in-process ones (stdio, embedded) are not counted per client; behind
	// a proxy, authenticate, or set r.RemoteAddr from its X-Forwarded-For
	// in a middleware. Default 100.
	MaxSessionsPerClient int
	// BodyReadTimeout bounds reading a POST body, from the moment the
	// handler starts on the request: a client that sends it slower is
	// answered 408 and its connection closed. It is a read deadline on
	// the connection for the body alone (cleared once read, so SSE
	// answers of any length are not cut; never set on GET streams).
	// Default 30 s.
	BodyReadTimeout time.Duration

	// StateKey is the secret that seals the requestState of the
	// input-required results of revision 2026-07-28 (AES-256-GCM under a
	// key derived from it; at least 16 bytes, 32 random ones
	// recommended). Unset, each process draws a random one: replicas
	// behind one endpoint must share it, or a client's next round that
	// lands on another replica is refused (-32602). See "Protocol
	// revisions" in the package doc.
	StateKey []byte
	// StateTTL is how long a requestState is accepted after it was
	// issued. Default DefaultStateTTL (10 minutes).
	StateTTL time.Duration
}

// Handler serves one MCP server over Streamable HTTP at a single endpoint
// (POST, GET and DELETE); it never reads the URL path, so it mounts under
// any prefix. Use [New] to make one, and Close it when done.
type Handler struct {
	srv   *mcp.Server
	opts  Options
	log   *slog.Logger
	store session.Store

	mu      sync.RWMutex
	conns   map[string]*conn
	closed  bool
	reaping bool
	// The session caps (limits.go): sessions counted, in all and per
	// client key; guarded by mu.
	live      int
	perClient map[string]int
	// slots bounds the requests running at once (MaxConcurrentRequests);
	// nil: no limit.
	slots chan struct{}

	chain http.Handler // the engine's own middleware, then serve (doc.go)
	// admitted is chain without the authentication step, for NewMux's
	// endpoint, which runs that step itself in front (authenticateOnce).
	admitted http.Handler
	ping     *middleware.Ping // nil: pings off
	hooks    SessionHooks

	// auth is the server's authentication as middleware (nil when the
	// server has none); the chain runs it unless Authenticate already did.
	auth      func(http.Handler) http.Handler
	stopWatch func()
	listen    listeners // open subscriptions/listen streams (listen.go)
	draining  chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup
	// subjectTrapOnce logs the first refusal subjectTrap explains.
	subjectTrapOnce sync.Once
	// replica tags the IDs of the server-to-client requests this handler
	// sends when its session store may be shared (anything but the
	// default in-memory store): they count up from it, so that an answer
	// reaching another replica is recognised there (relayed by
	// Options.Relay, else dropped with a warning). 0: not shared, IDs
	// count from 1.
	replica int64
	// stopRelay ends the subscription to Options.Relay (nil: none).
	stopRelay func()
	// states seals the requestState of input-required results (mrtr.go).
	states *sealer
	// tasks are the tasks this handler runs (tasks.go).
	tasks tasks
	// initJSON caches the encoded result of initialize (sessions.go).
	initJSON initResults
}

// relayed is an answer relayed to the replica that sent its request.
type relayed struct {
	Session string          `json:"s"`
	Message json.RawMessage `json:"m"`
}

// relayTo sends an answer to the replica whose tag its ID carries.
func (h *Handler) relayTo(c *conn, key string, m *jsonrpc.Message) bool {
	n, err := strconv.ParseInt(key, 10, 64)
	if err != nil || h.opts.Relay == nil {
		return false
	}
	raw := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}{"2.0", m.ID, m.Result, m.Error}
	msg, err := json.Marshal(raw)
	if err != nil {
		return false
	}
	b, err := json.Marshal(relayed{Session: c.sess.ID, Message: msg})
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := h.opts.Relay.Send(ctx, strconv.FormatInt(n>>replicaShift, 10), b); err != nil {
		h.log.Warn("mcp: relaying an answer to the replica that asked failed", "session", c.sess.ID, "error", err)
		return false
	}
	return true
}

// onRelayed delivers an answer another replica relayed here.
func (h *Handler) onRelayed(b []byte) {
	var r relayed
	if err := json.Unmarshal(b, &r); err != nil {
		h.log.Warn("mcp: a relayed answer is not valid; dropped", "error", err)
		return
	}
	h.mu.RLock()
	c := h.conns[r.Session]
	h.mu.RUnlock()
	if c == nil {
		h.log.Debug("mcp: a relayed answer's session is not here; dropped", "session", r.Session)
		return
	}
	m, err := h.limits().Decode(r.Message)
	if err != nil {
		h.log.Warn("mcp: a relayed answer is not valid JSON-RPC; dropped", "session", r.Session)
		return
	}
	c.deliver(m)
}

// replicaShift puts a replica's tag above the request counter of each of
// its sessions (2^21 requests), below 2^53 (exact in every JSON number).
const replicaShift = 21

// otherReplica reports whether a response ID is that of a request
// another replica (one with another tag) sent.
func (h *Handler) otherReplica(key string) bool {
	if h.replica == 0 {
		return false
	}
	n, err := strconv.ParseInt(key, 10, 64)
	return err == nil && n>>replicaShift != 0 && n>>replicaShift != h.replica>>replicaShift
}

// dropForeignAnswer logs, and drops, the POST of a response that belongs
// to a request another replica sent, with no relay to carry it there. The
// POST is still answered 202: the answer is lost either way (the replica
// that asked times out), and an error status would make a client such as
// the official Go SDK close its connection for good.
func (h *Handler) dropForeignAnswer(c *conn, msg *jsonrpc.Message) {
	h.log.Warn("mcp: dropped the answer to a server-to-client request (sampling, elicitation, roots or ping) that another replica sent; "+
		"such answers reach the replica that asked only through Options.Relay or sticky sessions on Mcp-Session-Id",
		"session", c.sess.ID, "id", strictjson.ForLogBytes(msg.ID))
}

// takeSessionlessNotification answers 202 to a notification that names no
// session on a stateful endpoint, and logs it at debug level: it has no
// session to act on, and a client can send one in a race with its own
// initialize (roots/list_changed while connecting, notifications/cancelled
// for an initialize that timed out), where an error status would make a
// client such as the official Go SDK close its connection for good.
func (h *Handler) takeSessionlessNotification(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if h.log.Enabled(r.Context(), slog.LevelDebug) {
		h.log.Debug("mcp: a notification without Mcp-Session-Id taken; it has no session to act on",
			"method", strictjson.Clip(msg.Method, strictjson.MaxQuoted))
	}
	w.WriteHeader(http.StatusAccepted)
}

// New returns a handler serving srv. opts may be nil.
//
// The handler is the MCP endpoint alone, and it is complete: however it
// is served (mounted bare in any mux under any prefix, through [NewMux] or
// [Start], over stdio or embedded) it runs its own DNS-rebinding check, the
// server's authentication (mcp.Options.Authenticate, else Options.Auth; see
// [Handler.AuthMiddleware]), the session-ID check, pings (mcp.Options.Ping)
// and the roots policy (mcp.Options.Roots). What needs routes of its own
// comes with [NewMux]: the health endpoint, the server's custom routes
// (mcp.Server.AddRoute), the OAuth discovery documents and the auth
// provider's OAuth endpoints. Close the handler when done.
func New(srv *mcp.Server, opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultRetryInterval
	}
	if o.Logger == nil {
		o.Logger = srv.Logger()
	}
	if o.Sessions == nil {
		o.Sessions = session.NewMemoryStore()
	}
	h := &Handler{srv: srv, opts: o, log: o.Logger, store: o.Sessions,
		conns: map[string]*conn{}, done: make(chan struct{})}
	states, err := newSealer(o.StateKey, o.StateTTL)
	if err != nil {
		panic(err) // a configuration error, like a bad mux pattern
	}
	h.states = states
	if o.Hooks != nil {
		h.hooks = *o.Hooks
	}
	if _, mem := o.Sessions.(*session.MemoryStore); !mem || o.Events != nil || o.Relay != nil {
		var b [4]byte
		_, _ = rand.Read(b[:])
		h.replica = (int64(binary.BigEndian.Uint32(b[:])>>1) | 1) << replicaShift
	}
	if h.replica != 0 && o.Relay != nil {
		stop, err := o.Relay.Subscribe(context.Background(), strconv.FormatInt(h.replica>>replicaShift, 10), h.onRelayed)
		if err != nil {
			h.log.Error("mcp: subscribing to the relay failed; answers that reach another replica are refused", "error", err)
			h.opts.Relay = nil
		} else {
			h.stopRelay = stop
		}
	}
	h.initLimits()
	if po := srv.Options().Ping; (po == nil || !po.Disabled) && !o.Stateless {
		var popts mcp.PingOptions
		if po != nil {
			popts = *po
		}
		if popts.Logger == nil {
			popts.Logger = o.Logger
		}
		h.ping = middleware.NewPing(enginePinger{h}, &popts)
	}
	h.initAuth()
	h.chain = h.newChain(true)
	h.admitted = h.newChain(false)
	h.stopWatch = hook.watch(srv, h.onChange)
	return h
}

// newChain composes the engine's own middleware in front of serve: the
// DNS-rebinding check, the session-ID check, and pings for GET streams
// that came over the network. See doc.go for the order and why.
// withAuth false leaves out the authentication step: the chain NewMux
// mounts behind its own (authenticateOnce).
func (h *Handler) newChain(withAuth bool) http.Handler {
	var c alice.Chain
	if !h.opts.DisableDNSRebindingProtection {
		c = c.Append(middleware.CheckOrigin(h.opts.Allow))
	}
	if h.auth != nil && withAuth {
		c = c.Append(h.authStep)
	}
	c = c.Append(middleware.SessionID)
	if h.ping != nil {
		c = c.Append(networkGETs(h.ping.Middleware))
	}
	return c.ThenFunc(h.serve)
}

// networkGETs applies mw (the ping middleware, which watches GET streams)
// to GET requests that arrived over a network connection, and passes the
// others (POSTs, which it would pass on untouched, and stdio and embedded
// sessions, whose requests carry no http.LocalAddrContextKey) straight to
// next. The method is looked at first: it is a field, where the address
// is a lookup through every context that the request's context wraps.
func networkGETs(mw alice.Constructor) alice.Constructor {
	return func(next http.Handler) http.Handler {
		wrapped := mw(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.Context().Value(http.LocalAddrContextKey) == nil {
				next.ServeHTTP(w, r)
				return
			}
			wrapped.ServeHTTP(w, r)
		})
	}
}

// enginePinger is the handler as the ping middleware sees it: a session
// it ends is one whose client was lost.
type enginePinger struct{ h *Handler }

func (p enginePinger) PingSession(ctx context.Context, id string) error {
	return p.h.PingSession(ctx, id)
}

func (p enginePinger) EndSession(id string) { p.h.endSessionID(id, EndLost) }

// Server returns the MCP server the handler serves.
func (h *Handler) Server() *mcp.Server { return h.srv }

// Close ends every session (cancelling its in-flight requests and closing
// its streams) and stops the handler's background work. Requests after
// Close get 503.
func (h *Handler) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	conns := h.conns
	h.conns = map[string]*conn{}
	h.live, h.perClient = 0, nil
	h.mu.Unlock()
	h.stopWatch()
	if h.stopRelay != nil {
		h.stopRelay()
	}
	if h.ping != nil {
		h.ping.Close()
	}
	close(h.done)
	for _, c := range conns {
		c.close()
		h.ended(c, EndServer)
	}
	h.wg.Wait()
	return nil
}

// SessionCount returns the number of live sessions.
func (h *Handler) SessionCount() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.conns)
}

// ServeHTTP implements http.Handler. It runs the engine's own chain (see
// the package doc): the Host/Origin check, the server's authentication
// (unless [Handler.AuthMiddleware] already ran it for this request), the
// session-ID check, pings, then the request itself.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.chain.ServeHTTP(w, r)
}

// serve is the end of the engine's own chain: one request, by method.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.servePost(w, r)
	case http.MethodGet, http.MethodDelete:
		if h.refuseModernGetDelete(w, r) {
			return
		}
		if r.Method == http.MethodGet {
			h.serveGet(w, r)
		} else {
			h.serveDelete(w, r)
		}
	default:
		if h.opts.Stateless {
			w.Header().Set("Allow", "POST")
		} else {
			w.Header().Set("Allow", "GET, POST, DELETE")
		}
		httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError,
			fmt.Sprintf("Method Not Allowed: the MCP endpoint takes POST, GET and DELETE, not %s", strictjson.Quote(r.Method)))
	}
}

// httpError writes a JSON-RPC error body with an HTTP error status.
func httpError(w http.ResponseWriter, status int, id []byte, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := jsonrpc.AppendError(make([]byte, 0, 128+len(msg)), id, code, msg, nil)
	_, _ = w.Write(append(b, '\n'))
}

// accepts reports whether the Accept header lists every one of types (or
// a wildcard that covers them). It allocates nothing: it runs on every
// POST.
func accepts(r *http.Request, types ...string) bool {
	vals := r.Header[header.Accept]
	if len(vals) == 0 {
		return false
	}
	// The value the SDKs' clients send, which lists both types a POST
	// needs, is known without parsing it.
	both := len(vals) == 1 && vals[0] == acceptBoth
	for _, t := range types {
		if both && (t == mediaJSON || t == mediaSSE) {
			continue
		}
		if !acceptsType(vals, t) {
			return false
		}
	}
	return true
}

// The media types of the transport, and the Accept value that lists both.
const (
	mediaJSON  = "application/json"
	mediaSSE   = "text/event-stream"
	acceptBoth = mediaJSON + ", " + mediaSSE
)

// acceptsType reports whether one of the media ranges in vals covers t:
// t itself, its type's wildcard ("text/*") or "*/*" (case does not matter;
// parameters such as q are ignored).
func acceptsType(vals []string, t string) bool {
	major, _, _ := strings.Cut(t, "/")
	for _, v := range vals {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt := mediaType(part)
			if strings.EqualFold(mt, t) || mt == "*/*" {
				return true
			}
			if m, sub, ok := strings.Cut(mt, "/"); ok && sub == "*" && strings.EqualFold(m, major) {
				return true
			}
		}
	}
	return false
}

// mediaType is the media type of a Content-Type value or Accept range:
// what precedes the first ';', without surrounding spaces.
func mediaType(v string) string {
	mt, _, _ := strings.Cut(v, ";")
	return strings.TrimSpace(mt)
}

func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	ct := header.Get(r.Header, header.ContentType)
	if ct != mediaJSON && !strings.EqualFold(mediaType(ct), mediaJSON) {
		refuseMediaType(w, ct)
		return
	}
	want := []string{mediaJSON, mediaSSE}
	if h.opts.JSONResponse {
		want = want[:1]
	}
	if !accepts(r, want...) {
		httpError(w, http.StatusNotAcceptable, nil, mcp.CodeServerError,
			"Not Acceptable: the Accept header must list both application/json and text/event-stream")
		return
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		h.refuseTooLarge(w, h.idOfTooLarge(w, r))
		return
	}
	body, err := h.readPostBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		h.refuseBody(w, err, jsonrpc.PrefixID(body.b))
		putBody(body)
		return
	}
	defer putBody(body)
	headerVersion := header.Get(r.Header, hdrProtocolVersion)
	badVersion := headerVersion != "" && !slices.Contains(supportedVersions, headerVersion)
	if jsonrpc.IsBatch(body.b) {
		if refuseModernBatch(w, headerVersion) {
			return
		}
		if badVersion {
			refuseVersion(w, nil, headerVersion)
			return
		}
		h.serveBatch(w, r, body.b)
		return
	}
	msg, err := h.limits().Decode(body.b)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		httpError(w, http.StatusBadRequest, de.ID, int64(de.Code), de.Message)
		return
	}
	if isModern(headerVersion, msg) {
		h.serveModern(w, r, msg, headerVersion)
		return
	}
	if badVersion {
		refuseVersion(w, msg.ID, headerVersion)
		return
	}
	if !h.opts.Stateless && msg.IsNotification() && middleware.SessionIDFromContext(r.Context()) == "" {
		h.takeSessionlessNotification(w, r, msg)
		return
	}
	c, ok := h.resolve(w, r, msg.Method == "initialize", msg.ID)
	if !ok {
		return
	}
	if c.ephemeral {
		defer c.close()
	}
	if msg.Method == "initialize" {
		defer h.settle(c)
	}
	switch {
	case msg.IsRequest() && h.resumable(c, msg):
		h.serveResumable(w, r, c, msg, headerVersion)
	case msg.IsRequest():
		h.runRequest(w, r, c, msg)
	case msg.IsNotification():
		h.handleNotification(r, c, msg)
		w.WriteHeader(http.StatusAccepted)
	default:
		if !c.deliver(msg) {
			h.dropForeignAnswer(c, msg)
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// The refusals of servePost, kept out of it (go:noinline) so that the
// frame every POST carries down to the tool does not hold their
// formatting (see replyError).

//go:noinline
func refuseMediaType(w http.ResponseWriter, ct string) {
	httpError(w, http.StatusUnsupportedMediaType, nil, mcp.CodeServerError,
		fmt.Sprintf("Unsupported Media Type: Content-Type must be application/json, not %s", strictjson.Quote(ct)))
}

//go:noinline
func (h *Handler) refuseTooLarge(w http.ResponseWriter, id []byte) {
	w.Header().Set("Connection", "close")
	httpError(w, http.StatusRequestEntityTooLarge, id, mcp.CodeInvalidRequest,
		fmt.Sprintf("Payload Too Large: the body exceeds %d bytes", h.opts.MaxBodyBytes))
}

// idPrefixBytes is how much of a body whose Content-Length is over the
// limit is read to find the request's id (see jsonrpc.PrefixID).
const idPrefixBytes = 1024

// idOfTooLarge reads the start of a body whose Content-Length is over
// the limit for the request's id, so that the 413 names the call and the
// client fails that call alone. A client that waits for 100 Continue is
// not asked for its body.
//
//go:noinline
func (h *Handler) idOfTooLarge(w http.ResponseWriter, r *http.Request) []byte {
	if strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return nil
	}
	b, _ := h.readPostBody(w, r, idPrefixBytes)
	id := jsonrpc.PrefixID(b.b)
	if id != nil {
		id = bytes.Clone(id)
	}
	putBody(b)
	return id
}

// refuseBody answers a POST whose body could not be read; id is the
// request's, when the part that arrived names it.
//
//go:noinline
func (h *Handler) refuseBody(w http.ResponseWriter, err error, id []byte) {
	if h.bodyTimedOut(w, err, id) {
		return
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		h.refuseTooLarge(w, id)
		return
	}
	httpError(w, http.StatusBadRequest, id, mcp.CodeParseError, "Parse error: reading the body failed: "+err.Error())
}

//go:noinline
func refuseVersion(w http.ResponseWriter, id []byte, version string) {
	httpError(w, http.StatusBadRequest, id, mcp.CodeServerError,
		fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %s (supported: %s)", strictjson.Quote(version), strings.Join(supportedVersions, ", ")))
}

// serveBatch handles a JSON-RPC batch, which only the 2025-03-26 revision
// allows.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	msgs, errs, err := h.limits().DecodeBatch(body)
	if err != nil {
		de := err.(*jsonrpc.DecodeError)
		httpError(w, http.StatusBadRequest, nil, int64(de.Code), de.Message)
		return
	}
	if slices.ContainsFunc(msgs, func(m *jsonrpc.Message) bool { return m != nil && m.Method == "initialize" }) {
		httpError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest,
			"Invalid Request: initialize must not be part of a JSON-RPC batch")
		return
	}
	c, ok := h.resolve(w, r, false, nil)
	if !ok {
		return
	}
	if c.ephemeral {
		defer c.close()
	}
	// The negotiated version decides (resolve refused a header that
	// differs from it), not what the header claims.
	version := c.sess.ProtocolVersion()
	if version != "2025-03-26" {
		httpError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: JSON-RPC batches are only allowed in protocol revision 2025-03-26, not %s; send one message per POST", version))
		return
	}
	rs := newResponder(w, h, c, h.opts.JSONResponse)
	rs.batch = true
	var wg sync.WaitGroup
	requests := 0
	for i, m := range msgs {
		if errs[i] != nil {
			de := errs[i].(*jsonrpc.DecodeError)
			rs.reply(jsonrpc.AppendError(nil, de.ID, int64(de.Code), de.Message, nil))
			requests++
			continue
		}
		switch {
		case m.IsRequest():
			requests++
			// A goroutine per request only once it holds a slot: the rest
			// of the batch waits here (Options.MaxSessionRequests).
			if err := h.acquire(r.Context(), c); err != nil {
				rs.reply(jsonrpc.AppendError(nil, m.ID, mcp.CodeServerError, err.Error(), nil))
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer h.release(c)
				h.handleRequest(r, c, m, rs)
			}()
		case m.IsNotification():
			h.handleNotification(r, c, m)
		default:
			c.deliver(m)
		}
	}
	wg.Wait()
	if requests == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	rs.end()
}

// resolve finds or makes the session of a POST. It writes the error
// response itself and returns false when there is none to be had.
func (h *Handler) resolve(w http.ResponseWriter, r *http.Request, initialize bool, id []byte) (*conn, bool) {
	h.mu.RLock()
	closed := h.closed
	h.mu.RUnlock()
	if closed {
		httpError(w, http.StatusServiceUnavailable, id, mcp.CodeServerError, "Service Unavailable: the server is shutting down")
		return nil, false
	}
	auth := mcp.AuthFromContext(r.Context())
	if h.opts.Stateless {
		c := h.newConn(nil, true)
		v := header.Get(r.Header, hdrProtocolVersion)
		if v == "" {
			v = versionAssumed
		}
		c.sess.Init(v, mcp.Implementation{}, mcp.ClientCapabilities{}, auth)
		c.sess.SetInitialized()
		return c, true
	}
	// The SessionID middleware of the engine's chain checked the header.
	sid := middleware.SessionIDFromContext(r.Context())
	if initialize {
		if sid != "" {
			if c, _ := h.lookup(r.Context(), sid, auth); c != nil {
				httpError(w, http.StatusBadRequest, id, mcp.CodeInvalidRequest,
					"Invalid Request: this session is already initialized; send initialize without Mcp-Session-Id to start a new one")
				return nil, false
			}
		}
		sess := sessionstate.New(time.Now())
		c := h.newConn(sess, false)
		if !h.admit(w, r, c, auth, id) {
			return nil, false
		}
		return c, true
	}
	if sid == "" {
		httpError(w, http.StatusBadRequest, id, mcp.CodeServerError,
			"Bad Request: missing Mcp-Session-Id header; send initialize first and echo the session ID it returns")
		return nil, false
	}
	c, err := h.lookup(r.Context(), sid, auth)
	switch {
	case errors.Is(err, session.ErrNotFound):
		httpError(w, http.StatusNotFound, id, mcp.CodeSessionNotFound,
			"Session not found: it ended or expired; start a new session with initialize")
		return nil, false
	case errors.Is(err, errOtherCaller):
		c = nil // answered 403 below
	case err != nil:
		h.log.Error("mcp: the session store failed", "session", sid, "error", err)
		w.Header().Set("Retry-After", storeRetryAfter)
		httpError(w, http.StatusServiceUnavailable, id, mcp.CodeInternalError,
			"Service Unavailable: the session store failed looking up this session; retry later")
		return nil, false
	}
	if c == nil || !sameCaller(c.sess.Auth(), auth) {
		// 403, not 404: IDs are 128 random bits, so the answer tells a
		// prober nothing, and it tells a confused client what is wrong.
		msg := "Forbidden: this session belongs to another caller (a session is bound to the identity that initialized it, anonymous included); send initialize to start a session of your own"
		if c != nil && subjectTrap(c.sess.Auth(), auth) {
			msg += subjectHint
			h.subjectTrapOnce.Do(func() {
				h.log.Warn("mcp: a session's caller was refused because its auth data differs from the data that initialized it; "+
					"if that type holds per-request values (a timestamp, an expiry), implement mcp.Subject on it",
					"type", fmt.Sprintf("%T", auth), "session", c.sess.ID)
			})
		}
		httpError(w, http.StatusForbidden, id, mcp.CodeServerError, msg)
		return nil, false
	}
	if !h.checkVersion(w, r, c, id) {
		return nil, false
	}
	c.sess.Touch(time.Now())
	return c, true
}

// sameCaller reports whether the auth data of a request may use a session
// created with sessAuth: a session's identity never changes. An anonymous
// session (nil) admits only anonymous callers, and a caller without auth
// data may use only an anonymous session. Auth data implementing
// mcp.Subject is compared by subject; other values must be equal.
func sameCaller(sessAuth, auth any) bool {
	if sessAuth == nil || auth == nil {
		return sessAuth == nil && auth == nil
	}
	a, ok1 := sessAuth.(mcp.Subject)
	b, ok2 := auth.(mcp.Subject)
	if ok1 && ok2 {
		return a.Subject() == b.Subject()
	}
	return equalAuth(sessAuth, auth)
}

// subjectTrap reports whether sameCaller refused auth for a session
// made with sessAuth only by comparing two values of one type that does
// not implement mcp.Subject: the trap of auth data that carries a
// per-request value, which never equals the one that initialized.
func subjectTrap(sessAuth, auth any) bool {
	if sessAuth == nil || auth == nil || reflect.TypeOf(sessAuth) != reflect.TypeOf(auth) {
		return false
	}
	_, ok := auth.(mcp.Subject)
	return !ok
}

// subjectHint ends the 403 of a refusal subjectTrap reports.
const subjectHint = ". Auth data without mcp.Subject binds a session by equality of the whole value: if it holds per-request values (a timestamp, a token expiry), the server should implement mcp.Subject on it to bind sessions to a stable user id"

// errOtherCaller: the stored session is bound to another identity.
var errOtherCaller = errors.New("mcphttp: the session belongs to another caller")

// sessionTTL is the idle expiry of stored sessions.
func (h *Handler) sessionTTL() time.Duration { return max(h.opts.SessionIdleTimeout, 0) }

// lookup finds the session id for a caller with auth data auth. Every
// lookup touches the stored record (restarting its idle TTL) and takes
// what other replicas wrote to it (log level, subscriptions); a session
// this process does not hold is adopted from the store when the caller's
// identity matches the one it was made for. It returns
// session.ErrNotFound for a session that ended (here or on another
// replica) or expired, errOtherCaller, or the store's error.
func (h *Handler) lookup(ctx context.Context, id string, auth any) (*conn, error) {
	h.mu.RLock()
	c, ok := h.conns[id]
	h.mu.RUnlock()
	if ms, mem := h.store.(*session.MemoryStore); ok && mem {
		// A live session only takes what others changed: no copy of the
		// record. The default store only, not a type that embeds it,
		// whose own Touch must run.
		err := ms.TouchApply(ctx, id, h.sessionTTL(), c.sess.Apply)
		if errors.Is(err, session.ErrNotFound) {
			h.endLocal(c, EndDeleted) // expired
		}
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	rec, err := h.store.Touch(ctx, id, h.sessionTTL())
	if err != nil {
		if ok && errors.Is(err, session.ErrNotFound) {
			// Ended on another replica, or expired: end it here too.
			h.endLocal(c, EndDeleted)
		}
		return nil, err
	}
	if ok {
		c.sess.Apply(rec)
		return c, nil
	}
	// Another replica made it: adopt it from the shared store.
	if id := sessionstate.Identity(auth); rec.Identity != id || id == sessionstate.Unencodable {
		return nil, errOtherCaller
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, session.ErrNotFound
	}
	if c, ok := h.conns[id]; ok {
		return c, nil
	}
	c = newConn(h, sessionstate.FromRecord(rec, auth), false)
	c.registered.Store(true)
	h.conns[id] = c
	// Counted against this replica's caps (a session another replica
	// admitted is not refused here), per subject only: its address is
	// unknown.
	h.countLocked(c, clientKey(&http.Request{}, auth))
	h.startReaperLocked()
	return c, nil
}

// startReaperLocked starts the idle reaper once; h.mu is held.
func (h *Handler) startReaperLocked() {
	if h.reaping || h.opts.SessionIdleTimeout <= 0 {
		return
	}
	h.reaping = true
	h.wg.Add(1)
	go h.reap()
}

// storeRetryAfter is the Retry-After, in seconds, of a request refused
// because a shared store (Redis) failed: an outage a client should ride
// out by retrying, not take as the end of its session.
const storeRetryAfter = "1"

// storeUnavailable is the JSON-RPC error of a request that failed because
// a store failed; over HTTP, alone, it is answered 503 with Retry-After.
type storeUnavailable struct{ err *mcp.Error }

func (e storeUnavailable) Error() string { return e.err.Error() }
func (e storeUnavailable) Unwrap() error { return e.err }
func (storeUnavailable) HTTPStatus() int { return http.StatusServiceUnavailable }
func (storeUnavailable) HTTPHeader() http.Header {
	return http.Header{"Retry-After": {storeRetryAfter}}
}

// register makes a fresh session live once initialize succeeded, and
// tells the OnStart hook. A store that fails to take it fails the
// initialize.
func (h *Handler) register(ctx context.Context, c *conn) error {
	if err := h.store.Create(ctx, c.sess.Record(), h.sessionTTL()); err != nil {
		h.log.Error("mcp: the session store failed to save a new session", "session", c.sess.ID, "error", err)
		return storeUnavailable{err: &mcp.Error{Code: mcp.CodeInternalError,
			Message: "Internal error: the session store failed to save the new session; retry initialize later"}}
	}
	// Seen no earlier than the record's TTL began: the reaper relies on a
	// local idle time never ending before the stored one.
	c.sess.Touch(time.Now())
	c.registered.Store(true)
	h.mu.Lock()
	h.conns[c.sess.ID] = c
	h.startReaperLocked()
	h.mu.Unlock()
	if h.hooks.OnStart != nil {
		h.hooks.OnStart(c.info())
	}
	return nil
}

// save writes a change of the session of c back to the store (fn applies
// it to the stored record); a failure is logged and returned as the
// JSON-RPC internal error the request is answered with.
func (h *Handler) save(ctx context.Context, c *conn, what string, fn func(*session.Record)) error {
	if c.ephemeral {
		return nil
	}
	err := h.store.Update(ctx, c.sess.ID, h.sessionTTL(), func(r *session.Record) error { fn(r); return nil })
	if err == nil {
		return nil
	}
	h.log.Error("mcp: the session store failed to save a change", "session", c.sess.ID, "change", what, "error", err)
	if errors.Is(err, session.ErrNotFound) {
		return &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the session ended or expired while " + what + " was saved"}
	}
	return &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the session store failed to save " + what + "; retry later"}
}

// endSession ends a live session for reason; the OnEnd hook hears of it
// once, however many ends race.
func (h *Handler) endSession(c *conn, reason EndReason) {
	h.mu.Lock()
	live := h.conns[c.sess.ID] == c
	if live {
		delete(h.conns, c.sess.ID)
	}
	h.uncountLocked(c)
	h.mu.Unlock()
	if err := h.store.Delete(context.Background(), c.sess.ID); err != nil {
		h.log.Error("mcp: the session store failed to delete an ended session (it expires by its TTL)",
			"session", c.sess.ID, "error", err)
	}
	c.close()
	if live {
		h.ended(c, reason)
	}
}

// endLocal ends the session of c in this process only: it ended or
// expired in the store, or (evict) is live on another replica.
func (h *Handler) endLocal(c *conn, reason EndReason) {
	h.mu.Lock()
	live := h.conns[c.sess.ID] == c
	if live {
		delete(h.conns, c.sess.ID)
	}
	h.uncountLocked(c)
	h.mu.Unlock()
	c.close()
	if live && reason != "" {
		h.ended(c, reason)
	}
}

// endSessionID ends the live session id, if there is one.
func (h *Handler) endSessionID(id string, reason EndReason) {
	h.mu.RLock()
	c, ok := h.conns[id]
	h.mu.RUnlock()
	if ok {
		h.endSession(c, reason)
	}
}

// reap ends sessions idle for longer than SessionIdleTimeout.
func (h *Handler) reap() {
	defer h.wg.Done()
	every := min(h.opts.SessionIdleTimeout/2, time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case now := <-t.C:
			h.reapOnce(now)
		}
	}
}

// reapOnce ends the sessions idle since before now minus
// SessionIdleTimeout, and keeps the stored record of busy ones alive.
// The store's TTL is the truth of idle expiry: a session idle here but
// whose record lives on was used on another replica, and only this
// replica's copy is dropped.
func (h *Handler) reapOnce(now time.Time) {
	cutoff := now.Add(-h.opts.SessionIdleTimeout)
	h.mu.RLock()
	var idle, busy []*conn
	for _, c := range h.conns {
		switch {
		case !c.idle():
			busy = append(busy, c)
		case c.sess.LastSeen().Before(cutoff):
			idle = append(idle, c)
		}
	}
	h.mu.RUnlock()
	ctx := context.Background()
	for _, c := range busy {
		// A GET stream or a long call is activity the store does not see.
		if _, err := h.store.Touch(ctx, c.sess.ID, h.sessionTTL()); errors.Is(err, session.ErrNotFound) {
			h.endLocal(c, EndDeleted) // ended on another replica
		} else if err != nil {
			h.log.Warn("mcp: the session store failed to keep a busy session alive", "session", c.sess.ID, "error", err)
		}
	}
	for _, c := range idle {
		_, err := h.store.Get(ctx, c.sess.ID)
		switch {
		case err == nil:
			h.endLocal(c, "") // live elsewhere: drop this copy only
		case errors.Is(err, session.ErrNotFound):
			h.log.Debug("mcp session expired", "session", c.sess.ID, "idle", h.opts.SessionIdleTimeout)
			h.endSession(c, EndIdle)
		default:
			h.log.Warn("mcp: the session store failed; idle session kept for now", "session", c.sess.ID, "error", err)
		}
	}
}

func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	if h.opts.Stateless {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError,
			"Method Not Allowed: this server is stateless and has no sessions to end")
		return
	}
	c, ok := h.resolve(w, r, false, nil)
	if !ok {
		return
	}
	h.endSession(c, EndDeleted)
	w.WriteHeader(http.StatusNoContent)
}

// body buffers are pooled: the hot path reads one per POST.
type bodyBuf struct{ b []byte }

var bodyPool = sync.Pool{New: func() any { return &bodyBuf{b: make([]byte, 0, 4096)} }}

// readBody reads a body of at most limit bytes into a pooled buffer. On
// an error the buffer holds what was read, for jsonrpc.PrefixID; the
// caller puts it back in both cases.
func readBody(r *http.Request, limit int64) (*bodyBuf, error) {
	buf := bodyPool.Get().(*bodyBuf)
	buf.b = buf.b[:0]
	rd := http.MaxBytesReader(nil, r.Body, limit)
	for {
		if len(buf.b) == cap(buf.b) {
			buf.b = append(buf.b, 0)[:len(buf.b)]
		}
		n, err := rd.Read(buf.b[len(buf.b):cap(buf.b)])
		buf.b = buf.b[:len(buf.b)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func putBody(b *bodyBuf) {
	if cap(b.b) <= 64<<10 {
		bodyPool.Put(b)
	}
}

// drain makes open GET streams end (clients reconnect elsewhere) so a
// graceful HTTP shutdown does not wait on them.
func (h *Handler) drain() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining == nil {
		h.draining = make(chan struct{})
	}
	select {
	case <-h.draining:
	default:
		close(h.draining)
	}
}

func (h *Handler) drainCh() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining == nil {
		h.draining = make(chan struct{})
	}
	return h.draining
}

// ErrNoSession is returned for a session ID this handler does not know.
var ErrNoSession = errors.New("mcphttp: no such session")

// PingSession sends a ping request on the session's GET stream and waits
// for the client's answer (or ctx). The engine's pings use it.
func (h *Handler) PingSession(ctx context.Context, id string) error {
	h.mu.RLock()
	c, ok := h.conns[id]
	h.mu.RUnlock()
	if !ok {
		return ErrNoSession
	}
	_, err := streamPeer{c}.Call(ctx, "ping", struct{}{})
	return err
}

// EndSession ends a session as DELETE would: its in-flight requests are
// cancelled, its streams close, and later requests with its ID get 404.
// The OnEnd hook hears of it with [EndServer].
func (h *Handler) EndSession(id string) { h.endSessionID(id, EndServer) }
