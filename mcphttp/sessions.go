package mcphttp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
)

// SessionInfo describes a live session: who the client is and what it
// said in initialize. It is a copy; changing it changes nothing.
type SessionInfo struct {
	// ID is the session's Mcp-Session-Id.
	ID string
	// Client is the clientInfo of initialize (name, version).
	Client mcp.Implementation
	// Capabilities are the client's declared capabilities.
	Capabilities mcp.ClientCapabilities
	// ProtocolVersion is the negotiated protocol revision.
	ProtocolVersion mcp.Version
	// Auth is the auth data the session is bound to (nil without
	// authentication).
	Auth any
	// Created is when initialize made the session.
	Created time.Time
	// LastSeen is the time of the session's last activity.
	LastSeen time.Time
	// Roots are the client's roots as last reported, nil until the server
	// fetched them (it asks a client that declares roots once initialized,
	// and again after notifications/roots/list_changed, unless
	// mcp.Options.Roots.Disabled).
	Roots []mcp.Root
}

// EndReason says why a session ended.
type EndReason string

// The reasons a session ends.
const (
	// EndDeleted: the client ended the session: DELETE over HTTP, the end
	// of input over stdio (under [Start]), Close of an embedded session.
	EndDeleted EndReason = "deleted"
	// EndIdle: the session saw no activity for Options.SessionIdleTimeout.
	EndIdle EndReason = "idle"
	// EndLost: the client was lost: it stopped answering the engine's
	// pings (Options.Ping), or the stdio pipe failed.
	EndLost EndReason = "lost"
	// EndServer: the server ended it: [Handler.EndSession], or
	// [Handler.Close] (which ends every session; so does an [Instance]'s
	// Close).
	EndServer EndReason = "server"
)

// SessionHooks are the session lifecycle events a server author can act
// on (the connect and disconnect events of the TypeScript fastmcp). They
// fire on every transport, since HTTP, stdio and embedded sessions all
// run through the [Handler]; stateless handlers have no sessions and call
// none. Every field may be nil.
//
// A hook is called synchronously, on the goroutine that caused the event
// (a request's, or the engine's own for idle expiry, pings, the roots
// fetch and the end of a stdio or legacy SSE stream), with no lock of the
// engine held: it may call [Handler.Sessions] or [Handler.EndSession],
// but should return quickly. A hook that panics is recovered and logged
// at error level with its stack, wherever it runs, so that its bug
// cannot crash the process from a goroutine no middleware guards; what
// the engine was doing goes on as if the hook had returned.
type SessionHooks struct {
	// OnStart is called when initialize made a session, before its
	// result is sent.
	OnStart func(SessionInfo)
	// OnEnd is called once when a session ends, with why.
	OnEnd func(SessionInfo, EndReason)
	// OnRootsChanged is called when the client sent
	// notifications/roots/list_changed, with the roots the server fetched
	// afterwards. roots is nil when the fetch failed or when
	// mcp.Options.Roots.Disabled (the server then does not ask).
	OnRootsChanged func(s SessionInfo, roots []mcp.Root)
}

