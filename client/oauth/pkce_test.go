package oauth

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPKCENotAdvertised: an authorization server
// whose metadata (RFC 8414 or OpenID Connect discovery) does not list
// code_challenge_methods_supported, or lists it without S256, is refused
// before the client registers or sends the user anywhere, as the MCP
// specification's "Authorization Code Protection" requires.
func TestPKCENotAdvertised(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    fake
		want string
	}{
		{"absent", fake{noPKCE: true}, "does not list code_challenge_methods_supported"},
		{"absent from OpenID Connect discovery", fake{noPKCE: true, asMetaPath: "/.well-known/openid-configuration"},
			"does not list code_challenge_methods_supported"},
		{"empty", fake{pkce: []string{}}, "does not support PKCE with S256"},
		{"plain only", fake{pkce: []string{"plain"}}, "does not support PKCE with S256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fc := tc.f
			fc.prmPath = "/.well-known/oauth-protected-resource/mcp"
			if fc.asMetaPath == "" {
				fc.asMetaPath = "/.well-known/oauth-authorization-server"
			}
			f := newFake(t, &fc)
			_, _, err := call(t, f, newHandler(f, Config{}), "/mcp")
			var ae *AuthError
			require.ErrorAs(t, err, &ae, "%v", err)
			assert.Equal(t, "authorization", ae.Step)
			assert.Contains(t, ae.Error(), tc.want)
			assert.Empty(t, f.regs, "no registration at a server that will not be used")
			assert.Empty(t, f.authReqs, "the user is sent nowhere")
			assert.Empty(t, f.tokenReqs)
		})
	}
}

// TestAssumeS256: Config.AssumeS256 goes on with a server that does not
// list the methods (Microsoft Entra ID, Amazon Cognito), with S256; a
// list without S256 is refused all the same.
func TestAssumeS256(t *testing.T) {
	t.Parallel()
	base := fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/openid-configuration"}

	fc := base
	fc.noPKCE = true
	f := newFake(t, &fc)
	resp, body, err := call(t, f, newHandler(f, Config{AssumeS256: true}), "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, body)
	assert.Equal(t, "S256", f.authReqs[0].Get("code_challenge_method"))

	fc = base
	fc.pkce = []string{"plain"}
	f = newFake(t, &fc)
	_, _, err = call(t, f, newHandler(f, Config{AssumeS256: true}), "/mcp")
	require.ErrorContains(t, err, "does not support PKCE with S256")
}

// attacker is a plain-http server that records every request: what a
// network attacker would answer once the client leaves https.
type attacker struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newAttacker(t *testing.T) *attacker {
	a := &attacker{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits = append(a.hits, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *attacker) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.hits...)
}

// TestNoHTTPFromHTTPS: metadata fetched over
// https that names an http URL (the protected resource's metadata, its
// authorization server, an endpoint) would send the discovery, the code
// and its verifier, or the user, in the clear: refused, and the http URL
// is never asked. A challenge's http metadata URL is skipped for the
// server's own well-known URLs.
func TestNoHTTPFromHTTPS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		mod  func(f *fake, evil string)
		step string // "": the authorization succeeds
	}{
		{"challenge names http metadata", func(f *fake, evil string) { f.headerPRM = evil + "/prm" }, ""},
		{"http authorization server", func(f *fake, evil string) { f.prmAS = evil }, "protected-resource metadata"},
		{"http token endpoint", func(f *fake, evil string) {
			f.metaOverride = map[string]any{"token_endpoint": evil + "/token"}
		}, "authorization-server metadata"},
		{"http authorization endpoint", func(f *fake, evil string) {
			f.metaOverride = map[string]any{"authorization_endpoint": evil + "/authorize"}
		}, "authorization-server metadata"},
		{"http registration endpoint", func(f *fake, evil string) {
			f.metaOverride = map[string]any{"registration_endpoint": evil + "/register"}
		}, "authorization-server metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			evil := newAttacker(t)
			fc := fake{tls: true, prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"}
			f := newFake(t, &fc)
			tc.mod(f, evil.URL)
			h := newHandler(f, Config{HTTPClient: f.rs.Client(), Authorize: approveWith(f.as.Client())})
			resp, body, err := call(t, f, h, "/mcp")
			assert.Empty(t, evil.requests(), "nothing went to the http URL")
			if tc.step == "" {
				require.NoError(t, err)
				require.Equal(t, 200, resp.StatusCode, body)
				return
			}
			var ae *AuthError
			require.ErrorAs(t, err, &ae, "%v", err)
			assert.Equal(t, tc.step, ae.Step)
			assert.Contains(t, ae.Error(), "is not https")
			assert.Empty(t, f.tokenReqs)
		})
	}
}

// TestNoRedirectToHTTP: a metadata document whose https URL redirects to
// http is not followed there.
func TestNoRedirectToHTTP(t *testing.T) {
	t.Parallel()
	evil := newAttacker(t)
	rs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, evil.URL+r.URL.Path, http.StatusFound)
	}))
	defer rs.Close()
	f := &fake{rs: rs, tls: true}
	_, _, err := call(t, f, newHandler(f, Config{HTTPClient: rs.Client()}), "/mcp")
	require.ErrorContains(t, err, "from https to http: not followed")
	assert.Empty(t, evil.requests())
}

// TestKeepsScheme: the rule itself, for hosts the tests above cannot
// reach.
func TestKeepsScheme(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		u, from string
		ok      bool
	}{
		{"https://as.example/token", "https://as.example/.well-known/x", true},
		{"https://as.example/token", "http://10.0.0.5/.well-known/x", true},
		{"http://127.0.0.1:9/token", "http://127.0.0.1:8/.well-known/x", true},
		{"http://localhost:9/token", "http://localhost:8/x", true},
		{"http://[::1]:9/token", "http://[::1]:8/x", true},
		{"http://127.0.0.1:9/token", "https://127.0.0.1:8/x", false},
		{"http://as.example/token", "https://as.example/x", false},
		{"http://10.0.0.5/token", "http://10.0.0.5/x", false},
		{"http://127.0.0.1/token", "http://localhost.evil.example/x", false},
	} {
		err := keepsScheme(tc.u, tc.from)
		assert.Equal(t, tc.ok, err == nil, "%s from %s: %v", tc.u, tc.from, err)
	}
}
