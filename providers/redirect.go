package providers

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// DefaultRedirectURIPatterns returns the redirect URIs a client may
// register when Config.AllowedRedirectURIPatterns is empty: any http URI
// on the loopback interface (localhost, 127.0.0.1, [::1]; any port) and
// any https URI. Because the second lets anyone register a callback
// anywhere, the consent page cannot be turned off while it (or any
// wildcard https pattern) is allowed. Each call returns a new slice, so
// changing it changes no proxy's defaults.
func DefaultRedirectURIPatterns() []string {
	return []string{"http://localhost:*", "https://*"}
}

// redirectPattern is one parsed allowedRedirectUriPatterns entry. Patterns
// are matched against parsed URLs, component by component, never as
// strings: "http://localhost:@evil.example" has the host evil.example and
// does not match "http://localhost:*".
type redirectPattern struct {
	raw    string
	scheme string
	host   string // "*", "*.suffix", or a host (lower case)
	port   string // "*", "" (default port) or digits
	path   string // "" (any) or a path.Match pattern
}

var dangerousSchemes = map[string]bool{"javascript": true, "data": true, "file": true, "vbscript": true, "blob": true, "about": true}

func parseRedirectPattern(p string) (redirectPattern, error) {
	scheme, rest, ok := strings.Cut(p, "://")
	if !ok || scheme == "" {
		return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: want scheme://host[:port][/path]", p)
	}
	scheme = strings.ToLower(scheme)
	if dangerousSchemes[scheme] {
		return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: the %s scheme is never allowed", p, scheme)
	}
	hostport, pth := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		hostport, pth = rest[:i], rest[i:]
	}
	if strings.ContainsAny(hostport, "@?#") {
		return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: userinfo, query and fragment are not allowed", p)
	}
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: unclosed [ in host", p)
		}
		host, port = hostport[1:end], strings.TrimPrefix(hostport[end+1:], ":")
	} else if h, pt, ok := strings.Cut(hostport, ":"); ok {
		host, port = h, pt
	}
	if host == "" {
		return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: empty host", p)
	}
	if port != "" && port != "*" && strings.Trim(port, "0123456789") != "" {
		return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: port must be digits or *", p)
	}
	if pth == "/*" {
		pth = ""
	}
	if _, err := path.Match(pth, "/"); err != nil {
		return redirectPattern{}, fmt.Errorf("redirect URI pattern %q: bad path pattern: %w", p, err)
	}
	return redirectPattern{raw: p, scheme: scheme, host: strings.ToLower(host), port: port, path: pth}, nil
}

// exactHost reports whether the pattern names one host (no * in it): the
// operator chose that host, so a URI it matches is not anyone's.
func (p redirectPattern) exactHost() bool {
	return p.host != "*" && !strings.HasPrefix(p.host, "*.")
}

// consentMayBeOff reports whether the pattern admits only URIs that
// cannot hand a code to a stranger without the user's consent: http on
// the loopback interface, or https on one exact host. A wildcard host, a
// non-loopback http host, or a custom scheme (any app may claim it) can.
func (p redirectPattern) consentMayBeOff() bool {
	return (p.scheme == "http" && isLoopbackHost(p.host)) || (p.scheme == "https" && p.exactHost())
}

// trustedRedirect reports whether an error found before the user
// interacted may be sent to uri (RFC 9700 §4.11.2): only loopback http
// URIs and URIs matched by a pattern with an exact host, never one that
// anyone may register (https://evil.example under https://*).
func trustedRedirect(uri string, patterns []redirectPattern) bool {
	u, err := url.Parse(uri)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Scheme, "http") && isLoopbackHost(strings.ToLower(u.Hostname())) {
		return true
	}
	for _, p := range patterns {
		if p.exactHost() && p.match(u) {
			return true
		}
	}
	return false
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

var defaultPorts = map[string]string{"http": "80", "https": "443"}

