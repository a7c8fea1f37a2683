package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/argschema"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
)

// Errors of the state calls, beside mcp.ErrNoSession (a request without
// a session, for [Session]) and mcp.ErrNoCaller (a caller that cannot own
// state, for [Caller] and [NewHandle]).
var (
	// ErrUnknownHandle: a state handle ([ForHandle]) names no state the
	// caller may use: it expired, was ended, was never made by this
	// server, or belongs to another caller. The error's text says which,
	// as far as the server can tell without helping a guesser, so that a
	// model told of it makes a new one.
	ErrUnknownHandle = errors.New("state: unknown state handle")
	// ErrTooLarge: a value, or the scope's state with it, would exceed
	// its limit (the error is then a [*SizeError] saying which), or a
	// caller holds as many handles as it may.
	ErrTooLarge = errors.New("state: state too large")
)

// MaxKeyLen is the longest key [Set] takes, in bytes.
const MaxKeyLen = 256

// SizeError is the error of a [Set] that would exceed a limit of the
// state (mcphttp.Options.MaxStateValue, MaxSessionState). It matches
// [ErrTooLarge] with errors.Is.
type SizeError struct {
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
func (e *SizeError) Error() string {
	if e.Session {
		return fmt.Sprintf("state: state too large: setting %q makes the state %d bytes, over its limit of %d", e.Key, e.Size, e.Limit)
	}
	return fmt.Sprintf("state: state too large: the value of %q is %d bytes of JSON, over the limit of %d", e.Key, e.Size, e.Limit)
}

// Is reports whether target is [ErrTooLarge].
func (e *SizeError) Is(target error) bool { return target == ErrTooLarge }

// Scope is whose state [Get], [Set] and [Delete] read and write; see the
// package documentation. [Caller], [ForHandle] and [Session] make one.
type Scope struct {
	c      *mcp.Context
	kind   scopeKind
	handle Handle
}

type scopeKind uint8

const (
	scopeSession scopeKind = iota
	scopeCaller
	scopeHandle
)

// Session is the scope of the state of c's request's session (revisions
// 2025-03-26 to 2025-11-25 on a stateful handler, stdio, embedded).
// Revision 2026-07-28 and stateless HTTP have none: the calls fail with
// mcp.ErrNoSession.
func Session(c *mcp.Context) Scope { return Scope{c: c, kind: scopeSession} }

// Caller is the scope of the caller's own state: keyed by its subject
// (the auth data's mcp.Subject), so that every request of the caller
// shares it, at every revision and on every replica that shares the
// store. It lives until it has not been written for
// mcphttp.Options.CallerStateTTL. For an anonymous caller, or auth data
// without a subject, the calls fail with mcp.ErrNoCaller.
func Caller(c *mcp.Context) Scope { return Scope{c: c, kind: scopeCaller} }

// ForHandle is the scope of the state that h names: a handle [NewHandle]
// made, which the client passed back as an argument. The calls fail with
// [ErrUnknownHandle] when h expired, was ended, or was made for another
// caller.
func ForHandle(c *mcp.Context, h Handle) Scope { return Scope{c: c, kind: scopeHandle, handle: h} }

// Handle names state the server keeps for a client without a session: a
// tool makes one with [NewHandle] and returns it, the client or model
// passes it back as an argument of later calls, and those read and write
// its state through [ForHandle] (SEP-2567's explicit state handles: a
// cart, a browser, a conversation). It is opaque and unguessable (128
// random bits), lives a fixed time from its creation
// (mcphttp.Options.StateHandleTTL, default 24 hours; say so in the
// creating tool's description), and belongs to the caller that made it:
// another caller's request does not find it. Anonymous callers get
// handles only where the server allows them some
// (mcphttp.Options.AnonymousHandles); such a handle is a bearer token:
// whoever holds it uses it.
//
// As a tool's argument it is a string, described for the model as one a
// tool of the server returned.
type Handle string

// handleDescription describes a [Handle] argument, which a model must
// pass back exactly as a tool returned it.
const handleDescription = "A state handle, exactly as a tool of this server returned it (it makes one); it expires, and an expired one is refused: then make a new one."

func init() { argschema.Describe(reflect.TypeFor[Handle](), handleDescription) }

// NewHandle makes a handle to new, empty state owned by c's caller (or a
// bearer handle, when the caller is anonymous), for a tool to return. It
// fails with mcp.ErrNoCaller when the caller's auth data has no subject,
// or the caller is anonymous and the server allows anonymous callers no
// handles (the default; see mcphttp.Options.AnonymousHandles), and with
// [ErrTooLarge] when the caller holds mcphttp.Options.MaxStateHandles live
// handles (anonymous callers share AnonymousHandles).
func NewHandle(ctx context.Context, c *mcp.Context) (Handle, error) {
	owner, err := handleOwner(c)
	if err != nil {
		return "", err
	}
	st, err := access(c)
	if err != nil {
		return "", err
	}
	h, err := st.NewHandle(ctx, owner)
	return Handle(h), err
}

// EndHandle ends the handle h and drops its state at once, rather than
// when it expires. It fails with [ErrUnknownHandle] when h names nothing
// c's caller may end.
func EndHandle(ctx context.Context, c *mcp.Context, h Handle) error {
	owner, err := handleOwner(c)
	if err != nil {
		return err
	}
	st, err := access(c)
	if err != nil {
		return err
	}
	return st.EndHandle(ctx, engine.StateScope{Owner: owner, Handle: string(h)})
}

// Set stores v, encoded as JSON, under key in the state of scope s, where
// later requests read it with [Get]: [Caller] for the caller's own state,
// [ForHandle] for a handle's, [Session] for the session's. The state lives
// in the handler's store (mcphttp.Options.Sessions), so every replica that
// shares the store (on Redis) sees it. Concurrent calls that set
// different keys of one scope both take effect.
//
// The state is bounded: a value whose JSON is over
// mcphttp.Options.MaxStateValue, or a scope whose keys and values would be
// over MaxSessionState, fails with a [*SizeError] (matching [ErrTooLarge])
// and changes nothing. Keys are 1 to [MaxKeyLen] bytes. A scope the
// request does not have fails with mcp.ErrNoSession, mcp.ErrNoCaller or
// [ErrUnknownHandle], whose text says what to use instead.
func Set[T any](ctx context.Context, s Scope, key string, v T) error {
	st, sc, err := resolve(s, key)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state: %q: encoding the value: %w", key, err)
	}
	return st.SetState(ctx, sc, key, b)
}

