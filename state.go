package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
)

// Errors of the tools' state ([SetState], [GetState], [DeleteState]) and
// of per-session calls.
var (
	// ErrNoSession: there is no session to act on. The state of the
	// session scope (c itself as the [Scope]) returns it for a request
	// without a session (stateless HTTP, mcphttp.Options.Stateless, and
	// revision 2026-07-28 have none), and wrapped for a session that ended
	// while a tool ran; a change through a session's registry
	// ([Server.SessionRegistry]) returns it wrapped when its session
	// ID names no live session of this process: it ended, it lives on
	// another replica, or the ID is empty.
	// mcphttp.Handler.PingSession returns it for an unknown session, and
	// package client wrapped when the server no longer knows the client's
	// session (a 404 to its Mcp-Session-Id: connect again).
	ErrNoSession = errors.New("mcp: no such session")
	// ErrNoCaller: the request has no caller to keep state for
	// ([Context.Caller]) or to own a handle ([Context.NewHandle]): it is
	// anonymous, or its auth data does not implement [Subject] (or names
	// an empty subject), so no two requests can be told to come from the
	// same caller. An anonymous caller may still use handles.
	ErrNoCaller = errors.New("mcp: no caller to keep state for")
	// ErrUnknownHandle: a state handle ([Context.Handle]) names no state
	// the caller may use: it expired, was ended, was never made by this
	// server, or belongs to another caller. The error's text says which,
	// as far as the server can tell without helping a guesser, so that a
	// model told of it makes a new one.
	ErrUnknownHandle = errors.New("mcp: unknown state handle")
	// ErrStateTooLarge: a value, or the scope's state with it, would
	// exceed its limit (the error is then a [*StateSizeError] saying
	// which), or a caller holds as many handles as it may.
	ErrStateTooLarge = errors.New("mcp: session state too large")
)

// MaxStateKeyLen is the longest key [SetState] takes, in bytes.
const MaxStateKeyLen = 256

// StateSizeError is the error of a [SetState] that would exceed a limit
// of the state (mcphttp.Options.MaxStateValue, MaxSessionState). It
// matches [ErrStateTooLarge] with errors.Is.
type StateSizeError struct {
	// Key is the key being set.
	Key string
	// Size is the size that would have been: the value's JSON encoding
	// (Session false), or every key and value of the scope (Session
	// true), in bytes.
	Size int
	// Limit is the limit it exceeds, in bytes.
	Limit int
	// Session says the scope's whole state (a session's, a caller's or a
	// handle's) was too large, not the value.
	Session bool
}

// Error implements error.
func (e *StateSizeError) Error() string {
	if e.Session {
		return fmt.Sprintf("mcp: session state too large: setting %q makes the state %d bytes, over its limit of %d", e.Key, e.Size, e.Limit)
	}
	return fmt.Sprintf("mcp: session state too large: the value of %q is %d bytes of JSON, over the limit of %d", e.Key, e.Size, e.Limit)
}

// Is reports whether target is [ErrStateTooLarge].
func (e *StateSizeError) Is(target error) bool { return target == ErrStateTooLarge }

// Scope is whose state [GetState], [SetState] and [DeleteState] read and
// write. There are three, and the same calls serve them all:
//
//   - c.Caller(): the authenticated caller's own state, keyed by its
//     subject ([Subject]), the same at every revision, on every replica
//     that shares the store, for every session and sessionless request of
//     that caller. An anonymous caller has none ([ErrNoCaller]).
//   - c.Handle(h): the state a handle names, a handle [Context.NewHandle]
//     made and a tool returned, which the client or model passes back as
//     an argument (the explicit state handles of SEP-2567). It belongs to
//     the caller that made it; an anonymous caller's handle is a bearer
//     token. [ErrUnknownHandle] once it expired or ended.
//   - c, the *Context itself: the request's session (revisions 2025-03-26
//     to 2025-11-25 on a stateful handler, stdio, embedded). Revision
//     2026-07-28 and stateless HTTP have none ([ErrNoSession]).
//
// Only those make a Scope.
type Scope interface {
	stateScope() scope
}

// scope is a [Scope]: the request's Context and which of its scopes.
type scope struct {
	c      *Context
	kind   scopeKind
	handle StateHandle
}

