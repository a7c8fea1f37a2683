package middleware

import (
	"net/http"

	"github.com/mcpchain/mcp/access"
)

// RestrictAccess puts policy, one [access.Policy] over every tool,
// resource and prompt, in every request's context (access.WithPolicy),
// where the registry consults it for each object with the request's
// context and an [access.Query] (the caller's auth data, session ID,
// the object's kind, name and tags): a refused one is left out of the
// lists and a call to it reads as unknown, exactly as when the object's
// own CanAccess check refuses the caller. Policies stack: with several
// RestrictAccess in a chain an object must pass them all. Place it after
// the authentication middleware, so the policy sees the auth data; it
// panics if policy is nil. [mcp.Restrict] builds a policy from a
// [mcp.Match] (kinds, names, tags) and an access check.
//
// policy is called from request goroutines, concurrently: it must be safe
// for concurrent use, and fast (a list request calls it once per object).
func RestrictAccess(policy access.Policy) func(http.Handler) http.Handler {
	if policy == nil {
		panic("middleware: RestrictAccess needs a non-nil access.Policy")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(access.WithPolicy(r.Context(), policy)))
		})
	}
}
