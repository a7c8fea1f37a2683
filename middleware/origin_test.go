package middleware_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp/middleware"
)

func TestAllowListAllowsOrigin(t *testing.T) {
	t.Parallel()
	list := &middleware.AllowList{Origins: []string{"https://app.example", "https://*.tenant.example"}}
	tests := []struct {
		name   string
		list   *middleware.AllowList
		origin string
		want   bool
	}{
		{"listed", list, "https://app.example", true},
		{"case does not matter", list, "HTTPS://App.Example", true},
		{"another port", list, "https://app.example:8443", false},
		{"wildcard subdomain", list, "https://eu.tenant.example", true},
		{"wildcard needs its suffix", list, "https://eu.tenant.example.evil", false},
		{"wildcard needs its prefix", list, "http://eu.tenant.example", false},
		{"unlisted", list, "https://evil.example", false},
		{"star allows any", &middleware.AllowList{Origins: []string{"*"}}, "https://evil.example", true},
		{"nil list allows nothing", nil, "https://app.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.list.AllowsOrigin(tt.origin))
		})
	}
}

// onListener makes r look as if it arrived on a listener at ip ("unix":
// on a Unix socket).
func onListener(r *http.Request, ip string) *http.Request {
	var addr net.Addr
	switch ip {
	case "":
		return r
	case "unix":
		addr = &net.UnixAddr{Name: "/run/mcp.sock", Net: "unix"}
	default:
		addr = &net.TCPAddr{IP: net.ParseIP(ip), Port: 8000}
	}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
}

// checkOriginCase is one request to CheckOrigin: the listener's address
// ("" : no network connection, as over stdio; "unix"), the Host and Origin
// headers, and the answer.
type checkOriginCase struct {
	name     string
	listener string
	host     string
	origin   string
	want     int
	wantMsg  string
}

func runCheckOrigin(t *testing.T, allow *middleware.AllowList, tests []checkOriginCase) {
	t.Helper()
	h := middleware.CheckOrigin(allow)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, onListener(r, tt.listener))
			assert.Equal(t, tt.want, rec.Code, rec.Body.String())
			if tt.wantMsg != "" {
				code, msg := rpcError(t, rec.Body.Bytes())
				assert.Equal(t, -32000, code)
				assert.Contains(t, msg, tt.wantMsg)
				assert.Contains(t, msg, "DNS rebinding")
			}
		})
	}
}

func TestCheckOrigin(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}, Hosts: []string{"mcp.internal", "dev.local:8000", "mcp.example.com"}}
	runCheckOrigin(t, allow, []checkOriginCase{
		{"loopback host", "127.0.0.1", "localhost:8000", "", http.StatusOK, ""},
		{"IPv6 loopback host", "::1", "[::1]:8000", "", http.StatusOK, ""},
		{"foreign host on loopback", "127.0.0.1", "evil.example", "", http.StatusForbidden, `Host "evil.example"`},
		{"IPv4 loopback host", "127.0.0.1", "127.0.0.1:8000", "", http.StatusOK, ""},
		{"loopback host without a port", "127.0.0.1", "127.0.0.1", "", http.StatusOK, ""},
		{"loopback name in capitals", "127.0.0.1", "LOCALHOST:8000", "", http.StatusOK, ""},
		{"loopback name as a prefix", "127.0.0.1", "localhost.evil.example:8000", "", http.StatusForbidden, `Host "localhost.evil.example:8000"`},
		{"loopback address as a prefix", "127.0.0.1", "127.0.0.1.evil.example", "", http.StatusForbidden, `Host "127.0.0.1.evil.example"`},
		{"two ports", "127.0.0.1", "127.0.0.1:80:90", "", http.StatusForbidden, `Host "127.0.0.1:80:90"`},
		{"listed host", "127.0.0.1", "mcp.internal:8000", "", http.StatusOK, ""},
		{"listed host:port", "127.0.0.1", "dev.local:8000", "", http.StatusOK, ""},
		{"listed host, another port", "127.0.0.1", "dev.local:9000", "", http.StatusForbidden, "AllowList.Hosts"},
		{"listed host off loopback", "10.0.0.5", "mcp.example.com", "", http.StatusOK, ""},
		{"no listener: no Host check", "", "evil.example", "", http.StatusOK, ""},
		{"loopback origin", "127.0.0.1", "localhost:8000", "http://localhost:3000", http.StatusOK, ""},
		{"listed origin", "127.0.0.1", "localhost:8000", "https://app.example", http.StatusOK, ""},
		{"foreign origin", "127.0.0.1", "localhost:8000", "https://evil.example", http.StatusForbidden, `Origin "https://evil.example"`},
		{"same origin as a listed host off loopback", "10.0.0.5", "mcp.example.com", "https://mcp.example.com", http.StatusOK, ""},
		{"origin of another listed host", "10.0.0.5", "mcp.example.com", "http://mcp.internal:8000", http.StatusOK, ""},
		{"foreign origin off loopback", "10.0.0.5", "mcp.example.com", "https://evil.example", http.StatusForbidden, "AllowList.Origins"},
		{"malformed origin", "10.0.0.5", "mcp.example.com", "::::", http.StatusForbidden, "Origin"},
		{"null origin", "10.0.0.5", "mcp.example.com", "null", http.StatusForbidden, "Origin"},
		{"origin with user info", "10.0.0.5", "mcp.example.com", "https://mcp.example.com@evil.example", http.StatusForbidden, "Origin"},
		{"origin with a path", "10.0.0.5", "mcp.example.com", "https://mcp.example.com/x", http.StatusForbidden, "Origin"},
	})
}

