package middleware

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrTimeout is the cause (context.Cause) of a request context that
// [Timeout] cancelled. The error a handler sees wraps it and names the
// limit; test for it with errors.Is.
var ErrTimeout = errors.New("middleware: the request ran out of time")

// Timeout bounds every POST request with a context deadline d from its
// start; when it passes, the request's context is cancelled with a cause
// wrapping [ErrTimeout] (and naming d). A tool that honours its context
// returns, and the MCP handler answers as for any tool failure: an isError
// result whose text includes the cause. GET requests (the long-lived
// server-to-client SSE streams) and other methods are not bounded.
//
// Unlike http.TimeoutHandler, nothing is buffered and the middleware
// writes no status: SSE responses stream and flush as usual, and a handler
// that ignores its context is not interrupted. A tool's own Timeout
// (mcp.Tool) applies within this one. It panics if d is not positive.
func Timeout(d time.Duration) func(http.Handler) http.Handler {
	if d <= 0 {
		panic(fmt.Sprintf("middleware: Timeout needs a positive duration, got %v", d))
	}
	cause := fmt.Errorf("%w: the server's limit is %v per request", ErrTimeout, d)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				next.ServeHTTP(w, r)
				return
			}
			ctx, cancel := context.WithTimeoutCause(r.Context(), d, cause)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}