type scopeKind uint8

const (
	scopeSession scopeKind = iota
	scopeCaller
	scopeHandle
)

func (s scope) stateScope() scope { return s }

// stateScope makes c the [Scope] of its request's session.
func (c *Context) stateScope() scope { return scope{c: c, kind: scopeSession} }

// Caller is the [Scope] of the caller's own state: keyed by its subject
// (the auth data's [Subject]), so that every request of the caller shares
// it, at every revision and on every replica that shares the store. It
// lives until it has not been written for mcphttp.Options.CallerStateTTL.
// For an anonymous caller, or auth data without a subject, the state calls
// fail with [ErrNoCaller].
func (c *Context) Caller() Scope { return scope{c: c, kind: scopeCaller} }

// Handle is the [Scope] of the state that h names: a handle
// [Context.NewHandle] made, which the client passed back as an argument.
// The state calls fail with [ErrUnknownHandle] when h expired, was ended,
// or was made for another caller.
func (c *Context) Handle(h StateHandle) Scope { return scope{c: c, kind: scopeHandle, handle: h} }

// StateHandle names state the server keeps for a client without a
// session: a tool makes one with [Context.NewHandle] and returns it, the
// client or model passes it back as an argument of later calls, and those
// read and write its state through [Context.Handle] (SEP-2567's explicit
// state handles: a cart, a browser, a conversation). It is opaque and
// unguessable (128 random bits), lives a fixed time from its creation
// (mcphttp.Options.StateHandleTTL, default 24 hours; say so in the
// creating tool's description), and belongs to the caller that made it:
// another caller's request does not find it. Anonymous callers get
// handles only where the server allows them some
// (mcphttp.Options.AnonymousHandles); such a handle is a bearer token:
// whoever holds it uses it.
//
// As a tool's argument it is a string; its schema says how to get one.
type StateHandle string

// NewHandle makes a handle to new, empty state owned by the caller (or a
// bearer handle, when the caller is anonymous), for a tool to return. It
// fails with [ErrNoCaller] when the caller's auth data has no subject, or
// the caller is anonymous and the server allows anonymous callers no
// handles (the default; see mcphttp.Options.AnonymousHandles), and with
// [ErrStateTooLarge] when the caller holds mcphttp.Options.MaxStateHandles
// live handles (anonymous callers share AnonymousHandles).
func (c *Context) NewHandle(ctx context.Context) (StateHandle, error) {
	owner, err := c.handleOwner()
	if err != nil {
		return "", err
	}
	st, err := c.stateAccess()
	if err != nil {
		return "", err
	}
	h, err := st.NewHandle(ctx, owner)
	return StateHandle(h), err
}

// EndHandle ends the handle h and drops its state at once, rather than
// when it expires. It fails with [ErrUnknownHandle] when h names nothing
// the caller may end.
func (c *Context) EndHandle(ctx context.Context, h StateHandle) error {
	owner, err := c.handleOwner()
	if err != nil {
		return err
	}
	st, err := c.stateAccess()
	if err != nil {
		return err
	}
	return st.EndHandle(ctx, engine.StateScope{Owner: owner, Handle: string(h)})
}

// SetState stores v, encoded as JSON, under key in the state of scope s,
// where later requests read it with [GetState]: c.Caller() for the
// caller's own state, c.Handle(h) for a handle's, c for the session's
// (see [Scope]). The state lives in the handler's store
// (mcphttp.Options.Sessions), so every replica that shares the store (on
// Redis) sees it. Concurrent calls that set different keys of one scope
// both take effect.
//
// The state is bounded: a value whose JSON is over
// mcphttp.Options.MaxStateValue, or a scope whose keys and values would be
// over MaxSessionState, fails with a [*StateSizeError] (matching
// [ErrStateTooLarge]) and changes nothing. Keys are 1 to
// [MaxStateKeyLen] bytes. A scope the request does not have fails with
// [ErrNoSession], [ErrNoCaller] or [ErrUnknownHandle], whose text says
// what to use instead.
func SetState[T any](ctx context.Context, s Scope, key string, v T) error {
	st, sc, err := stateOf(s, key)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("mcp: state %q: encoding the value: %w", key, err)
	}
	return st.SetState(ctx, sc, key, b)
}

