package middleware

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/session"
)

// sessionIDHeader is the Streamable HTTP session header.
// It is in canonical form, read from the header map as it is, without
// the canonicalization of http.Header's methods (package header).
const sessionIDHeader = header.SessionID

type sessionIDKey struct{}

// SessionID puts the request's Mcp-Session-Id header in the request
// context, where [SessionIDFromContext] finds it: middleware after it (a
// tenant lookup, a rate limiter keyed by session) need not parse headers.
// A request without the header passes unchanged. A header that is sent
// twice, or that [session.ValidID] refuses (empty, longer than
// session.MaxIDLen, or anything but visible ASCII, 0x21 to 0x7E, as the
// MCP transport specification requires of session IDs), is answered with
// 400 and a JSON-RPC -32000 error body; the handlers it wraps do not run.
//
// The MCP engine (mcphttp) runs SessionID itself and reads the ID only
// from the context; a request that already passed through SessionID is
// not checked twice.
//
// The ID is the client's claim, not a proof: the MCP handler still checks
// that the session exists and belongs to the caller.
func SessionID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, done := r.Context().Value(sessionIDKey{}).(string); done {
			next.ServeHTTP(w, r)
			return
		}
		vals := r.Header[sessionIDHeader]
		switch {
		case len(vals) == 0:
			next.ServeHTTP(w, r)
			return
		case len(vals) > 1:
			badSessionID(w, "Bad Request: the Mcp-Session-Id header was sent more than once; send it once")
			return
		case !session.ValidID(vals[0]):
			badSessionID(w, fmt.Sprintf("Bad Request: the Mcp-Session-Id header must be 1 to %d visible ASCII characters (0x21 to 0x7E); send the ID the server issued, unchanged", session.MaxIDLen))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionIDKey{}, vals[0])))
	})
}

// SessionIDFromContext returns the session ID stored by [SessionID], or ""
// when the request carried none (or did not pass through SessionID).
func SessionIDFromContext(ctx context.Context) string {
	id, _ := ctx.Value(sessionIDKey{}).(string)
	return id
}

func badSessionID(w http.ResponseWriter, msg string) { writeError(w, http.StatusBadRequest, msg) }

// writeError answers with status and a JSON-RPC -32000 error body with a
// null id, as the MCP transport expects of a refused request.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := jsonrpc.AppendError(make([]byte, 0, 64+len(msg)), nil, mcp.CodeServerError, msg, nil)
	_, _ = w.Write(append(b, '\n'))
}
