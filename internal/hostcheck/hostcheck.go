// Package hostcheck decides whether a request's Host and Origin headers
// name this server: the DNS-rebinding check that middleware.CheckOrigin,
// the mcphttp handler and the mcphttp mux run.
//
// A DNS-rebinding attack makes a browser send the attacker's own name as
// Host (and, on POST, an Origin equal to it) to a server on the victim's
// machine or network. So a Host is accepted only when it is a loopback name
// or address, the address the connection arrived on (an IP literal, which
// no DNS answer can produce), or a name the operator listed; an Origin only
// when it is listed, or its host is accepted the same way.
package hostcheck

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mcpchain/mcp/internal/header"
)

// Refusal says which header a request was refused for.
type Refusal int

// The answers of [Policy.Check].
const (
	OK     Refusal = iota // both headers are accepted
	Host                  // the Host names no host of this server
	Origin                // the Origin is not allowed
)

// Policy is an allow-list compiled for matching. The zero value and nil
// accept loopback hosts, the listener's own address and loopback origins
// only.
type Policy struct {
	origins []string // lower case
	hosts   []entry
	anyHost bool     // a "*" entry: any Host (never an Origin)
	ignored []string // the host entries New left out
}

// entry is one compiled host entry.
type entry struct {
	name   string // a lower-case name without a trailing dot, or an IP address's canonical form
	port   string // "": any port
	suffix bool   // "*.name": the subdomains of name, not name itself
}

// New compiles the lists: origins as [MatchOrigin] reads them, hosts as
// Host values ("name", "name:port", "203.0.113.7", "[2001:db8::1]:8443",
// "*.example.com" for any subdomain, "*" for any Host). Case and a trailing
// dot do not matter; an entry without a port matches any port. Malformed
// entries (a URL, a name with other characters than letters, digits, '-',
// '_' and dots) are left out: [Policy.Ignored] lists them.
func New(origins, hosts []string) *Policy {
	p := &Policy{}
	for _, o := range origins {
		p.origins = append(p.origins, strings.ToLower(o))
	}
	for _, raw := range hosts {
		h := strings.ToLower(strings.TrimSpace(raw))
		switch {
		case h == "":
		case h == "*":
			p.anyHost = true
		default:
			if e, ok := compile(h); ok {
				p.hosts = append(p.hosts, e)
			} else {
				p.ignored = append(p.ignored, raw)
			}
		}
	}
	return p
}

// compile reads one lower-case host entry.
func compile(h string) (entry, bool) {
	suffix := strings.HasPrefix(h, "*.")
	if suffix {
		h = h[2:]
	}
	name, port, ok := splitHost(h)
	if !ok || name == "" {
		return entry{}, false
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return entry{name: name, port: port}, !suffix // "*.127.0.0.1" names nothing
	}
	return entry{name: name, port: port, suffix: suffix}, validName(name)
}

// Ignored returns the host entries New left out as malformed.
func (p *Policy) Ignored() []string { return p.ignored }

// Check judges r: its Host, when r came over a network connection (a
// request with no http.LocalAddrContextKey, from stdio or an embedded
// session, has no Host to judge), then its Origin when it has one.
func (p *Policy) Check(r *http.Request) Refusal {
	if !plainLoopbackHost(r.Host) {
		if local, conn := localAddr(r); conn && !p.hostAllowed(r.Host, local, false) {
			return Host
		}
	}
	if origin := header.Get(r.Header, header.Origin); origin != "" && !p.originAllowed(origin, r) {
		return Origin
	}
	return OK
}

