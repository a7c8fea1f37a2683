package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// lanIPs returns this machine's addresses other than loopback and
// link-local ones, at most one IPv4 and one IPv6: where a LAN client, or a
// browser fooled by DNS rebinding, reaches a server listening on 0.0.0.0.
// It is empty on a machine without such an address; the tests then run on
// loopback alone (and the middleware tests cover the listener-address
// logic with synthetic addresses).
func lanIPs(t *testing.T) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	var v4, v6 string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsMulticast() || n.IP.IsUnspecified() {
			continue
		}
		if n.IP.To4() != nil && v4 == "" {
			v4 = n.IP.String()
		} else if n.IP.To4() == nil && v6 == "" {
			v6 = n.IP.String()
		}
	}
	var ips []string
	for _, ip := range []string{v4, v6} {
		if ip != "" {
			ips = append(ips, ip)
		}
	}
	return ips
}

// serveOn serves h on ip at a free port and returns the listener's
// host:port.
func serveOn(t *testing.T, ip string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	require.NoError(t, err)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// rebindServer is a server with a custom route holding an action, an
// opted-out webhook, the legacy transport and one listed host, served by
// NewMux and, bare, in an app's own mux under /app/mcp.
func rebindServer(t *testing.T, o *mcphttp.Options) http.Handler {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "rebind", Version: "1.0.0", Logger: discardLogger()})
	srv.AddRoute("POST", "/admin/reset", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "reset done")
	}), nil)
	srv.AddRoute("POST", "/webhook", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hook taken")
	}), &mcp.RouteOptions{Public: true, DisableDNSRebindingProtection: true})
	h := mcphttp.New(srv, o)
	t.Cleanup(func() { _ = h.Close() })
	mux := mcphttp.NewMux(h, nil)
	app := http.NewServeMux()
	app.Handle("/app/mcp", h) // the handler alone, in the app's own mux
	app.Handle("/", mux)
	return app
}

const rebindInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// rebindDo sends one request to addr with the Host and Origin given
// ("{self}" in either stands for addr itself) and returns the status and
// body.
func rebindDo(t *testing.T, addr, method, path, host, origin string) (int, string) {
	t.Helper()
	host = strings.ReplaceAll(host, "{self}", addr)
	origin = strings.ReplaceAll(origin, "{self}", addr)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(rebindInit)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+addr+path, body)
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		return resp.StatusCode, "" // a stream that was opened: served
	}
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestRebindingRefusedOnEveryListenerAndRoute:
// a browser fooled by DNS rebinding sends the attacker's name as Host and
// an Origin equal to it. It is refused on every listener (loopback and
// this machine's LAN addresses) and every route: the MCP endpoint, the
// handler mounted bare in an app's mux, a custom route, the legacy SSE
// endpoint, a preflight. The same request with the listener's own address
// or a listed name as Host is served, and so is a route that opted out.
// Before the fix the LAN listener served the endpoint, and every listener
// served the custom route.
func TestRebindingRefusedOnEveryListenerAndRoute(t *testing.T) {
	t.Parallel()
	h := rebindServer(t, &mcphttp.Options{LegacySSE: true,
		Allow: &middleware.AllowList{Hosts: []string{"mcp.example.com"}}})
	evil := "rebind.evil.example"
	tests := []struct {
		name, method, path, host, origin string
		want                             int
	}{
		{"endpoint, rebinding host and origin", "POST", "/mcp", evil + ":{port}", "http://" + evil + ":{port}", 403},
		{"endpoint, rebinding host alone", "POST", "/mcp", evil + ":{port}", "", 403},
		{"bare handler, rebinding host and origin", "POST", "/app/mcp", evil + ":{port}", "http://" + evil + ":{port}", 403},
		{"custom route, rebinding host and origin", "POST", "/admin/reset", evil + ":{port}", "http://" + evil + ":{port}", 403},
		{"custom route, rebinding host alone", "POST", "/admin/reset", evil + ":{port}", "", 403},
		{"legacy SSE, rebinding host", "GET", "/sse", evil + ":{port}", "", 403},
		{"preflight, rebinding host", "OPTIONS", "/mcp", evil + ":{port}", "http://" + evil + ":{port}", 403},
		{"unknown path, rebinding host", "GET", "/nothing", evil + ":{port}", "", 403},
		{"endpoint, listener's address", "POST", "/mcp", "{self}", "", 200},
		{"endpoint, listener's address as origin", "POST", "/mcp", "{self}", "http://{self}", 200},
		{"bare handler, listener's address", "POST", "/app/mcp", "{self}", "", 200},
		{"custom route, listener's address", "POST", "/admin/reset", "{self}", "http://{self}", 200},
		{"legacy SSE, listener's address", "GET", "/sse", "{self}", "", 200},
		{"endpoint, listed name", "POST", "/mcp", "mcp.example.com", "https://mcp.example.com", 200},
		{"custom route, listed name", "POST", "/admin/reset", "MCP.Example.COM.", "", 200},
		{"endpoint, listed host but a foreign origin", "POST", "/mcp", "mcp.example.com", "http://" + evil, 403},
		{"opted-out route, rebinding host and origin", "POST", "/webhook", evil + ":{port}", "http://" + evil + ":{port}", 200},
		{"health, rebinding host", "GET", "/health", evil, "", 200},
	}
	for _, ip := range append(lanIPs(t), "127.0.0.1") {
		addr := serveOn(t, ip, h)
		_, port, err := net.SplitHostPort(addr)
		require.NoError(t, err)
		for _, tt := range tests {
			t.Run(ip+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				host := strings.ReplaceAll(tt.host, "{port}", port)
				origin := strings.ReplaceAll(tt.origin, "{port}", port)
				status, body := rebindDo(t, addr, tt.method, tt.path, host, origin)
				require.Equal(t, tt.want, status, body)
				if tt.want == http.StatusForbidden {
					assert.Contains(t, body, "DNS rebinding")
					assert.Contains(t, body, "Allow.Hosts", "the refusal names the setting")
				}
			})
		}
	}
}

