package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const redirect = "http://127.0.0.1:9/callback"

// call POSTs body to path of the fake's resource server through h.
func call(t *testing.T, f *fake, h *Handler, path string) (*http.Response, string, error) {
	t.Helper()
	tr := &http.Transport{}
	if f.tls {
		tr = f.rs.Client().Transport.(*http.Transport).Clone()
	}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: h.Wrap(f.endpoint(), tr)}
	req, err := http.NewRequest(http.MethodPost, f.rs.URL+path, strings.NewReader(`{"jsonrpc":"2.0"}`))
	require.NoError(t, err)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func newHandler(f *fake, cfg Config) *Handler {
	if cfg.RedirectURL == "" {
		cfg.RedirectURL = redirect
	}
	if cfg.Authorize == nil {
		cfg.Authorize = approveWith(&http.Client{})
	}
	return New(cfg)
}

// TestDiscoveryOrder: where the handler looks for the metadata, in order,
// for each place a server may publish it.
func TestDiscoveryOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    fake
		want []string // paths asked, host stripped
	}{
		{"challenge names the metadata", fake{prmPath: "/custom/prm.json", prmInHeader: true, asMetaPath: "/.well-known/oauth-authorization-server"},
			[]string{"/custom/prm.json", "/.well-known/oauth-authorization-server"}},
		{"path-aware well-known", fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}},
		{"root well-known after the path-aware one", fake{prmPath: "/.well-known/oauth-protected-resource", asMetaPath: "/.well-known/openid-configuration"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
				"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"issuer with a path: RFC 8414 first", fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asPrefix: "/tenant1",
			asMetaPath: "/.well-known/oauth-authorization-server/tenant1"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server/tenant1"}},
		{"issuer with a path: OIDC appended last", fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asPrefix: "/tenant1",
			asMetaPath: "/tenant1/.well-known/openid-configuration"},
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server/tenant1",
				"/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, &tc.f)
			resp, body, err := call(t, f, newHandler(f, Config{}), "/mcp")
			require.NoError(t, err)
			require.Equal(t, 200, resp.StatusCode, body)
			var got []string
			for _, p := range f.paths {
				_, path, _ := strings.Cut(p, "/")
				got = append(got, "/"+path)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestFallback20250326: a server without protected-resource metadata is
// its own authorization server, with its metadata or the default
// endpoints; no resource parameter then.
func TestFallback20250326(t *testing.T) {
	t.Parallel()
	// Both roles on one origin: the resource server's handler passes the
	// authorization server's paths on.
	f := &fake{mu: &sync.Mutex{}, tokens: map[string][]string{}, challenge: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { f.serveRS(w, r) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { f.serveAS(w, r) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f.rs, f.as = srv, srv
	resp, body, err := call(t, f, newHandler(f, Config{}), "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, body)
	require.Len(t, f.regs, 1, "registered at /register")
	require.Len(t, f.authReqs, 1)
	assert.False(t, f.authReqs[0].Has("resource"))
	assert.Equal(t, "authorization_code", f.tokenReqs[0].Get("grant_type"))
}

// TestRegistration: a configured client is used as it is, a client ID
// metadata document where the server supports them, dynamic registration
// otherwise (once per authorization server), and no registration at all
// is a clear error.
func TestRegistration(t *testing.T) {
	t.Parallel()
	base := fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"}
	for _, tc := range []struct {
		name     string
		mod      func(*fake)
		cfg      Config
		clientID string
		regs     int
		err      string
	}{
		{"dynamic", nil, Config{}, "dyn-client", 1, ""},
		{"metadata document", func(f *fake) { f.cimd = true }, Config{ClientMetadataURL: "https://app.example/client.json"}, "https://app.example/client.json", 0, ""},
		{"document not supported", nil, Config{ClientMetadataURL: "https://app.example/client.json"}, "dyn-client", 1, ""},
		{"document URL not https", func(f *fake) { f.cimd = true }, Config{ClientMetadataURL: "http://app.example/client.json"}, "dyn-client", 1, ""},
		{"document URL without a path", func(f *fake) { f.cimd = true }, Config{ClientMetadataURL: "https://app.example/"}, "dyn-client", 1, ""},
		{"pre-registered", func(f *fake) { f.noRegister = true }, Config{ClientID: "pre", ClientSecret: "s"}, "pre", 0, ""},
		{"none possible", func(f *fake) { f.noRegister = true }, Config{}, "", 0, "no registration endpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fc := base
			if tc.mod != nil {
				tc.mod(&fc)
			}
			f := newFake(t, &fc)
			resp, body, err := call(t, f, newHandler(f, tc.cfg), "/mcp")
			if tc.err != "" {
				var ae *AuthError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, "registration", ae.Step)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 200, resp.StatusCode, body)
			assert.Len(t, f.regs, tc.regs)
			assert.Equal(t, tc.clientID, f.authReqs[0].Get("client_id"))
			assert.Equal(t, tc.clientID, f.tokenReqs[0].Get("client_id"))
			if tc.regs > 0 {
				assert.Equal(t, "native", f.regs[0]["application_type"])
				assert.Equal(t, []any{redirect}, f.regs[0]["redirect_uris"])
			}
		})
	}
}

// TestAuthorizationRequest: PKCE S256 (the verifier matches, the fake
// checks), the resource parameter on both requests, the scope from the
// challenge or else from the metadata, state and iss checked.
func TestAuthorizationRequest(t *testing.T) {
	t.Parallel()
	base := fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"}
	for _, tc := range []struct {
		name  string
		mod   func(*fake)
		scope string
		err   string
	}{
		{"scope from the challenge", func(f *fake) { f.headerScope = "a b"; f.prmScopes = []string{"c"} }, "a b", ""},
		{"scope from scopes_supported", func(f *fake) { f.prmScopes = []string{"c", "d"} }, "c d", ""},
		{"no scope", nil, "", ""},
		{"iss checked", func(f *fake) { f.issSupported = true }, "", ""},
		{"iss wrong", func(f *fake) { f.issRedirect = "wrong" }, "", "iss"},
		{"iss promised, missing", func(f *fake) { f.issSupported = true; f.issRedirect = "omit" }, "", "no iss"},
		{"no S256", func(f *fake) { f.pkce = []string{"plain"} }, "", "PKCE"},
		{"metadata issuer is another", func(f *fake) { f.issuer = "https://evil.example" }, "", "issuer"},
		{"resource is another server", func(f *fake) { f.prmResource = "https://evil.example/mcp" }, "", "does not match"},
		{"resource is a sibling path", func(f *fake) { f.prmResource = f.rs.URL + "/other" }, "", "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fc := base
			f := newFake(t, &fc)
			if tc.mod != nil {
				tc.mod(f)
			}
			resp, body, err := call(t, f, newHandler(f, Config{}), "/mcp")
			if tc.err != "" {
				var ae *AuthError
				require.ErrorAs(t, err, &ae, "%v", err)
				assert.Contains(t, ae.Error(), tc.err)
				assert.Empty(t, f.tokenReqs, "no token is asked for")
				return
			}
			require.NoError(t, err)
			require.Equal(t, 200, resp.StatusCode, body)
			q := f.authReqs[0]
			assert.Equal(t, "S256", q.Get("code_challenge_method"))
			assert.NotEmpty(t, q.Get("state"))
			assert.Equal(t, tc.scope, q.Get("scope"))
			assert.Equal(t, f.endpoint(), q.Get("resource"))
			assert.Equal(t, f.endpoint(), f.tokenReqs[0].Get("resource"))
			assert.Equal(t, redirect, f.tokenReqs[0].Get("redirect_uri"))
		})
	}
}

// TestStepUp: a 403 insufficient_scope gets a new authorization with the
// union of the scopes and the request is sent again, once; a server that
// keeps refusing gets its 403 back.
func TestStepUp(t *testing.T) {
	t.Parallel()
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server",
		headerScope: "read", callScopes: []string{"write"}})
	h := newHandler(f, Config{})
	resp, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	resp, _, err = call(t, f, h, "/mcp/call")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Len(t, f.authReqs, 2)
	assert.Equal(t, "read", f.authReqs[0].Get("scope"))
	assert.Equal(t, "write read", f.authReqs[1].Get("scope"))

	// A scope the server never grants: one more authorization, then 403.
	f.callScopes = []string{"admin"}
	resp, _, err = call(t, f, h, "/mcp/call")
	require.NoError(t, err)
	assert.Equal(t, 403, resp.StatusCode)
	require.Len(t, f.authReqs, 3)
	assert.Equal(t, "admin write read", f.authReqs[2].Get("scope"), "the challenged scope, then those held")
}

// TestRefresh: an expired token is refreshed before the request (with
// the resource parameter); a 401 to a token refreshes it first; a
// refresh that fails falls back to a new authorization.
func TestRefresh(t *testing.T) {
	t.Parallel()
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server", expiresIn: 1})
	h := newHandler(f, Config{})
	_, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Len(t, f.authReqs, 1)
	// expires_in 1: within expiryDelta, so the next request refreshes.
	resp, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Len(t, f.authReqs, 1, "no new authorization")
	last := f.tokenReqs[len(f.tokenReqs)-1]
	assert.Equal(t, "refresh_token", last.Get("grant_type"))
	assert.Equal(t, f.endpoint(), last.Get("resource"))

	// The server forgets the token: 401, refresh, request again.
	f.expiresIn = 0
	f.revoke()
	n := len(f.tokenReqs)
	resp, _, err = call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "refresh_token", f.tokenReqs[n].Get("grant_type"))
	assert.Len(t, f.authReqs, 1)

	// The refresh token is refused too: a new authorization.
	f.refreshFails = true
	f.revoke()
	resp, _, err = call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	assert.Len(t, f.authReqs, 2)
}

// TestNoTokenToAnotherOrigin: a request to another origin than the
// server's (a redirect, another URL) goes without the token.
func TestNoTokenToAnotherOrigin(t *testing.T) {
	t.Parallel()
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"})
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	defer other.Close()
	h := newHandler(f, Config{})
	_, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: h.Wrap(f.endpoint(), tr)}
	resp, err := hc.Get(other.URL + "/x")
	require.NoError(t, err)
	resp.Body.Close()
	// A redirect from the server to the other origin.
	redir := httptest.NewServer(http.RedirectHandler(other.URL+"/y", http.StatusFound))
	defer redir.Close()
	resp, err = (&http.Client{Transport: h.Wrap(redir.URL+"/mcp", tr)}).Get(redir.URL + "/mcp")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, []string{"", ""}, got)
	tok, err := h.Token(context.Background(), f.endpoint())
	require.NoError(t, err)
	require.NotNil(t, tok)
	assert.Contains(t, f.seen, "Bearer "+tok.AccessToken, "the server itself got it")
}

