package mcp

import (
	"errors"

	"github.com/mcpchain/mcp/internal/engine"
)

// Errors of per-session calls and of the tools' state (package state).
var (
	// ErrNoSession: there is no session to act on. The state of the
	// session scope (package state's Session) returns it for a request
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
	// ErrNoCaller: the request has no caller to keep state for (package
	// state's Caller) or to own a handle (state.NewHandle): it is
	// anonymous, or its auth data does not implement [Subject] (or names
	// an empty subject), so no two requests can be told to come from the
	// same caller. An anonymous caller may still use handles.
	ErrNoCaller = errors.New("mcp: no caller to keep state for")
)

// State returns the transport's state of c's request, for package state:
// a Context not made by a transport has none. The receiver is not used.
func (*engineView) State(c *Context) (engine.State, error) {
	if st, ok := c.req.peer.(engine.State); ok {
		return st, nil
	}
	return nil, errors.New("mcp: this request's transport keeps no state (the Context was not made by a transport)")
}