// localAddr returns the IP address r's connection arrived on (invalid for
// a Unix socket), and whether r came over a connection at all.
func localAddr(r *http.Request) (netip.Addr, bool) {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return netip.Addr{}, false
	}
	if ta, ok := la.(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(ta.IP); ok {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, true
}

// HostAllowed reports whether hostport (a Host header) names this server
// on a connection that arrived at local (invalid: none known): a loopback
// host, local itself, or an entry of p ("*" included).
func (p *Policy) HostAllowed(hostport string, local netip.Addr) bool {
	return p.hostAllowed(hostport, local, false)
}

// hostAllowed is HostAllowed; forOrigin leaves the "*" entry out, so that
// accepting any Host never accepts any Origin.
func (p *Policy) hostAllowed(hostport string, local netip.Addr, forOrigin bool) bool {
	name, port, ok := splitHost(hostport)
	if !ok || name == "" {
		return false
	}
	if name == "localhost" {
		return true
	}
	if a, err := netip.ParseAddr(name); err == nil {
		a = a.Unmap()
		if a.IsLoopback() || local.IsValid() && a == local.Unmap() {
			return true
		}
	}
	if p == nil {
		return false
	}
	if p.anyHost && !forOrigin {
		return true
	}
	for _, e := range p.hosts {
		if e.matches(name, port) {
			return true
		}
	}
	return false
}

// matches reports whether the listed host e allows name (with port): the
// same port when e names one, and the same name or, for a suffix entry,
// a subdomain of it.
func (e entry) matches(name, port string) bool {
	if e.port != "" && e.port != port {
		return false
	}
	if e.suffix {
		return len(name) > len(e.name)+1 && strings.HasSuffix(name, e.name) && name[len(name)-len(e.name)-1] == '.'
	}
	return name == e.name
}

// originAllowed reports whether origin (an Origin header) is listed, or is
// a serialized origin (scheme://host[:port], as browsers send it) whose
// host r's server accepts.
func (p *Policy) originAllowed(origin string, r *http.Request) bool {
	if p != nil && MatchOrigin(p.origins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	local, _ := localAddr(r)
	return p.hostAllowed(u.Host, local, true)
}

// MatchOrigin reports whether origin matches one of entries (case does not
// matter; a "*" in an entry stands for any run of characters; "*" alone
// matches every origin).
func MatchOrigin(entries []string, origin string) bool {
	origin = strings.ToLower(origin)
	for _, o := range entries {
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

// splitHost splits a Host value into its host, lower case and without a
// trailing dot (an IP address in canonical form, its IPv6 zone dropped),
// and its port (digits, maybe empty). ok is false for anything that is not
// host[:port]: two ports, an unclosed bracket, a non-numeric port.
func splitHost(hostport string) (name, port string, ok bool) {
	h := hostport
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", "", false
		}
		rest := h[end+1:]
		h = h[1:end]
		if rest != "" {
			if rest[0] != ':' {
				return "", "", false
			}
			port = rest[1:]
		}
		a, err := netip.ParseAddr(unescapeZone(h))
		if err != nil || !a.Is6() {
			return "", "", false
		}
		return a.WithZone("").Unmap().String(), port, allDigits(port)
	}
	switch strings.Count(h, ":") {
	case 0:
	case 1:
		h, port, _ = strings.Cut(h, ":")
	default: // an IPv6 address without brackets (and without a port)
		a, err := netip.ParseAddr(unescapeZone(h))
		if err != nil || !a.Is6() {
			return "", "", false
		}
		return a.WithZone("").Unmap().String(), "", true
	}
	if !allDigits(port) {
		return "", "", false
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if a, err := netip.ParseAddr(h); err == nil {
		return a.String(), port, true
	}
	// The rule the listed entries follow: a label of other characters
	// (" .mcp.example.com") would otherwise match a suffix entry, though no
	// name a browser resolves is written so.
	return h, port, validName(h)
}

// unescapeZone turns the zone of an IPv6 literal as written in a URL
// ("fe80::1%25eth0", RFC 6874) into the form netip parses.
func unescapeZone(h string) string {
	if i := strings.Index(h, "%25"); i >= 0 {
		return h[:i] + "%" + h[i+3:]
	}
	return h
}

// IsLoopbackHost reports whether a Host value (or an origin's host) names a
// loopback host: localhost or a loopback IP address, with or without a port.
func IsLoopbackHost(hostport string) bool {
	return plainLoopbackHost(hostport) || parsedLoopbackHost(hostport)
}

// plainLoopbackHost recognizes, without parsing, the Host a local client
// sends on every request ("127.0.0.1:8000", "localhost:8000"): it runs on
// each request, where parsing costs hundreds of instructions and, for a
// Host that is not loopback, the lookup of the connection's address. It
// never answers true where parsedLoopbackHost answers false
// (FuzzLoopbackHost).
func plainLoopbackHost(hostport string) bool {
	h, port, _ := strings.Cut(hostport, ":")
	return (h == "127.0.0.1" || h == "localhost") && allDigits(port)
}

// parsedLoopbackHost is IsLoopbackHost for any host: it splits off the
// port and parses the address.
func parsedLoopbackHost(hostport string) bool {
	name, _, ok := splitHost(hostport)
	if !ok {
		return false
	}
	if name == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(name)
	return err == nil && a.Unmap().IsLoopback()
}

// validName reports whether name is a host name as a Host header carries
// it: ASCII letters, digits, '-', '_' and dots (an internationalized name
// in its xn-- form).
func validName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
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
