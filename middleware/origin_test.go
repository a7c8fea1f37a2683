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

// onListener makes r look as if it arrived on a listener at ip.
func onListener(r *http.Request, ip string) *http.Request {
	if ip == "" {
		return r
	}
	addr := &net.TCPAddr{IP: net.ParseIP(ip), Port: 8000}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
}

func TestCheckOrigin(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}, Hosts: []string{"mcp.internal", "dev.local:8000"}}
	tests := []struct {
		name     string
		listener string // "" : no network connection (stdio, embedded)
		host     string
		origin   string
		want     int
		wantMsg  string
	}{
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
		{"any host off loopback", "10.0.0.5", "mcp.example.com", "", http.StatusOK, ""},
		{"no listener: no Host check", "", "evil.example", "", http.StatusOK, ""},
		{"loopback origin", "127.0.0.1", "localhost:8000", "http://localhost:3000", http.StatusOK, ""},
		{"listed origin", "127.0.0.1", "localhost:8000", "https://app.example", http.StatusOK, ""},
		{"foreign origin", "127.0.0.1", "localhost:8000", "https://evil.example", http.StatusForbidden, `Origin "https://evil.example"`},
		{"same origin off loopback", "10.0.0.5", "mcp.example.com", "https://mcp.example.com", http.StatusOK, ""},
		{"foreign origin off loopback", "10.0.0.5", "mcp.example.com", "https://evil.example", http.StatusForbidden, "AllowList.Origins"},
		{"malformed origin", "10.0.0.5", "mcp.example.com", "::::", http.StatusForbidden, "Origin"},
	}
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
			assert.Equal(t, tt.want, rec.Code)
			if tt.wantMsg != "" {
				code, msg := rpcError(t, rec.Body.Bytes())
				assert.Equal(t, -32000, code)
				assert.Contains(t, msg, tt.wantMsg)
				assert.Contains(t, msg, "DNS rebinding")
			}
		})
	}
}

// TestCheckOriginCopiesTheList: the list is read when the middleware is
// built, so a later change cannot open it.
func TestCheckOriginCopiesTheList(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}}
	h := middleware.CheckOrigin(allow)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	allow.Origins[0] = "*"
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Origin", "https://evil.example")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, onListener(r, "10.0.0.5"))
	assert.Equal(t, http.StatusForbidden, rec.Code)
}

// TestOneAllowListForCORSAndCheckOrigin: the origin listed once is let
// through by both the DNS-rebinding check and CORS; another is refused by
// both.
func TestOneAllowListForCORSAndCheckOrigin(t *testing.T) {
	t.Parallel()
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}}
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
