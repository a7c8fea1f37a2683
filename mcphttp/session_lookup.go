package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
)

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
				httpError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
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
		httpError(w, http.StatusNotFound, id, jsonrpc.CodeSessionNotFound,
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
