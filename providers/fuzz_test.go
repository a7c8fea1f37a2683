package providers

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	neturl "net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzProxy is a generic provider whose upstream is never reached: the
// fuzz targets feed it what a client sends before any upstream call.
func fuzzProxy(f *testing.F) (*OAuthProvider, http.Handler) {
	store := NewMemoryStorage(&MemoryStorageOptions{MaxClients: 1 << 20, MaxEntries: 1 << 20})
	f.Cleanup(func() { _ = store.Close() })
	p, err := NewOAuthProvider(OAuthProviderConfig{
		Config: Config{BaseURL: "http://127.0.0.1:8000", ClientID: "up-client", ClientSecret: "up-secret",
			JWTSigningKey: strings.Repeat("k", 32), EncryptionKey: strings.Repeat("e", 32),
			Logger: slog.New(slog.DiscardHandler),
			// Every input is checked, not answered 429 after a burst, and a
			// long run's valid registrations do not reach the quota (503).
			RegisterRateLimit: RateLimit{PerMinute: -1}, AuthorizeRateLimit: RateLimit{PerMinute: -1},
			TokenStorage: store},
		AuthorizationEndpoint: "http://127.0.0.1:1/authorize", TokenEndpoint: "http://127.0.0.1:1/token",
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = p.Close() })
	mux := http.NewServeMux()
	p.Mount(mux)
	return p, mux
}

// checkOAuthAnswer fails unless an answer to outside input is a 2xx or a
// 4xx (never a 5xx or a panic) with a short body.
func checkOAuthAnswer(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("status %d for client input: %s", rec.Code, rec.Body.String())
	}
	if rec.Body.Len() > 8<<10 {
		t.Fatalf("an answer of %d bytes reflects too much input", rec.Body.Len())
	}
}

// FuzzRegister feeds dynamic client registration (RFC 7591) bodies.
func FuzzRegister(f *testing.F) {
	for _, s := range []string{
		`{"redirect_uris":["http://127.0.0.1:9999/cb"],"client_name":"a"}`,
		`{"redirect_uris":["http://localhost:@evil.example/cb"]}`,
		`{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic","grant_types":["authorization_code","refresh_token"]}`,
		`{"redirect_uris":"x"}`, `{"redirect_uris":[]}`, `[]`, `{`, `null`,
		`{"redirect_uris":["javascript:alert(1)"],"client_name":"<script>"}`,
		`{"redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"private_key_jwt"}`,
	} {
		f.Add(s)
	}
	_, h := fuzzProxy(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, RegisterPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		checkOAuthAnswer(t, rec)
	})
}

// FuzzToken feeds token-endpoint forms with client credentials in Basic
// auth or the form.
func FuzzToken(f *testing.F) {
	for _, s := range []struct{ form, basic string }{
		{"grant_type=authorization_code&code=abc&code_verifier=" + strings.Repeat("v", 43), ""},
		{"grant_type=refresh_token&refresh_token=xyz&client_id=c", ""},
		{"grant_type=client_credentials", "Y2xpZW50OnNlY3JldA=="},
		{"grant_type=%zz", "!!!"},
		{"client_id=a&client_id=b&grant_type=refresh_token", ""},
		{"", ""},
	} {
		f.Add(s.form, s.basic)
	}
	_, h := fuzzProxy(f)
	f.Fuzz(func(t *testing.T, form, basic string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, TokenPath, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basic != "" {
			req.Header.Set("Authorization", "Basic "+basic)
		}
		h.ServeHTTP(rec, req)
		checkOAuthAnswer(t, rec)
	})
}

// FuzzAuthenticate feeds bearer tokens to the resource-server check: any
// token that was not minted by the proxy is refused, without a panic.
func FuzzAuthenticate(f *testing.F) {
	for _, s := range []string{
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.x",
		"eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.",
		"a.b.c", "...", "", "Bearer", strings.Repeat("A", 4096),
	} {
		f.Add(s)
	}
	p, _ := fuzzProxy(f)
	f.Fuzz(func(t *testing.T, token string) {
		if !utf8.ValidString(token) || strings.ContainsAny(token, "\r\n") {
			return // not a header value a client can send
		}
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		s, err := p.VerifyRequest(req)
		if err == nil {
			t.Fatalf("a token the proxy never minted was accepted: %q → %#v", token, s)
		}
	})
}

