package mcphttp

import (
	"context"
	"net/http"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/middleware"
)

// authRanKey marks a request context in which a server's authentication
// already ran (the value is true); it is keyed by the server so that a
// second MCP server mounted behind the first still runs its own.
type authRanKey struct{ srv *mcp.Server }

// serverAuth returns the server's authentication: Options.Authenticate,
// else the VerifyRequest method of Options.Auth, else nil.
func serverAuth(o mcp.Options) mcp.AuthFunc {
	switch {
	case o.Authenticate != nil:
		return o.Authenticate
	case o.Auth != nil:
		return o.Auth.VerifyRequest
	}
	return nil
}

// oauthOptions returns the OAuth discovery configuration of a server:
// Options.OAuth, else the metadata of an mcp.Options.Auth provider that
// implements discovery.MetadataProvider, else nil.
func oauthOptions(oauth *discovery.Options, o mcp.Options) *discovery.Options {
	if oauth != nil {
		return oauth
	}
	if p, ok := o.Auth.(discovery.MetadataProvider); ok {
		return p.OAuthMetadata()
	}
	return nil
}

// challenge returns the WWW-Authenticate value of the server's 401
// answers: Bearer with resource_metadata when protected-resource metadata
// is served, plain Bearer otherwise.
func challenge(oa *discovery.Options) string {
	if oa == nil || !oa.Enabled || oa.ProtectedResource == nil || oa.ProtectedResource.Resource == "" {
		return "Bearer"
	}
	u, err := discovery.ResourceMetadataURL(oa.ProtectedResource.Resource)
	if err != nil {
		return "Bearer"
	}
	return discovery.Challenge(u, "")
}

// AuthMiddleware is the server's authentication (mcp.Options.Authenticate,
// else Options.Auth) as middleware. The Handler runs it by itself as the
// first step of every request, so an endpoint mounted bare is never open;
// put this method in your chain only to run it earlier, so that your own
// middleware after it sees the caller's auth data (mcp.AuthFromContext):
//
//	mux.Handle("/mcp", alice.New(middleware.Recover(nil), h.AuthMiddleware, Tenant).Then(h))
//
// The check still runs once: the Handler skips its own step for a request
// this middleware admitted. A failed check is answered here (see
// middleware.CheckCredentials: 401 with a WWW-Authenticate challenge naming
// the protected-resource metadata when the server has it, 403 for
// mcp.ErrInsufficientScope, 500 for any other error; a fixed body, the
// reason logged). A server without authentication passes every request
// through unchanged. [NewMux] puts it outermost but for recovery.
func (h *Handler) AuthMiddleware(next http.Handler) http.Handler {
	if h.auth == nil {
		return next
	}
	key := authRanKey{h.srv}
	return h.auth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key, true)))
	}))
}

// authenticateOnce is the server's authentication for a chain that ends
// in h.admitted (NewMux's endpoint): that chain has no authentication step
// of its own, so the request needs no mark that the check ran, which
// saves a context value and a copy of the request on every POST.
func (h *Handler) authenticateOnce(next http.Handler) http.Handler {
	if h.auth == nil {
		return next
	}
	return h.auth(next)
}

// authRan reports whether this server's authentication already admitted r.
func (h *Handler) authRan(r *http.Request) bool {
	ran, _ := r.Context().Value(authRanKey{h.srv}).(bool)
	return ran
}

// initAuth prepares the authentication step of a new handler.
func (h *Handler) initAuth() {
	so := h.ops.Options()
	fn := serverAuth(so)
	if fn == nil {
		return
	}
	h.auth = middleware.CheckCredentials(fn, &middleware.AuthOptions{Challenge: challenge(h.oauth), Logger: h.log})
}

// authStep is the engine's authentication step: it runs the server's
// authentication unless [Handler.AuthMiddleware] already admitted the request.
func (h *Handler) authStep(next http.Handler) http.Handler {
	authed := h.AuthMiddleware(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.authRan(r) {
			next.ServeHTTP(w, r)
			return
		}
		authed.ServeHTTP(w, r)
	})
}
