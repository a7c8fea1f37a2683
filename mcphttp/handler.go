package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
)

// Handler serves one MCP server over Streamable HTTP at a single endpoint
// (POST, GET and DELETE); it never reads the URL path, so it mounts under
// any prefix. Use [New] to make one, and Close it when done.
type Handler struct {
	srv   *mcp.Server
	ops   serverOps // srv's operations for the engine (hooks.go)
	opts  Options
	log   *slog.Logger
	store session.Store

	mu      sync.RWMutex
	conns   map[string]*sessionState
	closed  bool
	reaping bool
	// The session caps (limits.go): sessions counted, in all and per
	// client key; guarded by mu.
	live      int
	perClient map[string]int
	// slots bounds the requests running at once (MaxConcurrentRequests);
	// nil: no limit.
	slots chan struct{}

	chain http.Handler // the engine's own middleware, then serve (docs/architecture.md)
	// admitted is chain without the DNS-rebinding check and the
	// authentication step, for NewMux's endpoint, which runs both in front
	// (guardedMux, authenticateOnce).
	admitted http.Handler
	rebind   *rebinding         // the DNS-rebinding check; nil when disabled
	oauth    *discovery.Options // the discovery documents served; nil: none
	ping     *middleware.Ping   // nil: pings off
	hooks    SessionHooks

	// auth is the server's authentication as middleware (nil when the
	// server has none); the chain runs it unless Authenticate already did.
	auth      func(http.Handler) http.Handler
	stopWatch func()
	listen    listeners // open subscriptions/listen streams (rev20260728_listen.go)
	draining  chan struct{}
	done      chan struct{}
	wg        sync.WaitGroup
	// subjectTrapOnce logs the first refusal subjectTrap explains.
	subjectTrapOnce sync.Once
	// opaqueNoted and bareAuthWarned: the warnings of identity.go were
	// logged.
	opaqueNoted, bareAuthWarned atomic.Bool
	// replica tags the IDs of the server-to-client requests this handler
	// sends when its session store may be shared (anything but the
	// default in-memory store): they count up from it, so that an answer
	// reaching another replica is recognised there (relayed by
	// Options.Relay, else dropped with a warning). 0: not shared, IDs
	// count from 1.
	replica int64
	// stopRelay ends the subscription to Options.Relay (nil: none).
	stopRelay func()
	// fanout carries registry changes to and from the other replicas on
	// Options.Relay (rev20260728_fanout.go); nil: no relay.
	fanout *fanout
	// states seals the requestState of input-required results (rev20260728_mrtr.go).
	states *sealer
	// tasks are the tasks this handler runs (ext_tasks.go).
	tasks tasks
	// initJSON caches the encoded result of initialize (sessions.go).
	initJSON initResults
	// cardName is the Server Card's name (servercard.go); set when
	// Options.ServerCard is.
	cardName string
	// warned rate-limits the warnings a client or the relay can repeat
	// (warnlimit.go).
	warned warnings
}

// New returns a handler serving srv. opts may be nil.
//
// The handler is the MCP endpoint alone, and it is complete: however it
// is served (mounted bare in any mux under any prefix, through [NewMux] or
// [Start], over stdio or embedded) it runs its own DNS-rebinding check, the
// server's authentication (mcp.Options.Authenticate, else Options.Auth; see
// [Handler.AuthMiddleware]), the session-ID check, pings (Options.Ping)
// and the roots policy (mcp.Options.Roots). What needs routes of its own
// comes with [NewMux]: the health endpoint, the server's custom routes
// (mcp.Server.AddRoute), the OAuth discovery documents and the auth
// provider's OAuth endpoints. Close the handler when done.
func New(srv *mcp.Server, opts *Options) *Handler {
	o := optionsWithDefaults(srv, opts)
	h := &Handler{srv: srv, ops: opsOf(srv), opts: o, log: o.Logger, store: o.Sessions,
		conns: map[string]*sessionState{}, done: make(chan struct{})}
	states, err := newSealer(o.StateKey, o.StateTTL)
	if err != nil {
		panic(err) // a configuration error, like a bad mux pattern
	}
	h.states = states
	if o.ServerCard != nil {
		c := *o.ServerCard
		h.opts.ServerCard = &c
		name, err := checkServerCard(&c, h.ops.Options())
		if err != nil {
			panic("mcphttp: New: " + err.Error()) // a configuration error
		}
		h.cardName = name
	}
	if o.Hooks != nil {
		h.hooks = *o.Hooks
	}
	if _, mem := o.Sessions.(*session.MemoryStore); !mem || o.Events != nil || o.Relay != nil {
		var b [4]byte
		_, _ = rand.Read(b[:])
		h.replica = (int64(binary.BigEndian.Uint32(b[:])>>1) | 1) << replicaShift
	}
	if h.replica != 0 && o.Relay != nil {
		h.subscribeRelay()
	}
	h.initLimits()
	h.oauth = oauthOptions(o.OAuth, h.ops.Options())
	if po := o.Ping; (po == nil || !po.Disabled) && !o.Stateless {
		h.ping = middleware.NewPing(enginePinger{h}, pingOptions(po, o.Logger))
	}
	h.initAuth()
	h.rebind = newRebinding(&o, h.oauth)
	h.chain = h.newChain(true)
	h.admitted = h.newChain(false)
	stopWatch, stopTrack := h.ops.Watch(h.onChange), h.ops.TrackSessions(h.holds)
	stopRules := h.ops.UseCallerRules(callerRuleStore{h})
	h.stopWatch = func() { stopWatch(); stopTrack(); stopRules() }
	return h
}