// TestCheckOriginRebinding: off loopback the Host is
// checked too. A rebinding attack sends the attacker's name as Host and an
// Origin equal to it; both are refused on every listener, while the
// listener's own address, loopback names and listed names are served.
// Before the fix the non-loopback rows with the attacker's name were
// served.
func TestCheckOriginRebinding(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Hosts: []string{"mcp.example.com", "*.tenants.example", "[2001:db8::7]"}}
	runCheckOrigin(t, allow, []checkOriginCase{
		{"rebinding host and origin on a LAN listener", "10.0.0.5", "evil.example:8000", "http://evil.example:8000", http.StatusForbidden, `Host "evil.example:8000"`},
		{"rebinding host on a LAN listener", "10.0.0.5", "evil.example:8000", "", http.StatusForbidden, "AllowList.Hosts"},
		{"rebinding host on a public IPv6 listener", "2001:db8::5", "evil.example", "", http.StatusForbidden, "AllowList.Hosts"},
		{"rebinding host on a wildcard-bound IPv4-mapped listener", "::ffff:10.0.0.5", "evil.example", "", http.StatusForbidden, "AllowList.Hosts"},
		{"rebinding host on a Unix socket", "unix", "evil.example", "", http.StatusForbidden, "AllowList.Hosts"},
		{"no Host on a LAN listener (HTTP/1.0)", "10.0.0.5", "", "", http.StatusForbidden, `Host ""`},
		{"listener's address", "10.0.0.5", "10.0.0.5:8000", "", http.StatusOK, ""},
		{"listener's address, another port (port forwarding)", "10.0.0.5", "10.0.0.5:18000", "", http.StatusOK, ""},
		{"listener's address as origin", "10.0.0.5", "10.0.0.5:8000", "http://10.0.0.5:8000", http.StatusOK, ""},
		{"listener's IPv4 address on a dual-stack socket", "::ffff:10.0.0.5", "10.0.0.5:8000", "", http.StatusOK, ""},
		{"listener's IPv6 address", "2001:db8::5", "[2001:db8::5]:8000", "", http.StatusOK, ""},
		{"listener's IPv6 address, another spelling", "2001:db8::5", "[2001:DB8:0::5]:8000", "", http.StatusOK, ""},
		{"listener's link-local address with its zone", "fe80::1", "[fe80::1%25eth0]:8000", "", http.StatusOK, ""},
		{"another machine's address", "10.0.0.5", "10.0.0.6:8000", "", http.StatusForbidden, "AllowList.Hosts"},
		{"listed IPv6 address", "10.0.0.5", "[2001:db8::7]:8000", "", http.StatusOK, ""},
		{"unspecified address (0.0.0.0 in a browser)", "127.0.0.1", "0.0.0.0:8000", "", http.StatusForbidden, "AllowList.Hosts"},
		{"loopback name on a LAN listener (a port published by a container)", "172.17.0.2", "localhost:8000", "", http.StatusOK, ""},
		{"loopback name with a trailing dot", "10.0.0.5", "localhost.:8000", "", http.StatusOK, ""},
		{"listed name", "10.0.0.5", "mcp.example.com", "https://mcp.example.com", http.StatusOK, ""},
		{"listed name in capitals with a trailing dot", "10.0.0.5", "MCP.EXAMPLE.COM.:443", "", http.StatusOK, ""},
		{"listed name as a prefix", "10.0.0.5", "mcp.example.com.evil.example", "", http.StatusForbidden, "AllowList.Hosts"},
		{"listed name with a foreign origin", "10.0.0.5", "mcp.example.com", "http://evil.example", http.StatusForbidden, "AllowList.Origins"},
		{"foreign host with a listed origin host", "10.0.0.5", "evil.example", "https://mcp.example.com", http.StatusForbidden, "AllowList.Hosts"},
		{"wildcard subdomain", "10.0.0.5", "acme.tenants.example", "https://acme.tenants.example", http.StatusOK, ""},
		{"wildcard does not name its apex", "10.0.0.5", "tenants.example", "", http.StatusForbidden, "AllowList.Hosts"},
		{"wildcard suffix without its dot", "10.0.0.5", "eviltenants.example", "", http.StatusForbidden, "AllowList.Hosts"},
		{"loopback origin on a LAN listener", "10.0.0.5", "10.0.0.5:8000", "http://localhost:6274", http.StatusOK, ""},
	})
}

