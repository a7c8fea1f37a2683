package middleware

import (
	"encoding/json"
	"net/http"

	"github.com/mcpchain/mcp"
)

// Authenticate runs fn on every request. On success the auth data is put
// in the request context (mcp.WithAuth) for the engine and the tools; on
// failure the request is answered with 401 and a JSON body
// {"error": "unauthorized", "error_description": <the error's text>}.
// challenge, when non-empty, is sent as WWW-Authenticate (for example
// `Bearer resource_metadata="https://…/.well-known/oauth-protected-resource"`).
func Authenticate(fn mcp.AuthFunc, challenge string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth, err := fn(r)
			if err != nil {
				if challenge != "" {
					w.Header().Set("WWW-Authenticate", challenge)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_ = json.NewEncoder(w).Encode(map[string]string{
					"error": "unauthorized", "error_description": err.Error(),
				})
				return
			}
			next.ServeHTTP(w, r.WithContext(mcp.WithAuth(r.Context(), auth)))
		})
	}
}

// WithAuth puts fixed auth data in every request's context: the stdio and
// embedded transports use it for the local caller.
func WithAuth(auth any) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if auth != nil {
				r = r.WithContext(mcp.WithAuth(r.Context(), auth))
			}
			next.ServeHTTP(w, r)
		})
	}
}
