package mcp

import (
	"errors"
	"fmt"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError             = -32700 // the message is not JSON
	CodeInvalidRequest         = -32600 // the JSON is not a valid JSON-RPC request
	CodeMethodNotFound         = -32601 // no such method
	CodeInvalidParams          = -32602 // bad params, unknown tool, prompt or resource
	CodeInternalError          = -32603 // the server failed
	CodeServerError            = -32000 // transport-level failure (bad header, bad session)
	CodeSessionNotFound        = -32001 // the Mcp-Session-Id is unknown or ended
	CodeURLElicitationRequired = -32042 // reserved by the 2025-11-25 revision
)

// Error is a JSON-RPC error. Returned from a tool it becomes a JSON-RPC error
// response instead of an isError result; returned from a resource or prompt
// loader it is sent as is.
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message) }

// Is reports whether target is an *Error with the same code, so
// errors.Is(err, &mcp.Error{Code: mcp.CodeInvalidParams}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// UserError is an error meant for the client: a tool that returns it gets an
// isError result whose text is Message, unchanged (other errors are prefixed
// with the tool's name). Extras, when set, becomes the structuredContent.
type UserError struct {
	Message string
	Extras  any
}

// Error implements error.
func (e *UserError) Error() string { return e.Message }

// UserErrorf returns a *UserError with a formatted message.
func UserErrorf(format string, args ...any) *UserError {
	return &UserError{Message: fmt.Sprintf(format, args...)}
}

// Sentinel errors.
var (
	// ErrNoProgressToken is returned by ReportProgress when the client did
	// not ask for progress; it is safe to ignore.
	ErrNoProgressToken = errors.New("mcp: the client sent no progress token")
	// ErrNoPeer is returned when a request to the client cannot be sent
	// because the transport has no way back (a stateless request, JSON mode).
	ErrNoPeer = errors.New("mcp: no way back to the client on this request")
	// ErrCapability is returned when the client did not declare the
	// capability a server-to-client request needs (sampling, elicitation, roots).
	ErrCapability = errors.New("mcp: the client did not declare that capability")
)
