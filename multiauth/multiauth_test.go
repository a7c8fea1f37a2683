package multiauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/devidp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/multiauth"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
)

// TestMultiAuthAdmitsEachKind: one server admits the proxy's token, the
// identity provider's JWT, an API key and an opaque token by
// introspection, each as the caller its own verifier names, through
// package client over HTTP; only the opaque token reaches the
// introspection endpoint.
func TestMultiAuthAdmitsEachKind(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	proxyTok := s.login(t)
	for _, tc := range []struct {
		name    string
		authz   string
		subject string
		intro   int64
	}{
		{"proxy token", "Bearer " + proxyTok, "generic:" + devidp.DefaultUser().Subject, 0},
		{"identity provider JWT", "Bearer " + s.idp.jwt(t, s.resource(), nil), s.idp.issuer() + "|alice", 0},
		{"API key", "Bearer " + s.apiKey, "apikey:billing", 0},
		{"opaque token by introspection", "Bearer " + s.idp.opaque(s.resource(), "carol"), s.idp.issuer() + "|carol", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.idp.introspections.Load()
			got, err := s.call(t, tc.authz, "whoami")
			require.NoError(t, err)
			assert.Equal(t, tc.subject, got)
			assert.Equal(t, tc.intro, s.idp.introspections.Load()-before, "introspection calls")
		})
	}
}

// TestMultiAuthRefusals: each bad credential is refused by the verifier
// that owns it, with that verifier's own description, and never passed
// to the next verifier (the introspection endpoint, last, is never
// called for a JWT or an API key).
func TestMultiAuthRefusals(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	res := s.resource()
	foreign := newTestIdP(t)
	forged := forgeProxyToken(t, s.base, res)
	for _, tc := range []struct {
		name      string
		authz     string
		status    int
		challenge string // a substring of WWW-Authenticate
	}{
		{"no credentials", "", 401, `Bearer resource_metadata="` + s.base + `/.well-known/oauth-protected-resource/mcp"`},
		{"JWT for another resource", "Bearer " + s.idp.jwt(t, "https://other.example/mcp", nil), 401, "the access token is not for this resource"},
		{"expired JWT", "Bearer " + s.idp.jwt(t, res, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), 401, "the access token has expired"},
		{"JWT without exp", "Bearer " + s.idp.jwt(t, res, map[string]any{"exp": nil}), 401, "has no expiry"},
		{"JWT of an issuer nobody trusts", "Bearer " + foreign.jwt(t, res, nil), 401, "of no kind this server accepts"},
		{"JWT naming the IdP signed by another key", "Bearer " + foreign.jwtAs(t, s.idp.issuer(), res), 401, "signature does not verify"},
		{"proxy-issuer JWT with a forged signature", "Bearer " + forged, 401, `error="invalid_token"`},
		{"API key of the wrong length", "Bearer " + s.apiKey[:len(s.apiKey)-1], 401, "malformed API key"},
		{"API key one character longer", "Bearer " + s.apiKey + "A", 401, "malformed API key"},
		{"unknown API key", "Bearer " + flipLast(s.apiKey), 401, "unknown API key"},
		{"inactive opaque token", "Bearer op_not-a-token-the-idp-knows", 401, "not active"},
		{"malformed header", "Basic YTpi", 401, "of no kind this server accepts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.idp.introspections.Load()
			status, challenge, body := s.post(t, tc.authz)
			assert.Equal(t, tc.status, status, body)
			assert.Contains(t, challenge, tc.challenge)
			assert.Contains(t, challenge, `resource_metadata="`+s.base+`/.well-known/oauth-protected-resource/mcp"`)
			if tc.authz != "" {
				assert.Contains(t, challenge, `error="invalid_token"`)
			}
			want := int64(0)
			if strings.HasPrefix(tc.name, "inactive opaque") {
				want = 1
			}
			assert.Equal(t, want, s.idp.introspections.Load()-before, "introspection calls")
		})
	}
}

// TestMultiAuthErrorDoesNotFallThrough: when the verifier that owns a
// token cannot check it (its provider's keys are unreachable), the
// request is a 503, not handed to the next verifier (introspection,
// which would be reachable) as if the token were absent; an API key
// still works meanwhile.
func TestMultiAuthErrorDoesNotFallThrough(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tok := s.idp.jwt(t, s.resource(), nil)
	s.idp.down.Store(true)
	status, _, body := s.post(t, "Bearer "+tok)
	assert.Equal(t, http.StatusServiceUnavailable, status, body)
	assert.Zero(t, s.idp.introspections.Load(), "the JWT never reached the introspection endpoint")
	got, err := s.call(t, "Bearer "+s.apiKey, "whoami")
	require.NoError(t, err)
	assert.Equal(t, "apikey:billing", got)
	// An opaque token: its verifier's outage is a 503 too.
	status, _, _ = s.post(t, "Bearer "+s.idp.opaque(s.resource(), "carol"))
	assert.Equal(t, http.StatusServiceUnavailable, status)
}

// TestMultiAuthRoles: roles from the identity provider's claim mapping
// and from the API key open the admin tool; a token without the role
// does not see it.
func TestMultiAuthRoles(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	admin := s.idp.jwt(t, s.resource(), map[string]any{"realm_access": map[string]any{"roles": []string{"admin"}}})
	got, err := s.call(t, "Bearer "+admin, "admin")
	require.NoError(t, err)
	assert.Equal(t, "admin", got)
	// The role in another claim than the mapped one counts for nothing.
	notMapped := s.idp.jwt(t, s.resource(), map[string]any{"roles": []string{"admin"}})
	_, err = s.call(t, "Bearer "+notMapped, "admin")
	assert.Error(t, err)
	_, err = s.call(t, "Bearer "+s.apiKey, "admin")
	assert.Error(t, err, "the key's role is service, not admin")
}

