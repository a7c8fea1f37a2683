package mcp

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/engine"
)

// RouteOptions configure a custom route.
type RouteOptions struct {
	// Public routes skip authentication (health checks, webhooks with
	// their own signature check).
	Public bool
	// DisableDNSRebindingProtection serves the route whatever its Host and
	// Origin headers name: it skips the DNS-rebinding check that every
	// other route of mcphttp.NewMux runs (mcphttp.Options.Allow). Set it
	// only for a route called under names the server does not list, that
	// checks its callers itself: a webhook that verifies a signature, say.
	// A page fooled by DNS rebinding reaches such a route from the user's
	// browser, inside the user's network, so it must not trust a caller
	// for its address nor serve anything private without credentials.
	DisableDNSRebindingProtection bool
}

var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// AddRoute registers a custom HTTP route for the HTTP transport: method is
// GET, POST, PUT, PATCH, DELETE or OPTIONS; path is a Go 1.22 ServeMux
// path ("/users/{id}"; read parameters with r.PathValue). The route is
// behind the DNS-rebinding check unless opts.DisableDNSRebindingProtection,
// and behind authentication unless opts.Public. It panics on another method
// or a path not starting with "/". A route added after the HTTP transport
// started (after mcphttp.NewMux) is served from its first request on,
// unless its pattern conflicts with a route already mounted: that is
// logged and the route is not served.
func (s *Server) AddRoute(method, path string, h http.Handler, opts *RouteOptions) {
	method = strings.ToUpper(method)
	if !slices.Contains(routeMethods, method) {
		panic(fmt.Sprintf("mcp: AddRoute: method %q is not one of %s", method, strings.Join(routeMethods, ", ")))
	}
	if !strings.HasPrefix(path, "/") {
		panic(fmt.Sprintf("mcp: AddRoute: path %q must start with /", path))
	}
	if h == nil {
		panic("mcp: AddRoute: nil handler")
	}
	rt := engine.Route{Method: method, Path: path, Handler: h, Public: opts != nil && opts.Public,
		AnyHost: opts != nil && opts.DisableDNSRebindingProtection}
	s.mu.Lock()
	s.routes = append(s.routes, rt)
	s.mu.Unlock()
}

// routeList returns the custom routes in registration order.
func (s *Server) routeList() []engine.Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.routes)
}
