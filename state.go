package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp/internal/engine"
)

// Errors of the session state ([SetState], [GetState], [DeleteState]) and
// of per-session calls.
var (
	// ErrNoSession: there is no session to act on. The session state
	// ([SetState], …) returns it for a request without a session
	// (stateless HTTP, mcphttp.Options.Stateless, and revision 2026-07-28
	// have none), and wrapped for a session that ended while a tool ran;
	// a per-session call ([AddSessionTool], [Server.DisableForSession], …)
	// returns it wrapped when its session ID names no live session of this
	// process: it ended, it lives on another replica, or the ID is empty.
	// mcphttp.Handler.PingSession returns it for an unknown session, and
	// package client wrapped when the server no longer knows the client's
	// session (a 404 to its Mcp-Session-Id: connect again).
	ErrNoSession = errors.New("mcp: no such session")
	// ErrStateTooLarge: a value, or the session's state with it, would
	// exceed its limit; the error is a [*StateSizeError] saying which.
	ErrStateTooLarge = errors.New("mcp: session state too large")
)

// MaxStateKeyLen is the longest key [SetState] takes, in bytes.
const MaxStateKeyLen = 256

// StateSizeError is the error of a [SetState] that would exceed a limit
// of the session state (mcphttp.Options.MaxStateValue, MaxSessionState).
// It matches [ErrStateTooLarge] with errors.Is.
type StateSizeError struct {
	// Key is the key being set.
	Key string
	// Size is the size that would have been: the value's JSON encoding
	// (Session false), or every key and value of the session (Session
	// true), in bytes.
	Size int
	// Limit is the limit it exceeds, in bytes.
	Limit int
	// Session says the session's whole state was too large, not the value.
	Session bool
}

// Error implements error.
func (e *StateSizeError) Error() string {
	if e.Session {
		return fmt.Sprintf("mcp: session state too large: setting %q makes the session's state %d bytes, over its limit of %d", e.Key, e.Size, e.Limit)
	}
	return fmt.Sprintf("mcp: session state too large: the value of %q is %d bytes of JSON, over the limit of %d", e.Key, e.Size, e.Limit)
}

// Is reports whether target is [ErrStateTooLarge].
func (e *StateSizeError) Is(target error) bool { return target == ErrStateTooLarge }

// SetState stores v, encoded as JSON, under key in the state of the
// caller's session, where every later request of the session (a tool, a
// resource or prompt loader) reads it with [GetState], on any replica
// that shares the session store (mcphttp.Options.Sessions; the state is
// part of the session's record). It ends with the session: DELETE, idle
// expiry, or the end of a stdio or embedded session. Concurrent calls of
// one session that set different keys both take effect.
//
// The state is bounded: a value whose JSON is over
// mcphttp.Options.MaxStateValue, or a session whose keys and values would
// be over MaxSessionState, fails with a [*StateSizeError] (matching
// [ErrStateTooLarge]) and changes nothing. Keys are 1 to
// [MaxStateKeyLen] bytes. Without a session (stateless HTTP, revision
// 2026-07-28) it fails with [ErrNoSession].
func SetState[T any](ctx context.Context, c *Context, key string, v T) error {
	st, err := stateOf(c, key)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("mcp: state %q: encoding the value: %w", key, err)
	}
	return st.SetState(ctx, key, b)
}

// GetState returns the value [SetState] stored under key in the caller's
// session, decoded into a T, and whether the key is set. A value that does
// not decode as a T is an error (found true). Without a session it fails
// with [ErrNoSession].
func GetState[T any](ctx context.Context, c *Context, key string) (v T, found bool, err error) {
	st, err := stateOf(c, key)
	if err != nil {
		return v, false, err
	}
	raw, found, err := st.GetState(ctx, key)
	if err != nil || !found {
		return v, false, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero, true, fmt.Errorf("mcp: state %q does not decode as %T: %w", key, zero, err)
	}
	return v, true, nil
}

// DeleteState removes key from the caller's session state; removing a key
// that is not set is not an error. Without a session it fails with
// [ErrNoSession].
func DeleteState(ctx context.Context, c *Context, key string) error {
	st, err := stateOf(c, key)
	if err != nil {
		return err
	}
	return st.SetState(ctx, key, nil)
}

// stateOf returns the session state of the request c serves, after
// checking key.
func stateOf(c *Context, key string) (engine.SessionState, error) {
	if key == "" || len(key) > MaxStateKeyLen {
		return nil, fmt.Errorf("mcp: a state key must be 1 to %d bytes, not %d", MaxStateKeyLen, len(key))
	}
	if c == nil {
		return nil, ErrNoSession
	}
	st, ok := c.req.peer.(engine.SessionState)
	if !ok {
		return nil, ErrNoSession
	}
	return st, nil
}
