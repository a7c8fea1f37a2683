package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
)

// Call is one JSON-RPC request as the engine decoded it, handed to the
// [Interceptor]s of its context. The engine fills it once per request; an
// interceptor must not keep it past its return. To run the request with
// other params, an interceptor passes next a copy with other Params (the
// Method must stay the same): the engine runs those, with its own checks.
type Call struct {
	// Method is the request's method ("tools/call", …).
	Method string
	// ID is the request's id as it was on the wire (a JSON string or
	// number); nil for a notification.
	ID json.RawMessage
	// Params are the request's params, undecoded (nil when absent).
	Params json.RawMessage
	// SessionID is the session's Mcp-Session-Id ("" for a stateless or
	// 2026-07-28 request; for initialize, the ID of the session it makes).
	SessionID string
	// ProtocolVersion is the negotiated protocol revision ("" before
	// initialize negotiated one).
	ProtocolVersion Version
	// Auth is the caller's auth data (nil without authentication).
	Auth any
	// Request is the HTTP request that carried the message: for stdio and
	// embedded sessions, the in-process request their adapter made. An
	// interceptor may read its headers, protocol and context; its body is
	// the engine's.
	Request *http.Request
	// Logger is the server's logger (Options.Logger or its default), for
	// an interceptor that logs in the server's format.
	Logger *slog.Logger
}

// CallHandler runs a request: the engine's method handler, or the next
// interceptor. It returns the result (for tools/call a *ContentResult,
// whose IsError marks a tool's failure) or the error the client gets
// (an *Error is sent as it is; any other error as -32603).
type CallHandler func(ctx context.Context, c *Call) (any, error)

// Interceptor wraps the engine's handling of every JSON-RPC request after
// the envelope is decoded, on every transport (Streamable HTTP, stdio,
// embedded, legacy SSE, each request of a batch): it may observe the
// request and its outcome (tracing, metrics), refuse it with an error
// (rate limits), or pass a derived context to next, which the method
// handler and the tool, resource or prompt function receive, or pass
// next a Call with other params (package toolsearch turns a call of its
// call_tool into a call of the tool it names, which the engine then
// checks and runs as a direct call). Client
// notifications pass through it too, with a nil Call.ID: their result is
// nil, and an error drops the notification (it has no answer to carry
// one), so an interceptor that refuses requests should let them through. An HTTP
// middleware installs one with [WithInterceptor], the way CanAccess
// installs an access policy; the packages middleware/telemetry and
// middleware/ratelimit are built this way.
type Interceptor func(next CallHandler) CallHandler

type interceptorKey struct{}

// WithInterceptor returns a copy of ctx carrying i. Interceptors stack:
// one added earlier (by a middleware further out in the chain) wraps the
// ones added after it.
func WithInterceptor(ctx context.Context, i Interceptor) context.Context {
	if prev, ok := ctx.Value(interceptorKey{}).(Interceptor); ok {
		inner := i
		i = func(next CallHandler) CallHandler { return prev(inner(next)) }
	}
	return context.WithValue(ctx, interceptorKey{}, i)
}

// interceptorFrom returns the interceptors of ctx composed into one, or
// nil. The engine calls it once per request.
func interceptorFrom(ctx context.Context) Interceptor {
	i, _ := ctx.Value(interceptorKey{}).(Interceptor)
	return i
}

// HTTPStatusError is implemented by an error an [Interceptor] returns to
// choose the HTTP status of the answer and headers to add to it (a rate
// limit's 429 and Retry-After), when the error goes out alone as a JSON
// body; within a batch or on a stream only the JSON-RPC error is sent. The
// error must also wrap an *Error (errors.As), which is the JSON-RPC error
// the client gets on every transport.
type HTTPStatusError interface {
	error
	// HTTPStatus is the status code of the answer.
	HTTPStatus() int
	// HTTPHeader holds headers to set on the answer (may be nil).
	HTTPHeader() http.Header
}