// TestClientCredentials: a machine client gets its token without a user.
func TestClientCredentials(t *testing.T) {
	t.Parallel()
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server", headerScope: "svc"})
	h := New(Config{ClientID: "machine", ClientSecret: "s3cret", ClientCredentials: true})
	resp, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Len(t, f.tokenReqs, 1)
	assert.Empty(t, f.authReqs)
	q := f.tokenReqs[0]
	assert.Equal(t, "client_credentials", q.Get("grant_type"))
	assert.Equal(t, "machine", q.Get("client_id"), "Basic authentication")
	assert.Equal(t, "svc", q.Get("scope"))
	assert.Equal(t, f.endpoint(), q.Get("resource"))
}

// TestNoBrowserStep: a server that needs the user, with no Authorize,
// fails with an AuthError naming the step.
func TestNoBrowserStep(t *testing.T) {
	t.Parallel()
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"})
	_, _, err := call(t, f, New(Config{}), "/mcp")
	var ae *AuthError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "authorization", ae.Step)
	assert.Equal(t, f.asBase(), ae.Server)
}

// TestLoopback: the listener takes one redirect per authorization,
// answers others 400, times out, and refuses an authorization URL
// without a state.
func TestLoopback(t *testing.T) {
	t.Parallel()
	l, err := ListenLoopback("")
	require.NoError(t, err)
	defer l.Close()
	assert.True(t, strings.HasPrefix(l.RedirectURL(), "http://127.0.0.1:"))
	assert.True(t, strings.HasSuffix(l.RedirectURL(), "/callback"))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	resp, err := hc.Get(l.RedirectURL() + "?code=x")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode, "no authorization under way")

	open := func(string) error {
		go func() {
			if r, err := hc.Get(l.RedirectURL() + "?code=c1&state=s1"); err == nil {
				r.Body.Close()
			}
		}()
		return nil
	}
	q, err := l.Authorize(open, 5*time.Second)(context.Background(), "https://as.example/authorize?state=s1")
	require.NoError(t, err)
	assert.Equal(t, "c1", q.Get("code"))
	assert.Equal(t, "s1", q.Get("state"))

	_, err = l.Authorize(func(string) error { return nil }, 50*time.Millisecond)(context.Background(), "https://as.example/authorize?state=s2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no redirect")
	failed := errors.New("no browser")
	_, err = l.Authorize(func(string) error { return failed }, time.Second)(context.Background(), "x?state=s3")
	assert.ErrorIs(t, err, failed)
	_, err = l.Authorize(func(string) error { return nil }, time.Second)(context.Background(), "https://as.example/authorize")
	assert.ErrorContains(t, err, "no state")
}

