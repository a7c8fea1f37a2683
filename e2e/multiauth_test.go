package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/multiauth"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
)

// startMockOIDC runs a mockoidc provider on 127.0.0.1 with a signing key
// of its own (mockoidc's default key is the same for every instance;
// its session store is a plain map: requests are serialized).
func startMockOIDC(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	m, err := mockoidc.NewServer(key)
	require.NoError(t, err)
	var mu sync.Mutex
	require.NoError(t, m.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, m.Start(ln, nil))
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

// mintAt signs an access token with the provider's own key, as its
// token endpoint would for an API: claims override the defaults (iss,
// sub, aud resource, exp in an hour).
func mintAt(t *testing.T, m *mockoidc.MockOIDC, resource string, claims map[string]any) string {
	t.Helper()
	kid, err := m.Keypair.KeyID()
	require.NoError(t, err)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: m.Keypair.PrivateKey},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	require.NoError(t, err)
	c := map[string]any{"iss": m.Issuer(), "sub": "svc-reporting", "aud": resource, "iat": time.Now().Unix(),
		"exp": time.Now().Add(time.Hour).Unix(), "scope": "mcp", "groups": []string{"auditors"}}
	for k, v := range claims {
		c[k] = v
	}
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	require.NoError(t, err)
	return tok
}

// TestMultiAuthThreeCredentials: one MCP server takes three kinds of
// credentials at once, each through package client over HTTP: the
// tokens of its own OAuth proxy (a user signs in at mockoidc through the
// proxy, with package client/oauth), the JWT access tokens of another
// identity provider (a second mockoidc, verified with its JWKS), and an
// API key. Each caller is its own verifier's identity, with its roles;
// the refusals (another issuer, another audience, expired, an API key
// of the wrong length) are 401 invalid_token saying why.
func TestMultiAuthThreeCredentials(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.DiscardHandler)
	upstream, external := startMockOIDC(t), startMockOIDC(t)
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	resource := base + "/mcp"

	proxy, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{BaseURL: base, ClientID: upstream.ClientID, ClientSecret: upstream.ClientSecret,
			Scopes: []string{"openid", "profile", "email"}, DisableConsent: true,
			AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"}, Logger: quiet},
		AuthorizationEndpoint: upstream.AuthorizationEndpoint(), TokenEndpoint: upstream.TokenEndpoint(),
		TokenEndpointAuthMethod: "client_secret_post", // mockoidc reads the secret from the form
		Issuer:                  upstream.Issuer(), JWKSURL: upstream.JWKSEndpoint()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })
	idp, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: external.Issuer(), Resource: resource,
		RoleClaims: []string{"groups"}})
	require.NoError(t, err)
	key, hash, err := multiauth.NewAPIKey("mcpk_")
	require.NoError(t, err)
	keys, err := multiauth.NewAPIKeys("mcpk_", multiauth.APIKey{Hash: hash, Name: "nightly-export", Roles: []string{"exporter"}})
	require.NoError(t, err)
	auth, err := multiauth.New(proxy, idp, keys)
	require.NoError(t, err)

	srv := mcp.NewServer(mcp.Options{Name: "multi", Version: "1.0.0", Auth: auth, Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, _ := c.Session.(mcp.Subject)
		return s.Subject(), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "audit", CanAccess: mcp.RequireRoles("auditors")},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "audit log", nil })
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ts.Config.Handler = mcphttp.NewMux(h, nil)
	ts.Start()
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// 1. A user signs in through the proxy.
	loop, err := oauth.ListenLoopback("/callback")
	require.NoError(t, err)
	defer loop.Close()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	o := oauth.New(oauth.Config{ClientName: "e2e-multiauth", RedirectURL: loop.RedirectURL(),
		Authorize: loop.Authorize(func(authURL string) error {
			go func() {
				if resp, err := browser.Get(authURL); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			return nil
		}, 15*time.Second)})
	call := func(t *testing.T, opts *client.HTTPOptions, tool string) (string, error) {
		c, err := client.Connect(ctx, client.HTTP(resource, opts), &client.Options{Logger: quiet})
		if err != nil {
			return "", err
		}
		defer c.Close()
		res, err := c.CallTool(ctx, tool, nil, nil)
		if err != nil {
			return "", err
		}
		return res.Text(), nil
	}
	got, err := call(t, &client.HTTPOptions{Auth: o}, "whoami")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(got, "generic:"), got)
	_, err = call(t, &client.HTTPOptions{Auth: o}, "audit")
	assert.Error(t, err, "the signed-in user has no auditors role")

	// 2. A workload with the external provider's token; 3. a service
	// with an API key.
	bearer := func(tok string) *client.HTTPOptions {
		return &client.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + tok}}}
	}
	jwtTok := mintAt(t, external, resource, nil)
	got, err = call(t, bearer(jwtTok), "whoami")
	require.NoError(t, err)
	assert.Equal(t, external.Issuer()+"|svc-reporting", got)
	got, err = call(t, bearer(jwtTok), "audit")
	require.NoError(t, err)
	assert.Equal(t, "audit log", got)
	got, err = call(t, bearer(key), "whoami")
	require.NoError(t, err)
	assert.Equal(t, "apikey:nightly-export", got)

	// The refusals, each from the verifier the credentials belong to.
	for _, tc := range []struct {
		name, token, why string
	}{
		{"another issuer", mintAt(t, upstream, resource, nil), "not issued by"},
		{"the external issuer named, signed by another key", mintAt(t, upstream, resource, map[string]any{"iss": external.Issuer()}), "signature does not verify"},
		{"another audience", mintAt(t, external, "https://other.example/mcp", nil), "not for this resource"},
		{"expired", mintAt(t, external, resource, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), "expired"},
		{"API key of the wrong length", key[:len(key)-2], "malformed API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+tc.token)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			ch := resp.Header.Get("WWW-Authenticate")
			assert.Contains(t, ch, `error="invalid_token"`)
			assert.Contains(t, ch, `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			if tc.name != "another issuer" {
				assert.Contains(t, ch, tc.why)
			} else {
				// The upstream's own JWT names an issuer no verifier
				// takes: the router refuses it.
				assert.Contains(t, ch, "of no kind this server accepts")
			}
		})
	}
}
