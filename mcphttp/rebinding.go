package mcphttp

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/hostcheck"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/middleware"
)

// rebinding is the DNS-rebinding check of a Handler, of its NewMux and of
// the legacy transport (package hostcheck has the rules): Options.Allow,
// plus the host of the server's own protected-resource URL (its OAuth
// metadata names it, so it is a name the server is reached by).
type rebinding struct {
	policy *hostcheck.Policy
	log    *slog.Logger
	// warnedHost and warnedOrigin log the first refusal of each kind:
	// an operator whose clients use a name not yet listed learns which
	// setting to change, and an attacker cannot fill the log.
	warnedHost, warnedOrigin atomic.Bool
}

// newRebinding returns the check of a handler with options o serving a
// server with options so; nil when o turns it off.
func newRebinding(o *Options, oa *discovery.Options) *rebinding {
	if o.DisableDNSRebindingProtection {
		return nil
	}
	var origins, hosts []string
	if o.Allow != nil {
		origins, hosts = o.Allow.Origins, o.Allow.Hosts
	}
	if oa != nil && oa.ProtectedResource != nil {
		if u, err := url.Parse(oa.ProtectedResource.Resource); err == nil && u.Host != "" {
			hosts = append(hosts[:len(hosts):len(hosts)], u.Host)
		}
	}
	g := &rebinding{policy: hostcheck.New(origins, hosts), log: o.Logger}
	if bad := g.policy.Ignored(); len(bad) > 0 {
		g.log.Warn("mcp: entries of mcphttp.Options.Allow.Hosts (or "+envAllowedHosts+") that are no Host value are ignored: write a name, name:port, an address or *.domain, without a scheme or path",
			"entries", bad)
	}
	return g
}

// refuse answers r with 403 when its Host or Origin is not allowed, and
// reports whether it did. 403 for a Host too, not 421 Misdirected
// Request: the transport specification answers a refused Origin 403, one
// status for both keeps the two alike for clients and for the conformance
// suite, and a client may resend a 421 on another connection (RFC 9110
// §15.5.20), which here would only be refused again.
func (g *rebinding) refuse(w http.ResponseWriter, r *http.Request) bool {
	var msg string
	switch g.policy.Check(r) {
	case hostcheck.OK:
		return false
	case hostcheck.Host:
		msg = fmt.Sprintf("Forbidden: Host %s is not a name of this server (DNS rebinding protection; list it in mcphttp.Options.Allow.Hosts, or in %s with mcphttp.Start)",
			strictjson.Quote(r.Host), envAllowedHosts)
		if !g.warnedHost.Swap(true) {
			g.log.Warn("mcp: refused a request whose Host is not a name of this server (DNS rebinding protection; logged once); if clients reach the server by this name, list it in mcphttp.Options.Allow.Hosts or "+envAllowedHosts,
				"host", strictjson.ForLog(r.Host), "path", strictjson.ForLog(r.URL.Path))
		}
	case hostcheck.Origin:
		origin := header.Get(r.Header, header.Origin)
		msg = fmt.Sprintf("Forbidden: Origin %s is not allowed (DNS rebinding protection; list it in mcphttp.Options.Allow.Origins, or its host in Allow.Hosts)",
			strictjson.Quote(origin))
		if !g.warnedOrigin.Swap(true) {
			g.log.Warn("mcp: refused a request from a browser origin that is not allowed (DNS rebinding protection; logged once); if a browser-based client calls the server from it, list it in mcphttp.Options.Allow.Origins",
				"origin", strictjson.ForLog(origin), "path", strictjson.ForLog(r.URL.Path))
		}
	}
	httpError(w, http.StatusForbidden, nil, mcp.CodeServerError, msg)
	return true
}

// middleware runs the check in front of next; g may be nil (no check).
func (g *rebinding) middleware(next http.Handler) http.Handler {
	if g == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.refuse(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// anyHost marks a handler of NewMux's inner mux that the check lets
// through whatever the Host and Origin: the health endpoint, and custom
// routes added with RouteOptions.DisableDNSRebindingProtection.
type anyHost struct{ http.Handler }

// anyOrigin marks a handler of NewMux's inner mux that the check lets
// through whatever the Origin, its Host still checked: a public Server
// Card, which any web page may read (its CORS headers say so).
type anyOrigin struct{ http.Handler }

// guardedMux is what NewMux returns in front of its routes: every request
// passes the check first, so each route is covered, the auth provider's
// and the discovery documents included, however they were mounted. Only
// a request the check refuses is looked up, to let the anyHost routes
// through. A handler rather than a ServeMux with one pattern: nothing can
// be registered beside the check, and a request is routed once.
func guardedMux(g *rebinding, inner *http.ServeMux, late *lateRoutes) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := g.policy.Check(r); c == hostcheck.OK || exempt(inner, late, r, c) {
			inner.ServeHTTP(w, r)
			return
		}
		g.refuse(w, r)
	})
}

// exempt reports whether the route r reaches on inner skips the check
// that refused it (c), mounting the routes added since NewMux first when r
// would reach the catch-all.
func exempt(inner *http.ServeMux, late *lateRoutes, r *http.Request, c hostcheck.Refusal) bool {
	h, _ := inner.Handler(r)
	if h == late && late.mountNew(false) {
		h, _ = inner.Handler(r)
	}
	switch h.(type) {
	case anyHost:
		return true
	case anyOrigin:
		return c == hostcheck.Origin
	}
	return false
}

// envAllowedHosts names the environment variable [Start] reads for more
// names of the server (comma-separated Allow.Hosts entries) when it
// serves HTTP: the setting an operator changes without a rebuild.
const envAllowedHosts = "MCP_ALLOWED_HOSTS"

// startHosts returns the names Start adds to Options.Allow.Hosts: the
// entries of MCP_ALLOWED_HOSTS (getenv reads it), and the listen Host when
// it is a name rather than an address (clients then reach the server by
// that name).
func startHosts(listen string, getenv func(string) string) []string {
	var hosts []string
	for _, h := range strings.Split(getenv(envAllowedHosts), ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if _, err := netip.ParseAddr(listen); err != nil && listen != "" {
		hosts = append(hosts, listen)
	}
	return hosts
}

// allowHosts returns a copy of o with hosts added to o.Allow.Hosts (o.Allow
// itself is not changed).
func allowHosts(o *Options, hosts []string) *Options {
	if len(hosts) == 0 {
		return o
	}
	c := *o
	var a middleware.AllowList
	if o.Allow != nil {
		a = *o.Allow
	}
	a.Hosts = append(a.Hosts[:len(a.Hosts):len(a.Hosts)], hosts...)
	c.Allow = &a
	return &c
}