// FuzzForwardedClientAddress feeds the peer address and the forwarded
// header a reverse proxy passes on: the key is never empty, and a header
// from a peer that is not loopback is never read.
func FuzzForwardedClientAddress(f *testing.F) {
	for _, s := range []struct{ remote, xff string }{
		{"127.0.0.1:1", "203.0.113.9"}, {"127.0.0.1:1", "a, b, 2001:db8::1"}, {"[::1]:1", ""},
		{"192.0.2.1:1", "203.0.113.9"}, {"garbage", ",,,"}, {"", "[::1]"},
	} {
		f.Add(s.remote, s.xff)
	}
	key := ForwardedClientAddress("X-Forwarded-For")
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		r.Header.Set("X-Forwarded-For", xff)
		got := key(r)
		if got == "" {
			t.Fatalf("empty key for %q %q", remote, xff)
		}
		if want := ClientAddress(r); !strings.HasPrefix(remote, "127.") && !strings.HasPrefix(remote, "[::1]") && got != want {
			if host, _, err := net.SplitHostPort(remote); err != nil || !isLoopbackIP(host) {
				t.Fatalf("a header from %q was read: %q, want %q", remote, got, want)
			}
		}
	})
}

func isLoopbackIP(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && ip.IsLoopback()
}

// FuzzClientDocument feeds client ID metadata documents (and the URLs
// they claim) to the document decoder: it never panics, and a document
// it accepts is a public client named by exactly that URL, with redirect
// URIs this proxy allows.
func FuzzClientDocument(f *testing.F) {
	const id = "https://client.example/oauth/client.json"
	for _, s := range []string{
		`{"client_id":"` + id + `","client_name":"A","redirect_uris":["http://127.0.0.1:9999/cb"]}`,
		`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1:9999/cb"],"token_endpoint_auth_method":"private_key_jwt"}`,
		`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1:9999/cb"],"client_secret":"x"}`,
		`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1:9999/cb"],"Client_ID":"https://evil.example/c"}`,
		`{"client_id":"https://evil.example/c","redirect_uris":["http://127.0.0.1:9999/cb"]}`,
		`{"client_id":"` + id + `","redirect_uris":["javascript:alert(1)"]}`, `[]`, `null`, `{`, `{"client_id":1}`,
	} {
		f.Add(s, id)
	}
	f.Add(`{"client_id":"http://x/c","redirect_uris":["http://127.0.0.1/cb"]}`, "http://x/c")
	f.Add(`public, max-age=99999999999999999999`, id)
	f.Add(`max-age="60", no-store`, id)
	p, _ := fuzzProxy(f)
	f.Add(`{}`, "https://%D0%B0pple.com/client.json")
	f.Fuzz(func(t *testing.T, body, url string) {
		if checkClientIDURL(url) == nil {
			// The consent page shows its host: printable ASCII only.
			for i := 0; i < len(url); i++ {
				if url[i] <= ' ' || url[i] >= 0x7f {
					t.Fatalf("client_id URL %q accepted with byte %d", url, i)
				}
			}
			u, err := neturl.Parse(url)
			if err != nil {
				t.Fatalf("client_id URL %q accepted: %v", url, err)
			}
			for _, c := range []byte(u.Hostname()) {
				if c <= ' ' || c >= 0x7f || c == '%' {
					t.Fatalf("client_id URL %q accepted: host %q", url, u.Hostname())
				}
			}
		}
		// The body doubles as a Cache-Control header: its TTL stays within the bounds.
		if ttl := p.cimd.ttl([]string{body}); ttl < p.cimd.cfg.MinCacheTTL || ttl > p.cimd.cfg.MaxCacheTTL {
			t.Fatalf("Cache-Control %q: ttl %v", body, ttl)
		}
		c, err := p.decodeClientDocument(url, []byte(body))
		if err != nil {
			return
		}
		if c.ID != url || c.AuthMethod != "none" || c.SecretHash != "" || len(c.RedirectURIs) == 0 || len(c.Name) > 200 {
			t.Fatalf("accepted %+v from %q", c, body)
		}
		for _, u := range c.RedirectURIs {
			if checkRedirectURI(u, p.patterns) != nil {
				t.Fatalf("accepted redirect URI %q", u)
			}
		}
	})
}

// FuzzWidePrefix feeds client address keys (what ClientAddress or a
// Config.ClientAddress returns) to the /48 the rate limits also count:
// it is "" or an IPv6 /48 that holds the key's address.
func FuzzWidePrefix(f *testing.F) {
	for _, s := range []string{"2001:db8:1:2::/64", "2001:db8::1", "fe80::1%eth0", "::ffff:192.0.2.1", "192.0.2.1",
		"2001:db8::/32", "unknown", "", "::/0", "2001:db8::/129", "[::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		w := widePrefix(key)
		if w == "" {
			return
		}
		pfx, err := netip.ParsePrefix(w)
		if err != nil || pfx.Bits() != 48 || !pfx.Addr().Is6() || pfx.Addr().Is4In6() {
			t.Fatalf("%q: wide prefix %q", key, w)
		}
		a, err := netip.ParseAddr(key)
		if err != nil {
			k, err := netip.ParsePrefix(key)
			if err != nil {
				t.Fatalf("%q is neither an address nor a prefix but has wide prefix %q", key, w)
			}
			a = k.Addr()
		}
		if !pfx.Contains(a.WithZone("")) {
			t.Fatalf("%q is not in its wide prefix %q", key, w)
		}
	})
}
