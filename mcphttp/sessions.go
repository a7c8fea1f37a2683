package mcphttp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
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
	ProtocolVersion string
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
	// pings (mcp.Options.Ping), or the stdio pipe failed.
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
// (a request's, or the engine's own for idle expiry and pings), with no
// lock of the engine held: it may call [Handler.Sessions] or
// [Handler.EndSession], but should return quickly. A panicking hook is
// not recovered.
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
	conns := make([]*conn, 0, len(h.conns))
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
func (c *conn) info() SessionInfo {
	s := c.sess
	c.mu.Lock()
	roots := slices.Clone(c.roots)
	c.mu.Unlock()
	return SessionInfo{ID: s.ID, Client: s.Client(), Capabilities: s.Capabilities(),
		ProtocolVersion: s.ProtocolVersion(), Auth: s.Auth(), Created: s.Created,
		LastSeen: s.LastSeen(), Roots: roots}
}

// ended tells the OnEnd hook that c ended.
func (h *Handler) ended(c *conn, reason EndReason) {
	if h.log.Enabled(context.Background(), slog.LevelDebug) { // the arguments would allocate
		h.log.Debug("mcp session ended", "session", c.sess.ID, "reason", string(reason))
	}
	if h.hooks.OnEnd != nil {
		h.hooks.OnEnd(c.info(), reason)
	}
}

// rootsChanged tells the OnRootsChanged hook.
func (h *Handler) rootsChanged(c *conn, roots []mcp.Root) {
	if h.hooks.OnRootsChanged != nil {
		h.hooks.OnRootsChanged(c.info(), slices.Clone(roots))
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

// hdrProtocolVersion is the MCP-Protocol-Version header in its canonical
// form (read with header.Get, which does not canonicalize).
const hdrProtocolVersion = header.ProtocolVersion

// initResults holds the encoded result of initialize, per supported
// version and whether the session has streams: it depends on nothing else
// (the server's options do not change), so each is encoded once.
type initResults [2 * maxInitVersions]atomic.Pointer[encodedResult]

// maxInitVersions bounds the versions whose initialize result is cached.
const maxInitVersions = 8

// encodedResult is a result already encoded as compact JSON, shared by
// every request that returns it: marshalResult hands it on as is, and
// json.Marshal (an interceptor's) copies it.
type encodedResult []byte

// MarshalJSON implements json.Marshaler.
func (r encodedResult) MarshalJSON() ([]byte, error) { return r, nil }

func (encodedResult) compact() {}

// initResult returns the result of initialize for version, encoded once.
func (h *Handler) initResult(version string, streams bool) (any, error) {
	i := slices.Index(supportedVersions, version)
	if i < 0 || i >= maxInitVersions {
		return h.newInitializeResult(version, streams), nil
	}
	if streams {
		i += maxInitVersions
	}
	slot := &h.initJSON[i]
	if r := slot.Load(); r != nil {
		return *r, nil
	}
	b, err := json.Marshal(h.newInitializeResult(version, streams))
	if err != nil {
		return nil, err
	}
	r := encodedResult(b)
	slot.Store(&r)
	return r, nil
}