// rawDo writes a raw HTTP request to addr and returns the status line's
// code.
func rawDo(t *testing.T, addr, request string) int {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	f := strings.Fields(line)
	require.GreaterOrEqual(t, len(f), 2, line)
	code, err := strconv.Atoi(f[1])
	require.NoError(t, err, line)
	return code
}

// TestRebindingRawRequests: what a client writes on the wire that a
// browser never would. An absolute request URI names the host the server
// judges (the Host line is ignored, RFC 9112 §3.2.2); HTTP/1.0 without a
// Host names no host and is refused; X-Forwarded-Host is not read.
func TestRebindingRawRequests(t *testing.T) {
	t.Parallel()
	h := rebindServer(t, nil)
	for _, ip := range append(lanIPs(t), "127.0.0.1") {
		addr := serveOn(t, ip, h)
		tests := []struct {
			name, request string
			want          int
		}{
			{"absolute URI with a rebinding host", "POST http://evil.example/admin/reset HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 403},
			{"absolute URI with the listener's address", "POST http://" + addr + "/admin/reset HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 200},
			{"HTTP/1.0 without Host", "POST /admin/reset HTTP/1.0\r\nContent-Length: 0\r\n\r\n", 403},
			{"HTTP/1.0 with the listener's address", "POST /admin/reset HTTP/1.0\r\nHost: " + addr + "\r\nContent-Length: 0\r\n\r\n", 200},
			{"X-Forwarded-Host is not read", "POST /admin/reset HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: " + addr + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 403},
		}
		for _, tt := range tests {
			t.Run(ip+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				assert.Equal(t, tt.want, rawDo(t, addr, tt.request))
			})
		}
	}
}

// TestRebindingLateRoutesAndOptOut: a route added after NewMux is checked
// too, unless it opted out; a handler with the check disabled serves any
// Host on every route.
func TestRebindingLateRoutesAndOptOut(t *testing.T) {
	t.Parallel()
	newSrv := func() *mcp.Server {
		return mcp.NewServer(mcp.Options{Name: "late", Version: "1.0.0", Logger: discardLogger()})
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	late := newSrv()
	lh := mcphttp.New(late, nil)
	t.Cleanup(func() { _ = lh.Close() })
	lateAddr := serveOn(t, "127.0.0.1", mcphttp.NewMux(lh, nil))
	late.AddRoute("POST", "/late/checked", ok, nil)
	late.AddRoute("POST", "/late/open", ok, &mcp.RouteOptions{DisableDNSRebindingProtection: true})

	off := newSrv()
	off.AddRoute("POST", "/admin/reset", ok, nil)
	oh := mcphttp.New(off, &mcphttp.Options{DisableDNSRebindingProtection: true})
	t.Cleanup(func() { _ = oh.Close() })
	offAddr := serveOn(t, "127.0.0.1", mcphttp.NewMux(oh, nil))

	tests := []struct {
		name, addr, path string
		want             int
	}{
		{"late route", lateAddr, "/late/checked", 403},
		{"late route that opted out", lateAddr, "/late/open", 200},
		{"protection disabled: endpoint", offAddr, "/mcp", 200},
		{"protection disabled: custom route", offAddr, "/admin/reset", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body := rebindDo(t, tt.addr, "POST", tt.path, "evil.example", "http://evil.example")
			require.Equal(t, tt.want, status, body)
		})
	}
	// A path that is not clean is checked before the routes' mux
	// redirects it (307), so a rebinding page cannot even learn the
	// routes from the redirects.
	t.Run("unclean path", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, http.StatusForbidden, rawDo(t, lateAddr,
			"POST /late/../late/checked HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		assert.Equal(t, http.StatusTemporaryRedirect, rawDo(t, lateAddr,
			"POST /late/../late/checked HTTP/1.1\r\nHost: "+lateAddr+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
			"with its own Host the request reaches the mux, which redirects")
	})
}

