package hostcheck

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzLoopbackHost: the fast path of the Host check never admits a host
// that parsing would refuse.
func FuzzLoopbackHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8000", "localhost:8000", "127.0.0.1", "localhost", "127.0.0.1:",
		"127.0.0.1:80:90", "127.0.0.1.evil.example", "localhost.evil.example:80", "[::1]:8000", "LOCALHOST:1",
		"127.0.0.1:8o", "evil.example", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if plainLoopbackHost(host) && !parsedLoopbackHost(host) {
			t.Fatalf("plainLoopbackHost(%q) is true, parsedLoopbackHost false", host)
		}
	})
}

// fuzzLocal is the listener's address FuzzHostAllowed assumes.
var fuzzLocal = netip.MustParseAddr("192.0.2.10")

// FuzzHostAllowed: a Host the matcher accepts, given one allow-list entry,
// is one that net/url reads as a host[:port] whose host is loopback, the
// listener's address, or what the entry names; and the answer does not
// change with the case of the Host.
func FuzzHostAllowed(f *testing.F) {
	for _, s := range [][2]string{
		{"mcp.example.com", "mcp.example.com"}, {"mcp.example.com:8443", "mcp.example.com:8443"},
		{"MCP.Example.COM.:80", "mcp.example.com"}, {"evil.example", "mcp.example.com"},
		{"mcp.example.com.evil.example", "mcp.example.com"}, {"evilmcp.example.com", "*.mcp.example.com"},
		{"a.mcp.example.com", "*.mcp.example.com"}, {"192.0.2.10:8000", ""}, {"[::ffff:192.0.2.10]:1", ""},
		{"[fe80::1%25eth0]:8000", "[fe80::1]"}, {"[::1]", ""}, {"0.0.0.0:8000", ""}, {"localhost.:1", ""},
		{"127.0.0.1.evil.example", ""}, {"2130706433", ""}, {"", "*"}, {"x:1:2", "*"}, {"[::1", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, host, allowed string) {
		p := New(nil, []string{allowed})
		got := p.HostAllowed(host, fuzzLocal)
		if got != p.HostAllowed(strings.ToUpper(host), fuzzLocal) {
			t.Fatalf("HostAllowed(%q) changes with case", host)
		}
		if !got {
			return
		}
		entry := strings.ToLower(strings.TrimSpace(allowed))
		if entry == "*" {
			return // any Host
		}
		u, err := url.Parse("http://" + host + "/")
		if err != nil || u.Host != host || u.User != nil {
			// net/url refuses some Hosts the matcher reads (a zone without
			// %25, an IPv6 address without brackets): they must then be
			// IP literals, which no DNS answer produces.
			name, _, ok := splitHost(host)
			if _, perr := netip.ParseAddr(name); !ok || perr != nil {
				t.Fatalf("HostAllowed(%q) is true for a name net/url does not read as a host: %v", host, err)
			}
			return
		}
		name := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if a, err := netip.ParseAddr(name); err == nil {
			a = a.WithZone("").Unmap()
			if a.IsLoopback() || a == fuzzLocal {
				return
			}
			name = a.String()
		}
		if name == "localhost" {
			return
		}
		if e, ok := strings.CutPrefix(entry, "*."); ok {
			ename, _, _ := splitHost(e)
			if ename != "" && strings.HasSuffix(name, "."+ename) {
				return
			}
			t.Fatalf("HostAllowed(%q) with entry %q: %q is not a subdomain of %q", host, allowed, name, ename)
		}
		ename, eport, _ := splitHost(entry)
		if name != ename || eport != "" && eport != u.Port() {
			t.Fatalf("HostAllowed(%q) with entry %q: host %q port %q", host, allowed, name, u.Port())
		}
	})
}