func (p redirectPattern) match(u *url.URL) bool {
	if strings.ToLower(u.Scheme) != p.scheme {
		return false
	}
	if !p.hostMatches(strings.ToLower(u.Hostname())) || !p.portMatches(u.Port()) {
		return false
	}
	if p.path == "" {
		return true
	}
	ok, _ := path.Match(p.path, u.EscapedPath())
	return ok
}

// hostMatches reports whether the pattern's host allows host (lower
// case): any host, a subdomain of a wildcard, any loopback name for a
// loopback one, else the same name.
func (p redirectPattern) hostMatches(host string) bool {
	switch {
	case p.host == "*":
		return true
	case strings.HasPrefix(p.host, "*."):
		return strings.HasSuffix(host, p.host[1:]) && len(host) > len(p.host)-1
	case isLoopbackHost(p.host):
		return isLoopbackHost(host)
	}
	return host == p.host
}

// portMatches reports whether the pattern's port allows port (as the URL
// spells it; the scheme's default port is the same as none).
func (p redirectPattern) portMatches(port string) bool {
	if port == defaultPorts[p.scheme] {
		port = ""
	}
	switch {
	case p.port == "*", p.port == "" && p.host == "*":
		return true
	case p.port == defaultPorts[p.scheme]:
		return port == ""
	}
	return port == p.port
}

var errBadRedirect = errors.New("invalid redirect URI")

// maxRedirectURI is the longest redirect URI a client may register (the
// answer to a registration echoes them, and browsers cap URLs near this).
const maxRedirectURI = 2000

// checkRedirectURI parses uri and matches it against the patterns. The
// error says what was wrong.
func checkRedirectURI(uri string, patterns []redirectPattern) error {
	if len(uri) > maxRedirectURI {
		return fmt.Errorf("%w %s: longer than %d bytes", errBadRedirect, strictjson.Quote(uri), maxRedirectURI)
	}
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("%w %s: byte %d is not printable ASCII (percent-encode it)", errBadRedirect, strictjson.Quote(uri), i)
		}
	}
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("%w %s: %v", errBadRedirect, strictjson.Quote(uri), err)
	}
	switch {
	case !u.IsAbs() || u.Opaque != "":
		return fmt.Errorf("%w %s: it must be an absolute URI with a host", errBadRedirect, strictjson.Quote(uri))
	case dangerousSchemes[strings.ToLower(u.Scheme)]:
		return fmt.Errorf("%w %s: the %s scheme is never allowed", errBadRedirect, strictjson.Quote(uri), u.Scheme)
	case u.User != nil:
		return fmt.Errorf("%w %s: it must not contain userinfo (user@host)", errBadRedirect, strictjson.Quote(uri))
	case u.Fragment != "" || strings.Contains(uri, "#"):
		return fmt.Errorf("%w %s: it must not contain a fragment", errBadRedirect, strictjson.Quote(uri))
	case u.Hostname() == "":
		return fmt.Errorf("%w %s: it has no host", errBadRedirect, strictjson.Quote(uri))
	}
	for _, p := range patterns {
		if p.match(u) {
			return nil
		}
	}
	return fmt.Errorf("%w %s: it matches none of the allowed redirect URI patterns", errBadRedirect, strictjson.Quote(uri))
}

// redirectMatches is the check at /oauth/authorize: the requested URI must
// equal a registered one exactly, except that a loopback http URI may
// differ in its port (RFC 8252 §7.3: native apps take a free port).
func redirectMatches(requested string, registered []string) bool {
	if slices.Contains(registered, requested) {
		return true
	}
	q, err := url.Parse(requested)
	if err != nil || q.Scheme != "http" || q.User != nil || q.Fragment != "" || !isLoopbackHost(q.Hostname()) {
		return false
	}
	for _, r := range registered {
		g, err := url.Parse(r)
		if err != nil || g.Scheme != "http" || g.Hostname() != q.Hostname() {
			continue
		}
		if g.EscapedPath() == q.EscapedPath() && g.RawQuery == q.RawQuery {
			return true
		}
	}
	return false
}
