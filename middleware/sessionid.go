package middleware

import (
	"context"
	"net/http"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// sessionIDHeader is the Streamable HTTP session header.
const sessionIDHeader = "Mcp-Session-Id"

type sessionIDKey struct{}

// SessionID puts the request's Mcp-Session-Id header in the request
// context, where [SessionIDFromContext] finds it: middleware after it (a
// tenant lookup, a rate limiter keyed by session) need not parse headers.
// A request without the header passes unchanged. A header that is sent
// twice, or holds anything but visible ASCII (0x21 to 0x7E, as the MCP
// transport specification requires of session IDs), is answered with 400
// and a JSON-RPC -32000 error body; the handlers it wraps do not run.
//
// The ID is the client's claim, not a proof: the MCP handler still checks
// that the session exists and belongs to the caller.
func SessionID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values(sessionIDHeader)
		switch {
		case len(vals) == 0:
			next.ServeHTTP(w, r)
			return
		case len(vals) > 1:
			badSessionID(w, "Bad Request: the Mcp-Session-Id header was sent more than once; send it once")
			return
		case !visibleASCII(vals[0]):
			badSessionID(w, "Bad Request: the Mcp-Session-Id header must be non-empty and hold only visible ASCII characters (0x21 to 0x7E); send the ID the server issued, unchanged")
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

func visibleASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func badSessionID(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b := jsonrpc.AppendError(make([]byte, 0, 64+len(msg)), nil, mcp.CodeServerError, msg, nil)
	_, _ = w.Write(append(b, '\n'))
}