// optionsWithDefaults is opts (nil: none) with the defaults of its unset
// fields filled in: sizes, timeouts, the server's logger and a memory
// session store.
func optionsWithDefaults(srv *mcp.Server, opts *Options) Options {
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
	return o
}

// subscribeRelay subscribes this replica to the relay, which brings it
// the answers that reached another replica; when that fails they are
// refused, and the relay is not used.
func (h *Handler) subscribeRelay() {
	stop, err := h.opts.Relay.Subscribe(context.Background(), strconv.FormatInt(h.replica>>replicaShift, 10), h.onRelayed)
	if err != nil {
		h.log.Error("mcp: subscribing to the relay failed; answers that reach another replica are refused", "error", err)
		h.opts.Relay = nil
		return
	}
	h.stopRelay = stop
	h.startFanout()
}

// pingOptions is the keep-alive ping's options po (nil: none), logging
// to logger unless they name their own.
func pingOptions(po *middleware.PingOptions, logger *slog.Logger) *middleware.PingOptions {
	var popts middleware.PingOptions
	if po != nil {
		popts = *po
	}
	if popts.Logger == nil {
		popts.Logger = logger
	}
	return &popts
}

// newChain composes the engine's own middleware in front of serve: the
// DNS-rebinding check, the session-ID check, and pings for GET streams
// that came over the network. docs/architecture.md gives the order and why.
// front false leaves out the DNS-rebinding check and the authentication
// step: the chain NewMux mounts behind its own (guardedMux,
// authenticateOnce).
func (h *Handler) newChain(front bool) http.Handler {
	var c alice.Chain
	if front && h.rebind != nil {
		c = c.Append(h.rebind.middleware)
	}
	if h.auth != nil && front {
		c = c.Append(h.authStep)
	}
	c = c.Append(middleware.SessionID)
	if h.ping != nil {
		po := h.opts.Ping
		c = c.Append(pingedGETs(h.ping.Middleware, po != nil && po.Stdio))
	}
	return c.ThenFunc(h.serve)
}

// pingedGETs applies mw (the ping middleware, which watches GET streams)
// to the GET requests whose client is pinged: those that arrived over a
// network connection, and with stdio those of a stdio session. It passes
// the others (POSTs, which mw would pass on untouched, embedded sessions,
// and stdio ones unless asked) straight to next. The method is looked at
// first: it is a field, where the address is a lookup through every
// context that the request's context wraps.
func pingedGETs(mw alice.Constructor, stdio bool) alice.Constructor {
	return func(next http.Handler) http.Handler {
		wrapped := mw(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet ||
				r.Context().Value(http.LocalAddrContextKey) == nil && !(stdio && inproc.Transport(r) == inproc.TransportStdio) {
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
	h.conns = map[string]*sessionState{}
	h.live, h.perClient = 0, nil
	h.mu.Unlock()
	h.stopWatch()
	if h.stopRelay != nil {
		h.stopRelay()
	}
	if h.fanout != nil {
		h.fanout.close()
	}
	if h.ping != nil {
		h.ping.Close()
	}
	close(h.done)
	for _, c := range conns {
		c.close()
		h.ops.SessionEnded(c.sess.ID)
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
// docs/architecture.md): the Host/Origin check, the server's authentication
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
		if h.refuseRev20260728GetDelete(w, r) {
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

// isShutDown reports whether Close was called.
func (h *Handler) isShutDown() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.closed
}
