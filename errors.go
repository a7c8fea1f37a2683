package mcp

import (
	"errors"
	"fmt"

	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// The JSON-RPC and MCP error codes a handler returns in an [*Error], or a
// client meets in one. The codes of a malformed request, an unknown
// session or a revision mismatch are the transport's to send and the
// client's to act on, not a handler's; they stay inside the module.
const (
	CodeMethodNotFound          = jsonrpc.CodeMethodNotFound          // no such method
	CodeInvalidParams           = jsonrpc.CodeInvalidParams           // bad params, unknown tool, prompt or resource
	CodeInternalError           = jsonrpc.CodeInternalError           // the server failed
	CodeServerError             = jsonrpc.CodeServerError             // a server-defined failure (the transport's too: bad header, refused request)
	CodeURLElicitationRequired  = jsonrpc.CodeURLElicitationRequired  // reserved by the 2025-11-25 revision (package elicit's URLRequired builds it)
	CodeMissingClientCapability = jsonrpc.CodeMissingClientCapability // revision 2026-07-28: the request needs a client capability it did not declare
)

// Error is a JSON-RPC error. Returned from a tool it becomes a JSON-RPC error
// response instead of an isError result; returned from a resource or prompt
// loader it is sent as is.
type Error struct {
	// Code is the JSON-RPC error code (the Code* constants).
	Code int64 `json:"code"`
	// Message says what was wrong and, where it helps, what to do.
	Message string `json:"message"`
	// Data is optional structured detail, such as {"uri": …} for an
	// unknown resource.
	Data any `json:"data,omitempty"`

	sentinel error // what Unwrap returns, such as ErrResourceNotFound
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message) }

// Is makes an *Error with only a Code a pattern: errors.Is(err,
// &mcp.Error{Code: mcp.CodeInvalidParams}) holds for every invalid-params
// error. A target that has a Message too matches only an error with the
// same code and message. Sentinels such as [ErrResourceNotFound] are not
// *Error values: an *Error matches one only when it wraps it (see
// [Error.Unwrap]), so no sentinel matches every error of a code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Unwrap returns the sentinel the error stands for (such as
// [ErrResourceNotFound] for an unknown resource), or nil.
func (e *Error) Unwrap() error { return e.sentinel }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// UserError is an error meant for the client: a tool that returns it gets an
// isError result whose text is Message, unchanged (other errors are prefixed
// with the tool's name). Extras, when set, becomes the structuredContent.
type UserError struct {
	// Message is the text of the isError result, sent unchanged.
	Message string
	// Extras, when non-nil, is sent as the result's structuredContent.
	Extras any
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