// TestCheckOriginAnyHost: "*" in Hosts accepts any Host, but never any
// Origin: an origin still has to be listed or name an accepted host.
func TestCheckOriginAnyHost(t *testing.T) {
	t.Parallel()
	runCheckOrigin(t, &middleware.AllowList{Hosts: []string{"*"}}, []checkOriginCase{
		{"any host", "10.0.0.5", "whatever.example", "", http.StatusOK, ""},
		{"an origin equal to the host", "10.0.0.5", "whatever.example", "https://whatever.example", http.StatusForbidden, "AllowList.Origins"},
		{"the listener's origin", "10.0.0.5", "whatever.example", "http://10.0.0.5:8000", http.StatusOK, ""},
	})
}

// TestCheckOriginCopiesTheList: the list is read when the middleware is
// built, so a later change cannot open it.
func TestCheckOriginCopiesTheList(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}, Hosts: []string{"mcp.example.com"}}
	h := middleware.CheckOrigin(allow)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	allow.Origins[0] = "*"
	allow.Hosts[0] = "*"
	for _, tt := range []struct{ host, origin, wantMsg string }{
		{"10.0.0.5:8000", "https://evil.example", `Origin "https://evil.example"`},
		{"evil.example", "", `Host "evil.example"`},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, onListener(r, "10.0.0.5"))
		assert.Equal(t, http.StatusForbidden, rec.Code)
		_, msg := rpcError(t, rec.Body.Bytes())
		assert.Contains(t, msg, tt.wantMsg)
	}
}

// TestOneAllowListForCORSAndCheckOrigin: the origin listed once is let
// through by both the DNS-rebinding check and CORS; another is refused by
// both.
func TestOneAllowListForCORSAndCheckOrigin(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}, Hosts: []string{"mcp.example.com"}}
	h := alice.New(middleware.CORS(&middleware.CORSOptions{Allow: allow}), middleware.CheckOrigin(allow)).
		ThenFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	tests := []struct {
		origin    string
		status    int
		allowHead string
	}{
		{"https://app.example", http.StatusOK, "https://app.example"},
		{"https://evil.example", http.StatusForbidden, ""},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Host = "mcp.example.com"
			r.Header.Set("Origin", tt.origin)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, onListener(r, "10.0.0.5"))
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.allowHead, rec.Header().Get("Access-Control-Allow-Origin"))
		})
	}
}
