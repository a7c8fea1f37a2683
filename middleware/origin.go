package middleware

import (
	"fmt"
	"net/http"

	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/hostcheck"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// AllowList names the browser origins and the Host header values an MCP
// endpoint accepts besides its own. It is the one list both [CheckOrigin]
// (DNS-rebinding protection, which mcphttp runs by default) and [CORS]
// read, so an origin is listed once:
//
//	allow := &middleware.AllowList{Origins: []string{"https://app.example"}}
//	engine := mcphttp.New(srv, &mcphttp.Options{Allow: allow})
//	mux.Handle("/mcp", alice.New(middleware.CORS(&middleware.CORSOptions{Allow: allow})).Then(engine))
//
// A server reached under a name (behind a reverse proxy that passes the
// public Host, or on a LAN by its host name) lists that name in Hosts.
// The list is read when the middleware is built; change it before then.
type AllowList struct {
	// Origins lists origins (scheme://host[:port]) browsers may call the
	// endpoint from. An entry may hold one "*" wildcard
	// ("https://*.example.com"); "*" alone allows every origin. CheckOrigin
	// also accepts an origin whose host it accepts as a Host (loopback,
	// the listener's address, an entry of Hosts other than "*"); CORS
	// allows only what is listed here.
	Origins []string
	// Hosts lists the Host header values (host or host:port) accepted
	// besides loopback names and addresses (localhost, 127.0.0.1, [::1])
	// and the address the connection arrived on: the names clients use to
	// reach the server. An entry without a port matches any port;
	// "*.example.com" matches every subdomain of example.com; "*" matches
	// any Host, which turns the Host check off: use it only behind a proxy
	// that routes by name itself (the Origin check still applies, but a
	// rebinding page's GET requests are same-origin to its browser and
	// carry no Origin). Case and a trailing dot do not matter. CORS does
	// not read it.
	Hosts []string
}

// AllowsOrigin reports whether origin matches an entry of Origins (case
// does not matter; a "*" in an entry stands for any run of characters).
// A nil list allows nothing.
func (l *AllowList) AllowsOrigin(origin string) bool {
	return l != nil && hostcheck.MatchOrigin(l.Origins, origin)
}

// policy compiles the list for the check (a copy: later changes to l do
// not reach it).
func (l *AllowList) policy() *hostcheck.Policy {
	if l == nil {
		return hostcheck.New(nil, nil)
	}
	return hostcheck.New(l.Origins, l.Hosts)
}

// CheckOrigin protects an MCP server against DNS rebinding, as the
// Streamable HTTP transport requires. On every listener, the Host header
// must name this server: a loopback name or address (localhost, 127.0.0.1,
// [::1]), the address the connection arrived on (http.LocalAddrContextKey),
// or an entry of allow.Hosts; a request without Host (HTTP/1.0) is
// refused. A request with an Origin header must come from an origin listed
// in allow.Origins, or whose host is accepted the same way (an Origin
// equal to the Host is not enough: a rebinding attack sends exactly that).
// Anything else is answered with 403 and a JSON-RPC -32000 error body that
// names the refused value (at most 128 bytes of it, escaped:
// strictjson.Quote) and the list to add it to. A request without Origin
// (not from a browser) passes the Origin check. Requests that did not
// arrive over a network connection (stdio, embedded sessions: no
// http.LocalAddrContextKey) pass the Host check. X-Forwarded-Host and
// Forwarded are not read: a client sets them as it likes. allow may be nil.
//
// mcphttp.New and mcphttp.NewMux run this check with Options.Allow unless
// Options.DisableDNSRebindingProtection is set; add it to a chain yourself
// only to guard other handlers.
func CheckOrigin(allow *AllowList) func(http.Handler) http.Handler {
	p := allow.policy()
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch p.Check(r) {
			case hostcheck.Host:
				writeError(w, http.StatusForbidden, fmt.Sprintf(
					"Forbidden: Host %s is not a name of this server (DNS rebinding protection; list it in AllowList.Hosts)", strictjson.Quote(r.Host)))
				return
			case hostcheck.Origin:
				writeError(w, http.StatusForbidden, fmt.Sprintf(
					"Forbidden: Origin %s is not allowed (DNS rebinding protection; list it in AllowList.Origins)", strictjson.Quote(header.Get(r.Header, header.Origin))))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