// GetState returns the value [SetState] stored under key in the state of
// scope s, decoded into a T, and whether the key is set. A value that
// does not decode as a T is an error (found true). A scope the request
// does not have is an error, as for SetState.
func GetState[T any](ctx context.Context, s Scope, key string) (v T, found bool, err error) {
	st, sc, err := stateOf(s, key)
	if err != nil {
		return v, false, err
	}
	raw, found, err := st.GetState(ctx, sc, key)
	if err != nil || !found {
		return v, false, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero, true, fmt.Errorf("mcp: state %q does not decode as %T: %w", key, zero, err)
	}
	return v, true, nil
}

// DeleteState removes key from the state of scope s; removing a key that
// is not set is not an error. A scope the request does not have is an
// error, as for [SetState].
func DeleteState(ctx context.Context, s Scope, key string) error {
	st, sc, err := stateOf(s, key)
	if err != nil {
		return err
	}
	return st.SetState(ctx, sc, key, nil)
}

// stateOf resolves s for its request, after checking key: the transport's
// state and the scope as it names it.
func stateOf(s Scope, key string) (engine.State, engine.StateScope, error) {
	if key == "" || len(key) > MaxStateKeyLen {
		return nil, engine.StateScope{}, fmt.Errorf("mcp: a state key must be 1 to %d bytes, not %d", MaxStateKeyLen, len(key))
	}
	if s == nil {
		return nil, engine.StateScope{}, errors.New("mcp: the state's Scope is nil (use c.Caller(), c.Handle(h) or c)")
	}
	sc := s.stateScope()
	if sc.c == nil {
		return nil, engine.StateScope{}, ErrNoSession
	}
	var es engine.StateScope
	switch sc.kind {
	case scopeSession:
		es.Session = true
	case scopeCaller:
		owner, err := sc.c.callerKey()
		if err != nil {
			return nil, es, err
		}
		es.Owner = owner
	case scopeHandle:
		owner, err := sc.c.handleOwner()
		if err != nil {
			return nil, es, err
		}
		es.Owner, es.Handle = owner, string(sc.handle)
	}
	st, err := sc.c.stateAccess()
	if err != nil {
		if es.Session {
			err = fmt.Errorf("%w: %w", ErrNoSession, err)
		}
		return nil, es, err
	}
	return st, es, nil
}

// stateAccess is the transport's state of c's request.
func (c *Context) stateAccess() (engine.State, error) {
	if st, ok := c.req.peer.(engine.State); ok {
		return st, nil
	}
	return nil, errors.New("mcp: this request's transport keeps no state (the Context was not made by a transport)")
}

// callerKey is the key of c's caller's own state: its identity key, or
// ErrNoCaller saying why it has none.
func (c *Context) callerKey() (string, error) {
	if k, ok := identity.Key(c.Session); ok {
		return k, nil
	}
	if identity.Of(c.Session) == identity.Anonymous {
		return "", fmt.Errorf("%w: the request is anonymous; state for the caller (c.Caller()) needs authentication whose auth data implements mcp.Subject, "+
			"and without it state is kept under a handle (c.NewHandle, c.Handle)", ErrNoCaller)
	}
	return "", noSubject(c.Session)
}

// handleOwner is the owner of the handles c's caller makes and uses: its
// identity key, or "" for an anonymous caller (a bearer handle).
func (c *Context) handleOwner() (string, error) {
	if k, ok := identity.Key(c.Session); ok {
		return k, nil
	}
	if identity.Of(c.Session) == identity.Anonymous {
		return "", nil
	}
	return "", noSubject(c.Session)
}

// noSubject is ErrNoCaller for auth data that has no subject: no two of
// its requests can be told to be one caller's, so it owns nothing that
// outlives a session.
func noSubject(auth any) error {
	return fmt.Errorf("%w: the caller's auth data (%T) has no subject (mcp.Subject, a non-empty one), "+
		"so its requests cannot be told to be one caller's; to keep state for the caller, have the server's authentication "+
		"return a type with a Subject() string method that gives a stable user id (a string or a map cannot have methods); "+
		"or use handles (c.NewHandle, c.Handle)", ErrNoCaller, auth)
}
