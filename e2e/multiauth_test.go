package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/pkg/oidc"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/multiauth"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
)

// TestMultiAuthThreeCredentials: one MCP server takes three kinds of
// credentials at once, each through package client over HTTP: the
// tokens of its own OAuth proxy (a user signs in through the proxy, with
// package client/oauth, at a real OpenID Provider, zitadel/oidc), the
// JWT access tokens of another identity provider (a second zitadel/oidc
// provider, issued by its client credentials grant with the service
// account's groups, verified with its JWKS), and an API key. Each caller
// is its own verifier's identity, with its roles; the refusals (a token
// of another issuer, one naming the external issuer but signed by
// another key, another audience, the IdP's ID token, expired, an API key
// of the wrong length or not configured) are 401 invalid_token saying
// why.
func TestMultiAuthThreeCredentials(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.DiscardHandler)
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	resource := base + "/mcp"

	// The proxy's upstream, where users sign in.
	proxyClient := &idpClient{id: "mcp-proxy", secret: "mcp-proxy-secret", redirectURIs: []string{base + providers.CallbackPath},
		grants: []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}}
	// upstreamSvc has the external one's name, resource and groups, at
	// the upstream.
	upstreamSvc := &idpClient{id: "svc-reporting", secret: "upstream-svc-secret", resource: resource, groups: []string{"auditors"},
		grants: []oidc.GrantType{oidc.GrantTypeClientCredentials}}
	upstream := newZitadelIdP(t, proxyClient, upstreamSvc)
	// The external IdP's service accounts: each gets access tokens for a
	// resource, with its groups.
	svc := func(id, res string, lifetime time.Duration, groups ...string) *idpClient {
		return &idpClient{id: id, secret: id + "-secret", resource: res, groups: groups, lifetime: lifetime,
			grants: []oidc.GrantType{oidc.GrantTypeClientCredentials}}
	}
	reporting, billing := svc("svc-reporting", resource, 0, "auditors"), svc("svc-billing", resource, 0)
	elsewhere, expired := svc("svc-elsewhere", "https://other.example/mcp", 0, "auditors"), svc("svc-expired", resource, -time.Hour, "auditors")
	external := newZitadelIdP(t, reporting, billing, elsewhere, expired, agentClient())

	proxy, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{BaseURL: base, ClientID: proxyClient.id, ClientSecret: proxyClient.secret,
			Scopes: []string{"openid", "profile", "email"}, DisableConsent: true,
			AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"}, Logger: quiet},
		AuthorizationEndpoint: upstream.URL + "/authorize", TokenEndpoint: upstream.URL + "/oauth/token",
		Issuer: upstream.URL})
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })
	idp, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: external.URL, Resource: resource,
		RoleClaims: []string{"groups"}})
	require.NoError(t, err)
	key, hash, err := multiauth.NewAPIKey("mcpk_")
	require.NoError(t, err)
	otherKey, _, err := multiauth.NewAPIKey("mcpk_")
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
	mcp.AddTool(srv, mcp.Tool{Name: "audit", CanAccess: access.Roles("auditors")},
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
	assert.Contains(t, got, idpUserID, "the upstream's user")
	_, err = call(t, &client.HTTPOptions{Auth: o}, "audit")
	assert.Error(t, err, "the signed-in user has no auditors role")

	// 2. Workloads with the external provider's tokens; 3. a service
	// with an API key.
	bearer := func(tok string) *client.HTTPOptions {
		return &client.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + tok}}}
	}
	token := func(idp *zitadelIdP, c *idpClient) string {
		status, out := idp.clientToken(t, c, "mcp")
		require.Equal(t, http.StatusOK, status, out)
		return out["access_token"].(string)
	}
	jwtTok := token(external, reporting)
	got, err = call(t, bearer(jwtTok), "whoami")
	require.NoError(t, err)
	assert.Equal(t, external.URL+"|svc-reporting", got)
	got, err = call(t, bearer(jwtTok), "audit")
	require.NoError(t, err)
	assert.Equal(t, "audit log", got)
	billingTok := token(external, billing)
	got, err = call(t, bearer(billingTok), "whoami")
	require.NoError(t, err)
	assert.Equal(t, external.URL+"|svc-billing", got)
	_, err = call(t, bearer(billingTok), "audit")
	assert.Error(t, err, "a service account in no group has no auditors role")
	got, err = call(t, bearer(key), "whoami")
	require.NoError(t, err)
	assert.Equal(t, "apikey:nightly-export", got)
	_, err = call(t, bearer(key), "audit")
	assert.Error(t, err, "the API key's roles are exporter only")

	// A token naming the external issuer and its key id (k1, as every
	// provider here names its first key), signed by another provider's
	// key.
	forged := func() string {
		k, err := upstream.store.SigningKey(context.Background())
		require.NoError(t, err)
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: k.Key()}, (&jose.SignerOptions{}).WithHeader("kid", k.ID()))
		require.NoError(t, err)
		now := time.Now()
		tok, err := jwt.Signed(s).Claims(map[string]any{"iss": external.URL, "sub": "svc-reporting", "aud": []string{resource},
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "client_id": "svc-reporting", "groups": []string{"auditors"}}).Serialize()
		require.NoError(t, err)
		return tok
	}()
	// The refusals, each from the verifier the credentials belong to
	// (why "" : the router's, for credentials of no verifier).
	for _, tc := range []struct {
		name, token, why string
	}{
		{"another issuer", token(upstream, upstreamSvc), ""},
		{"the external issuer named, signed by another key", forged, "signature does not verify"},
		{"another audience", token(external, elsewhere), "not for this resource"},
		{"the IdP's ID token", external.signIn(t, agentClient())["id_token"].(string), "an ID token, not an access token"},
		{"expired", token(external, expired), "expired"},
		{"API key of the wrong length", key[:len(key)-2], "malformed API key"},
		{"API key not configured", otherKey, "unknown API key"},
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
			if tc.why != "" {
				assert.Contains(t, ch, tc.why)
			} else {
				// A JWT of an issuer no verifier takes: the router
				// refuses it.
				assert.Contains(t, ch, "of no kind this server accepts")
			}
		})
	}
}