// Get returns the value [Set] stored under key in the state of scope s,
// decoded into a T, and whether the key is set. A value that does not
// decode as a T is an error (found true). A scope the request does not
// have is an error, as for Set.
func Get[T any](ctx context.Context, s Scope, key string) (v T, found bool, err error) {
	st, sc, err := resolve(s, key)
	if err != nil {
		return v, false, err
	}
	raw, found, err := st.GetState(ctx, sc, key)
	if err != nil || !found {
		return v, false, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero, true, fmt.Errorf("state: %q does not decode as %T: %w", key, zero, err)
	}
	return v, true, nil
}

// Delete removes key from the state of scope s; removing a key that is
// not set is not an error. A scope the request does not have is an
// error, as for [Set].
func Delete(ctx context.Context, s Scope, key string) error {
	st, sc, err := resolve(s, key)
	if err != nil {
		return err
	}
	return st.SetState(ctx, sc, key, nil)
}

// resolve resolves s for its request, after checking key: the
// transport's state and the scope as it names it.
func resolve(s Scope, key string) (engine.State, engine.StateScope, error) {
	if key == "" || len(key) > MaxKeyLen {
		return nil, engine.StateScope{}, fmt.Errorf("state: a key must be 1 to %d bytes, not %d", MaxKeyLen, len(key))
	}
	if s.c == nil {
		return nil, engine.StateScope{}, errors.New("state: the Scope is empty (use state.Caller(c), state.ForHandle(c, h) or state.Session(c))")
	}
	var es engine.StateScope
	switch s.kind {
	case scopeSession:
		es.Session = true
	case scopeCaller:
		owner, err := callerKey(s.c)
		if err != nil {
			return nil, es, err
		}
		es.Owner = owner
	case scopeHandle:
		owner, err := handleOwner(s.c)
		if err != nil {
			return nil, es, err
		}
		es.Owner, es.Handle = owner, string(s.handle)
	}
	st, err := access(s.c)
	if err != nil {
		if es.Session {
			err = fmt.Errorf("%w: %w", mcp.ErrNoSession, err)
		}
		return nil, es, err
	}
	return st, es, nil
}

// contextOps is what this package needs of a request's mcp.Context that
// package mcp's API does not offer: an operation of the engine's view
// (package mcp's engine.go, reached through engine.View, as package
// mcphttp reaches it), named here with its type so that the compiler
// checks the call.
type contextOps interface {
	// State returns the transport's state of c's request: what Set, Get
	// and the handles act on. A Context not made by a transport has none.
	State(c *mcp.Context) (engine.State, error)
}

// viewOf is package mcp's engine.View, asserted to its type once.
var viewOf = engine.View.(func(*mcp.Server) any)

// access is the transport's state of c's request.
func access(c *mcp.Context) (engine.State, error) {
	return viewOf(nil).(contextOps).State(c)
}

// callerKey is the key of c's caller's own state: its identity key (the
// one rule of internal/identity), or mcp.ErrNoCaller saying why it has
// none.
func callerKey(c *mcp.Context) (string, error) {
	if k, ok := identity.Key(c.Session); ok {
		return k, nil
	}
	if identity.Of(c.Session) == identity.Anonymous {
		return "", fmt.Errorf("%w: the request is anonymous; state for the caller (state.Caller) needs authentication whose auth data implements mcp.Subject, "+
			"and without it state is kept under a handle (state.NewHandle, state.ForHandle)", mcp.ErrNoCaller)
	}
	return "", noSubject(c.Session)
}

// handleOwner is the owner of the handles c's caller makes and uses: its
// identity key, or "" for an anonymous caller (a bearer handle).
func handleOwner(c *mcp.Context) (string, error) {
	if k, ok := identity.Key(c.Session); ok {
		return k, nil
	}
	if identity.Of(c.Session) == identity.Anonymous {
		return "", nil
	}
	return "", noSubject(c.Session)
}

// noSubject is mcp.ErrNoCaller for auth data that has no subject: no two
// of its requests can be told to be one caller's, so it owns nothing that
// outlives a session.
func noSubject(auth any) error {
	return fmt.Errorf("%w: the caller's auth data (%T) has no subject (mcp.Subject, a non-empty one), "+
		"so its requests cannot be told to be one caller's; to keep state for the caller, have the server's authentication "+
		"return a type with a Subject() string method that gives a stable user id (a string or a map cannot have methods); "+
		"or use handles (state.NewHandle, state.ForHandle)", mcp.ErrNoCaller, auth)
}
