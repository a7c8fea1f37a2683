package mcphttp

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/mcpchain/mcp"
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