// TestRebindingKnowsTheResourceHost: the host of the server's own
// protected-resource URL (its OAuth metadata) is one of its names, so a
// server behind a proxy that passes the public Host needs no list.
func TestRebindingKnowsTheResourceHost(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "rs", Version: "1.0.0", Logger: discardLogger(),
		Authenticate: func(*http.Request) (any, error) { return "user", nil }})
	h := mcphttp.New(srv, &mcphttp.Options{OAuth: &discovery.Options{Enabled: true, ProtectedResource: &discovery.ProtectedResourceMetadata{
		Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://id.example.com"}}}})
	t.Cleanup(func() { _ = h.Close() })
	addr := serveOn(t, "127.0.0.1", mcphttp.NewMux(h, nil))
	for _, tt := range []struct {
		host, origin string
		want         int
	}{
		{"mcp.example.com", "https://mcp.example.com", 200},
		{"id.example.com", "", 403},
		{"evil.example", "", 403},
	} {
		status, body := rebindDo(t, addr, "POST", "/mcp", tt.host, tt.origin)
		assert.Equal(t, tt.want, status, "%s: %s", tt.host, body)
	}
}

// TestRebindingRefusalIsLoggedOnce: the first refusal of each kind is
// logged at warn with the setting to change; later ones are not (an
// attacker cannot fill the log).
func TestRebindingRefusalIsLoggedOnce(t *testing.T) {
	t.Parallel()
	var buf syncBuf
	srv := mcp.NewServer(mcp.Options{Name: "log", Version: "1.0.0", Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	addr := serveOn(t, "127.0.0.1", mcphttp.NewMux(h, nil))
	for range 3 {
		status, _ := rebindDo(t, addr, "POST", "/mcp", "evil.example", "")
		require.Equal(t, http.StatusForbidden, status)
		status, _ = rebindDo(t, addr, "POST", "/mcp", "{self}", "https://evil.example")
		require.Equal(t, http.StatusForbidden, status)
	}
	log := buf.String()
	assert.Equal(t, 1, strings.Count(log, "Host is not a name of this server"), log)
	assert.Equal(t, 1, strings.Count(log, "origin that is not allowed"), log)
	assert.Contains(t, log, "mcphttp.Options.Allow.Hosts or MCP_ALLOWED_HOSTS")
	assert.Contains(t, log, "host=evil.example")
}

// syncBuf is a bytes.Buffer safe for the handler's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStartAllowedHosts: Start adds the names of MCP_ALLOWED_HOSTS to
// Options.Allow.Hosts (without changing the caller's list), and serves
// them; another name is refused. Not parallel: it sets the environment.
func TestStartAllowedHosts(t *testing.T) {
	t.Setenv("MCP_ALLOWED_HOSTS", " env.example , *.tenants.example,,")
	ip := "127.0.0.1"
	if ips := lanIPs(t); len(ips) > 0 {
		ip = ips[0]
	}
	allow := &middleware.AllowList{Hosts: []string{"listed.example"}}
	srv := mcp.NewServer(mcp.Options{Name: "start", Version: "1.0.0", Logger: discardLogger()})
	inst, err := mcphttp.Start(t.Context(), srv, &mcphttp.StartOptions{TransportType: mcphttp.TransportHTTPStream,
		Host: ip, Port: -1, Handler: &mcphttp.Options{Allow: allow}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inst.Close() })
	require.Equal(t, []string{"listed.example"}, allow.Hosts, "the caller's list is not changed")
	for _, tt := range []struct {
		host string
		want int
	}{
		{"env.example", 200},
		{"acme.tenants.example:8443", 200},
		{"listed.example", 200},
		{"{self}", 200},
		{"evil.example", 403},
	} {
		status, body := rebindDo(t, inst.Addr(), "POST", "/mcp", tt.host, "")
		assert.Equal(t, tt.want, status, "%s: %s", tt.host, body)
	}
}

func TestStartHosts(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "MCP_ALLOWED_HOSTS" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name, listen, env string
		want              []string
	}{
		{"nothing", "", "", nil},
		{"an address to listen on is no name", "0.0.0.0", "", nil},
		{"an IPv6 address neither", "::", "", nil},
		{"a name to listen on", "mcp.lan", "", []string{"mcp.lan"}},
		{"the environment", "0.0.0.0", "a.example, b.example:8443 ,", []string{"a.example", "b.example:8443"}},
		{"both", "mcp.lan", "a.example", []string{"a.example", "mcp.lan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, mcphttp.StartHosts(tt.listen, env(tt.env)))
		})
	}
}

// TestRebindingWarnsOfIgnoredHosts: an entry that is no Host value (a URL,
// say) cannot match; the handler says so when it is built, instead of
// leaving the operator with 403s that name a setting already set.
func TestRebindingWarnsOfIgnoredHosts(t *testing.T) {
	t.Parallel()
	var buf syncBuf
	srv := mcp.NewServer(mcp.Options{Name: "warn", Version: "1.0.0", Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	h := mcphttp.New(srv, &mcphttp.Options{Allow: &middleware.AllowList{Hosts: []string{"https://mcp.example.com", "mcp.example.com"}}})
	t.Cleanup(func() { _ = h.Close() })
	log := buf.String()
	assert.Contains(t, log, "level=WARN")
	assert.Contains(t, log, "are ignored")
	assert.Contains(t, log, "entries=[https://mcp.example.com]")
}