// TestMultiAuthMetadata: one protected-resource document names the
// proxy first and the identity provider second, with the scopes of the
// proxy (where clients sign in: they ask it for every scope listed, and
// the identity provider's would make it answer invalid_scope, which
// TestMultiAuthAdmitsEachKind's login through package client/oauth
// shows); the proxy's authorization-server document is served.
func TestMultiAuthMetadata(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	resp, err := http.Get(s.base + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	defer resp.Body.Close()
	var pr discovery.ProtectedResourceMetadata
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pr))
	assert.Equal(t, s.resource(), pr.Resource)
	assert.Equal(t, []string{s.base, s.idp.issuer()}, pr.AuthorizationServers)
	assert.Equal(t, []string{"openid", "profile", "email"}, pr.ScopesSupported)
	assert.Equal(t, pr, *s.auth.OAuthMetadata().ProtectedResource)
	resp2, err := http.Get(s.base + "/.well-known/oauth-authorization-server")
	require.NoError(t, err)
	resp2.Body.Close()
	assert.Equal(t, http.StatusOK, resp2.StatusCode)
}

// TestNewRefusesWhatItCannotRoute: lists New cannot route fail at
// construction with a message naming the verifier.
func TestNewRefusesWhatItCannotRoute(t *testing.T) {
	t.Parallel()
	idp := newTestIdP(t)
	ctx := context.Background()
	rs := func(resource string, intro bool) *resourceserver.Verifier {
		cfg := resourceserver.Config{Issuer: idp.issuer(), Resource: resource}
		if intro {
			cfg.Introspection = &resourceserver.IntrospectionConfig{}
		}
		v, err := resourceserver.New(ctx, cfg)
		require.NoError(t, err)
		return v
	}
	keys, err := multiauth.NewAPIKeys("mcpk_")
	require.NoError(t, err)
	proxy := func(base string) *providers.OAuthProvider {
		p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{Config: providers.Config{BaseURL: base, ClientID: "c", Logger: quiet},
			AuthorizationEndpoint: "http://127.0.0.1:1/a", TokenEndpoint: "http://127.0.0.1:1/t"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		return p
	}
	var nilKeys *multiauth.APIKeys
	for _, tc := range []struct {
		name string
		vs   []mcp.AuthProvider
		err  string
	}{
		{"none", nil, "at least one"},
		{"nil", []mcp.AuthProvider{keys, nil}, "verifier 2 is nil"},
		{"typed nil", []mcp.AuthProvider{nilKeys}, "verifier 1 is nil"},
		{"not an Owner", []mcp.AuthProvider{notOwner{}}, "needs an Owns"},
		{"introspection not last", []mcp.AuthProvider{rs("https://mcp.example/mcp", true), keys}, "put it last"},
		{"two introspections", []mcp.AuthProvider{rs("https://mcp.example/mcp", true), rs("https://mcp.example/mcp", true)}, "both take every opaque token"},
		{"two resources", []mcp.AuthProvider{rs("https://a.example/mcp", false), rs("https://b.example/mcp", false)}, "must protect one resource"},
		{"two proxies", []mcp.AuthProvider{proxy("http://127.0.0.1:8001"), proxy("http://127.0.0.1:8001")}, "both authorization servers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := multiauth.New(tc.vs...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	_, err = multiauth.New(keys, rs("https://mcp.example/mcp", false), rs("https://mcp.example/mcp", true))
	assert.NoError(t, err, "introspection last is fine")
}

// TestMultiAuthOwnerAdmittingAnonymouslyIsRefused: a verifier that owns
// the credentials and returns no auth data is a failed check (500), not
// an anonymous admission.
func TestMultiAuthOwnerAdmittingAnonymouslyIsRefused(t *testing.T) {
	t.Parallel()
	a, err := multiauth.New(anonOwner{})
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer x")
	auth, err := a.VerifyRequest(r)
	assert.Nil(t, auth)
	require.Error(t, err)
	assert.NotErrorIs(t, err, mcp.ErrUnauthorized)
	assert.Contains(t, err.Error(), "returned no auth data")
}

type notOwner struct{}

func (notOwner) VerifyRequest(*http.Request) (any, error) { return "x", nil }
func (notOwner) Mount(*http.ServeMux)                     {}

type anonOwner struct{ notOwner }

func (anonOwner) Owns(r *http.Request) bool                { return r.Header.Get("Authorization") == "Bearer x" }
func (anonOwner) VerifyRequest(*http.Request) (any, error) { return nil, nil }

// jwtAs signs a good token claiming issuer iss with this IdP's key.
func (idp *testIdP) jwtAs(t *testing.T, iss, resource string) string {
	return idp.jwt(t, resource, map[string]any{"iss": iss})
}

// forgeProxyToken is an at+jwt naming the proxy's issuer, HS256-signed
// with a key the proxy does not hold.
func forgeProxyToken(t *testing.T, base, resource string) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte(strings.Repeat("k", 32))},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "0011223344556677"))
	require.NoError(t, err)
	tok, err := jwt.Signed(s).Claims(map[string]any{"iss": base, "sub": "generic:mallory", "aud": resource,
		"exp": time.Now().Add(time.Hour).Unix(), "jti": "j", "gid": "g", "client_id": "c"}).Serialize()
	require.NoError(t, err)
	return tok
}

// flipLast changes the last character of a key, keeping its alphabet.
func flipLast(k string) string {
	last := k[len(k)-1]
	c := byte('A')
	if last == 'A' {
		c = 'B'
	}
	return k[:len(k)-1] + string(c)
}

var _ = base64.RawURLEncoding