// Sessions returns the live sessions, oldest first.
func (h *Handler) Sessions() []SessionInfo {
	h.mu.RLock()
	conns := make([]*sessionState, 0, len(h.conns))
	for _, c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.RUnlock()
	out := make([]SessionInfo, len(conns))
	for i, c := range conns {
		out[i] = c.info()
	}
	slices.SortFunc(out, func(a, b SessionInfo) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// info describes the session of c.
func (c *sessionState) info() SessionInfo {
	s := c.sess
	c.mu.Lock()
	roots := slices.Clone(c.roots)
	c.mu.Unlock()
	return SessionInfo{ID: s.ID, Client: s.Client(), Capabilities: s.Capabilities(),
		ProtocolVersion: mcp.Version(s.ProtocolVersion()), Auth: s.Auth(), Created: s.Created,
		LastSeen: s.LastSeen(), Roots: roots}
}

// ended tells the OnEnd hook that c ended.
func (h *Handler) ended(c *sessionState, reason EndReason) {
	if h.log.Enabled(context.Background(), slog.LevelDebug) { // the arguments would allocate
		h.log.Debug("mcp session ended", "session", c.sess.ID, "reason", string(reason))
	}
	if h.hooks.OnEnd != nil {
		defer h.recoverHook("OnEnd", c.sess.ID)
		h.hooks.OnEnd(c.info(), reason)
	}
}

// recoverHook, deferred around a call of a session hook, recovers the
// hook's panic and logs it with its stack (docs/architecture.md,
// "Panics").
func (h *Handler) recoverHook(hook, session string) {
	if v := recover(); v != nil {
		h.log.Error("mcp: the session hook "+hook+" panicked", "session", session, "panic", v, "stack", string(debug.Stack()))
	}
}

// inputEnded ends the sessions of a stdio transport whose input is over:
// a clean end of input (err nil) is the client ending its session, a
// failed pipe a lost client, and a cancelled context leaves them to
// Close (the server is shutting down).
func (h *Handler) inputEnded(err error) {
	reason := EndDeleted
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return
	case err != nil:
		reason = EndLost
	}
	h.mu.RLock()
	ids := make([]string, 0, len(h.conns))
	for id := range h.conns {
		ids = append(ids, id)
	}
	h.mu.RUnlock()
	for _, id := range ids {
		h.endSessionID(id, reason)
	}
}

// resolve finds or makes the session of a POST. It writes the error
// response itself and returns false when there is none to be had.
func (h *Handler) resolve(w http.ResponseWriter, r *http.Request, initialize bool, id []byte) (*sessionState, bool) {
	h.mu.RLock()
	closed := h.closed
	h.mu.RUnlock()
	if closed {
		httpError(w, http.StatusServiceUnavailable, id, mcp.CodeServerError, "Service Unavailable: the server is shutting down")
		return nil, false
	}
	auth := mcp.AuthFromContext(r.Context())
	h.noteAuth(auth)
	if initialize {
		h.warnBareAuthorization(r, auth)
	}
	if h.opts.Stateless {
		c := h.newSessionState(nil, true)
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
		c := h.newSessionState(sess, false)
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
	if c == nil || !identity.Same(c.sess.Auth(), auth) {
		// 403, not 404: IDs are 128 random bits, so the answer tells a
		// prober nothing, and it tells a confused client what is wrong.
		msg := "Forbidden: this session belongs to another caller (a session is bound to the identity that initialized it, anonymous included); send initialize to start a session of your own"
		if c != nil && subjectTrap(c.sess.Auth(), auth) {
			msg += subjectHint
			h.subjectTrapOnce.Do(func() {
				h.log.Warn("mcp: a session's caller was refused because its auth data differs from the data that initialized it, and it has no subject to be compared by; "+
					"if that type holds per-request values (a timestamp, an expiry), "+subjectFix(auth),
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

// errOtherCaller: the stored session is bound to another identity.
var errOtherCaller = errors.New("mcphttp: the session belongs to another caller")

// lookup finds the session id for a caller with auth data auth. Every
// lookup touches the stored record (restarting its idle TTL) and takes
// what other replicas wrote to it (log level, subscriptions); a session
// this process does not hold is adopted from the store when the caller
// has the identity it was made for (anonymous, or the same subject; never
// auth data without a subject). It returns
// session.ErrNotFound for a session that ended (here or on another
// replica) or expired, errOtherCaller, or the store's error.
func (h *Handler) lookup(ctx context.Context, id string, auth any) (*sessionState, error) {
	if isStateID(id) {
		// A record of caller or handle state (toolstate.go), never a
		// session: touching it would cut its TTL to a session's.
		return nil, session.ErrNotFound
	}
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
	// Another replica made it: adopt it from the shared store, never for
	// auth data without a subject (sessionstate.Adoptable).
	if !sessionstate.Adoptable(rec.Identity, auth) {
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
	c = newSessionState(h, sessionstate.FromRecord(rec, auth), false)
	c.registered.Store(true)
	h.conns[id] = c
	// Counted against this replica's caps (a session another replica
	// admitted is not refused here), per subject only: its address is
	// unknown.
	h.countLocked(c, clientKey(&http.Request{}, auth))
	h.startReaperLocked()
	return c, nil
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
func (h *Handler) register(ctx context.Context, c *sessionState) error {
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
		defer h.recoverHook("OnStart", c.sess.ID)
		h.hooks.OnStart(c.info())
	}
	return nil
}

// save writes a change of the session of c back to the store (fn applies
// it to the stored record); a failure is logged and returned as the
// JSON-RPC internal error the request is answered with.
func (h *Handler) save(ctx context.Context, c *sessionState, what string, fn func(*session.Record)) error {
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
func (h *Handler) endSession(c *sessionState, reason EndReason) {
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
		h.ops.SessionEnded(c.sess.ID)
		h.ended(c, reason)
	}
}

// endLocal ends the session of c in this process only: it ended or
// expired in the store, or (evict) is live on another replica.
func (h *Handler) endLocal(c *sessionState, reason EndReason) {
	h.mu.Lock()
	live := h.conns[c.sess.ID] == c
	if live {
		delete(h.conns, c.sess.ID)
	}
	h.uncountLocked(c)
	h.mu.Unlock()
	c.close()
	if live {
		h.ops.SessionEnded(c.sess.ID)
	}
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

// PingSession sends a ping request on the session's GET stream and waits
// for the client's answer (or ctx); an ID this handler does not know is
// mcp.ErrNoSession. The engine's pings use it.
func (h *Handler) PingSession(ctx context.Context, id string) error {
	h.mu.RLock()
	c, ok := h.conns[id]
	h.mu.RUnlock()
	if !ok {
		return mcp.ErrNoSession
	}
	_, err := streamPeer{c}.Call(ctx, "ping", struct{}{})
	return err
}

// EndSession ends a session as DELETE would: its in-flight requests are
// cancelled, its streams close, and later requests with its ID get 404.
// The OnEnd hook hears of it with [EndServer].
func (h *Handler) EndSession(id string) { h.endSessionID(id, EndServer) }

// holds reports whether the session id is live in this handler: the
// server asks before it keeps objects or rules for the session alone
// (mcp.Server.SessionRegistry), and again when a session ends.
func (h *Handler) holds(id string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	_, ok := h.conns[id]
	return ok
}