// TestPrivateKeyJWT: a client with a key authenticates with a signed JWT
// (RFC 7523): ES256 over r||s, iss and sub the client, aud the issuer.
func TestPrivateKeyJWT(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"})
	h := New(Config{ClientID: "machine", PrivateKey: key, KeyID: "k1", ClientCredentials: true})
	resp, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	q := f.tokenReqs[0]
	assert.Equal(t, clientAssertionType, q.Get("client_assertion_type"))
	parts := strings.Split(q.Get("client_assertion"), ".")
	require.Len(t, parts, 3)
	var header, claims map[string]any
	for i, v := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, v))
	}
	assert.Equal(t, "ES256", header["alg"])
	assert.Equal(t, "k1", header["kid"])
	assert.Equal(t, "machine", claims["iss"])
	assert.Equal(t, "machine", claims["sub"])
	assert.Equal(t, f.asBase(), claims["aud"])
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	require.Len(t, sig, 64)
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	assert.True(t, ecdsa.Verify(&key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])))
}

// TestAuthorizationServerMoved: when the server's metadata names another
// authorization server, the handler neither refreshes at the old one nor
// reuses its registration: it registers and authorizes at the new one.
func TestAuthorizationServerMoved(t *testing.T) {
	t.Parallel()
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"})
	h := newHandler(f, Config{})
	_, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	f2 := newFake(t, &fake{asMetaPath: "/.well-known/oauth-authorization-server"})
	f2.mu, f2.tokens = f.mu, f.tokens // the resource server takes the new server's tokens
	f.mu.Lock()
	f.movedTo = f2
	f.mu.Unlock()
	f.revoke()
	resp, _, err := call(t, f, h, "/mcp")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Len(t, f.tokenReqs, 1, "no refresh at the old server")
	assert.Len(t, f2.regs, 1, "registered at the new server")
	require.Len(t, f2.tokenReqs, 1)
	assert.Equal(t, "authorization_code", f2.tokenReqs[0].Get("grant_type"))
}

