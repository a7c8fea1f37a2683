package middleware

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/header"
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
// The list is read when the middleware is built; change it before then.
type AllowList struct {
	// Origins lists origins (scheme://host[:port]) browsers may call the
	// endpoint from. An entry may hold one "*" wildcard
	// ("https://*.example.com"); "*" alone allows every origin. CheckOrigin
	// also accepts loopback origins and, off loopback, the request's own
	// host; CORS allows only what is listed.
	Origins []string
	// Hosts lists Host header values (host or host:port) accepted on a
	// loopback listener besides localhost, 127.0.0.1 and [::1]. CORS does
	// not read it.
	Hosts []string
}

// AllowsOrigin reports whether origin matches an entry of Origins (case
// does not matter; a "*" in an entry stands for any run of characters).
// A nil list allows nothing.
func (l *AllowList) AllowsOrigin(origin string) bool {
	if l == nil {
		return false
	}
	origin = strings.ToLower(origin)
	for _, o := range l.Origins {
		o = strings.ToLower(o)
		if o == "*" || o == origin {
			return true
		}
		if pre, suf, ok := strings.Cut(o, "*"); ok && len(origin) >= len(pre)+len(suf) &&
			strings.HasPrefix(origin, pre) && strings.HasSuffix(origin, suf) {
			return true
		}
	}
	return false
}

// allowsHost reports whether host (a Host header) is listed in Hosts,
// with or without its port.
func (l *AllowList) allowsHost(host string) bool {
	return l != nil && (slices.Contains(l.Hosts, host) || slices.Contains(l.Hosts, hostOnly(host)))
}

func (l *AllowList) clone() *AllowList {
	if l == nil {
		return nil
	}
	return &AllowList{Origins: slices.Clone(l.Origins), Hosts: slices.Clone(l.Hosts)}
}

// CheckOrigin protects a local MCP server against DNS rebinding, as the
// Streamable HTTP transport requires: on a loopback listener the Host
// header must name a loopback host (localhost, 127.0.0.1, [::1]) or one of
// allow.Hosts; and a request with an Origin header must come from a
// loopback origin, from one of allow.Origins or, off loopback, from the
// request's own host. Anything else is answered with 403 and a JSON-RPC
// -32000 error body that names the refused value (at most 128 bytes of it,
// escaped: strictjson.Quote). A request without
// Origin (not from a browser) passes the Origin check. Requests that did
// not arrive over a network connection (stdio, embedded sessions: no
// http.LocalAddrContextKey) pass the Host check. allow may be nil.
//
// mcphttp.New runs CheckOrigin with Options.Allow unless
// Options.DisableDNSRebindingProtection is set; add it to a chain yourself
// only to guard other handlers.
func CheckOrigin(allow *AllowList) func(http.Handler) http.Handler {
	allow = allow.clone()
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			loopback := false
			if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
				if ta, ok := la.(*net.TCPAddr); ok {
					loopback = ta.IP.IsLoopback()
				}
			}
			if loopback && !isLoopbackHost(r.Host) && !allow.allowsHost(r.Host) {
				writeError(w, http.StatusForbidden, fmt.Sprintf(
					"Forbidden: Host %s is not allowed on this loopback server (DNS rebinding protection; list it in AllowList.Hosts)", strictjson.Quote(r.Host)))
				return
			}
			origin := header.Get(r.Header, header.Origin)
			if origin != "" && !originAllowed(allow, origin, r.Host, loopback) {
				writeError(w, http.StatusForbidden, fmt.Sprintf(
					"Forbidden: Origin %s is not allowed (DNS rebinding protection; list it in AllowList.Origins)", strictjson.Quote(origin)))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func originAllowed(allow *AllowList, origin, host string, loopback bool) bool {
	if allow.AllowsOrigin(origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if isLoopbackHost(u.Host) {
		return true
	}
	// Same origin as the request's own Host is fine off loopback.
	return !loopback && strings.EqualFold(u.Host, host)
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// isLoopbackHost reports whether a Host header (or an origin's host)
// names a loopback host: localhost, a loopback IP address, with or
// without a port.
func isLoopbackHost(hostport string) bool {
	return plainLoopbackHost(hostport) || parsedLoopbackHost(hostport)
}

// plainLoopbackHost recognizes, without parsing, the Host a local client
// sends on every request ("127.0.0.1:8000", "localhost:8000"): it runs on
// each request, where parsing takes about 600 instructions. It
// never answers true where parsedLoopbackHost answers false
// (FuzzLoopbackHost).
func plainLoopbackHost(hostport string) bool {
	h, port, _ := strings.Cut(hostport, ":")
	return (h == "127.0.0.1" || h == "localhost") && allDigits(port)
}

// parsedLoopbackHost is isLoopbackHost for any host: it splits off the
// port and parses the address.
func parsedLoopbackHost(hostport string) bool {
	h := hostOnly(hostport)
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// allDigits reports whether s holds only ASCII digits ("" does).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