// TestParseChallenge: the Bearer challenge among others, quoted and bare
// values, escapes, a token68 before it.
func TestParseChallenge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		want challenge
		ok   bool
	}{
		{[]string{`Bearer resource_metadata="https://a.example/prm", scope="a b"`},
			challenge{metadataURL: "https://a.example/prm", Scope: "a b"}, true},
		{[]string{`Bearer error=insufficient_scope, scope=write`}, challenge{Error: "insufficient_scope", Scope: "write"}, true},
		{[]string{`Basic realm="x"`, `Bearer scope="q\"x"`}, challenge{Scope: `q"x`}, true},
		{[]string{`Basic realm="x", Bearer scope=s, DPoP algs="ES256"`}, challenge{Scope: "s"}, true},
		{[]string{`Negotiate abc==, Bearer error="invalid_token"`}, challenge{Error: "invalid_token"}, true},
		{[]string{`bearer SCOPE="a"`}, challenge{Scope: "a"}, true},
		// A DPoP challenge (RFC 9449 §7.1) is read as a Bearer one is.
		{[]string{`DPoP error="use_dpop_nonce", resource_metadata="https://a.example/prm"`},
			challenge{Error: "use_dpop_nonce", metadataURL: "https://a.example/prm"}, true},
		{[]string{`Basic realm="x"`}, challenge{}, false},
		{nil, challenge{}, false},
	} {
		got, ok := parseChallenge(tc.in)
		assert.Equal(t, tc.ok, ok, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

// TestParseTokenResponse: what token answers are taken, leniently where
// servers differ (token_type's case, expires_in as a string), and what
// is refused.
func TestParseTokenResponse(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		in     string
		expiry time.Time
		err    string
	}{
		{`{"access_token":"t","token_type":"bearer","expires_in":60}`, now.Add(time.Minute), ""},
		{`{"access_token":"t","expires_in":"60"}`, now.Add(time.Minute), ""},
		{`{"access_token":"t","expires_in":"soon"}`, time.Time{}, ""},
		{`{"access_token":"t","token_type":"DPoP"}`, time.Time{}, ""},
		{`{"access_token":"t","token_type":"MAC"}`, time.Time{}, "not Bearer or DPoP"},
		{`{"error":"invalid_grant","error_description":"expired"}`, time.Time{}, "invalid_grant: expired"},
		{`{"token_type":"Bearer"}`, time.Time{}, "no access_token"},
	} {
		tok, err := parseTokenResponse([]byte(tc.in), now)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, "t", tok.AccessToken)
		assert.Equal(t, tc.expiry, tok.Expiry, tc.in)
	}
}

// TestFileStore: the tokens survive the handler: a new handler on the
// same file uses the token without a new authorization, and the file is
// the user's alone.
func TestFileStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.json")
	f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"})
	_, _, err := call(t, f, newHandler(f, Config{Store: &FileStore{Path: path}}), "/mcp")
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	resp, _, err := call(t, f, newHandler(f, Config{Store: &FileStore{Path: path}}), "/mcp")
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Len(t, f.authReqs, 1, "the second handler reused the token")
	c, err := (&FileStore{Path: path}).Load(context.Background(), f.endpoint())
	require.NoError(t, err)
	assert.Equal(t, f.asBase(), c.Issuer)
	assert.Equal(t, "dyn-client", c.Client.ID)
	missing, err := (&FileStore{Path: path}).Load(context.Background(), "https://other.example/mcp")
	require.NoError(t, err)
	assert.Nil(t, missing)
}
