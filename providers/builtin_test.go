package providers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpchain/mcp/access"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

func TestCheckTenantIssuer(t *testing.T) {
	t.Parallel()
	const idp = "https://login.example"
	tid := "11111111-2222-3333-4444-555555555555"
	for _, tt := range []struct {
		name, tenant, iss, tid string
		allowed                []string
		ok                     bool
	}{
		{"common, own tenant issuer", "common", idp + "/" + tid + "/v2.0", tid, nil, true},
		{"issuer of another tenant", "common", idp + "/99999999-2222-3333-4444-555555555555/v2.0", tid, nil, false},
		{"placeholder issuer", "common", idp + "/{tenantid}/v2.0", tid, nil, false},
		{"no tid", "common", idp + "/" + tid + "/v2.0", "", nil, false},
		{"consumers needs the personal tenant", "consumers", idp + "/" + tid + "/v2.0", tid, nil, false},
		{"consumers ok", "consumers", idp + "/" + consumersTenant + "/v2.0", consumersTenant, nil, true},
		{"organizations refuses personal", "organizations", idp + "/" + consumersTenant + "/v2.0", consumersTenant, nil, false},
		{"allowed tenants", "common", idp + "/" + tid + "/v2.0", tid, []string{"other"}, false},
	} {
		err := checkTenantIssuer(map[string]any{"iss": tt.iss, "tid": tt.tid}, idp, tt.tenant, tt.allowed)
		assert.Equal(t, tt.ok, err == nil, "%s: %v", tt.name, err)
	}
}

func TestCodeHostIdentifyUsesUserAPI(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer gh-token" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/user":
			writeJSON(w, 200, map[string]any{"id": 42, "login": "octo", "email": nil})
		case "/user/emails":
			writeJSON(w, 200, []map[string]any{{"email": "old@x", "primary": false, "verified": true}, {"email": "octo@x", "primary": true, "verified": true}})
		}
	}))
	defer api.Close()
	p, err := NewCodeHostProvider(CodeHostConfig{Config: Config{BaseURL: "http://127.0.0.1:1", ClientID: "id"}, APIURL: api.URL})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, []string{"read:user", "user:email"}, p.cfg.Scopes)
	conf, err := p.up.OAuth2Config(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "https://github.com/login/oauth/authorize", conf.Endpoint.AuthURL)
	id, err := p.up.Identify(context.Background(), &oauth2.Token{AccessToken: "gh-token"}, "")
	require.NoError(t, err)
	assert.Equal(t, "codehost:42", id.Subject)
	assert.Equal(t, "octo", id.Username)
	assert.Equal(t, "octo@x", id.Email)
	s := p.up.NewSession(OAuthSession{UserID: id.Subject, Scopes: []string{"read:user"}}, id).(*CodeHostSession)
	assert.Equal(t, "octo", s.Username)
	ctx := context.Background()
	assert.True(t, access.Authenticated(ctx, s))
	assert.True(t, access.Scopes("read:user")(ctx, s))
	assert.False(t, access.Scopes("read:user", "repo")(ctx, s))
	assert.True(t, access.Any(access.Scopes("repo"), access.Scopes("read:user"))(ctx, s))
	assert.False(t, access.All(access.Authenticated, access.Scopes("repo"))(ctx, s))
	assert.False(t, access.Scopes("read:user")(ctx, nil))
	assert.False(t, access.Scopes("read:user")(ctx, "a string"))
	_, err = p.up.Identify(context.Background(), &oauth2.Token{AccessToken: "bad"}, "")
	assert.ErrorIs(t, err, ErrUpstream)
}

func TestProviderDefaultsAndConfigErrors(t *testing.T) {
	t.Parallel()
	base := Config{BaseURL: "https://mcp.example", ClientID: "id"}
	e, err := NewEnterpriseDirectoryProvider(EnterpriseDirectoryConfig{Config: base})
	require.NoError(t, err)
	defer e.Close()
	conf, err := e.up.OAuth2Config(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "https://login.microsoftonline.com/common/oauth2/v2.0/authorize", conf.Endpoint.AuthURL)
	assert.Contains(t, conf.Scopes, "offline_access", "asked upstream for a refresh token")
	assert.NotContains(t, e.OAuthMetadata().ProtectedResource.ScopesSupported, "offline_access")

	c, err := NewConsumerIdentityProvider(ConsumerIdentityConfig{Config: base})
	require.NoError(t, err)
	defer c.Close()
	conf, err = c.up.OAuth2Config(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "https://accounts.google.com/o/oauth2/v2/auth", conf.Endpoint.AuthURL)
	assert.Equal(t, "https://oauth2.googleapis.com/token", conf.Endpoint.TokenURL)
	assert.Equal(t, []string{"openid", "profile", "email"}, conf.Scopes)
	md := c.OAuthMetadata()
	assert.Equal(t, "https://mcp.example/mcp", md.ProtectedResource.Resource)
	assert.Equal(t, []string{"S256"}, md.AuthorizationServer.CodeChallengeMethodsSupported)
	assert.True(t, md.AuthorizationServer.AuthorizationResponseIssParameterSupported)

	for name, f := range map[string]func() error{
		"no base url": func() error {
			_, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{ClientID: "x"}, AuthorizationEndpoint: "a", TokenEndpoint: "t"})
			return err
		},
		"no endpoints": func() error { _, err := NewOAuthProvider(OAuthProviderConfig{Config: base}); return err },
		"bad method": func() error {
			_, err := NewOAuthProvider(OAuthProviderConfig{Config: base, AuthorizationEndpoint: "a", TokenEndpoint: "t", TokenEndpointAuthMethod: "private_key_jwt"})
			return err
		},
		"short key": func() error {
			b := base
			b.JWTSigningKey = "short"
			_, err := NewOAuthProvider(OAuthProviderConfig{Config: b, AuthorizationEndpoint: "a", TokenEndpoint: "t"})
			return err
		},
		"shared storage without keys": func() error {
			b := base
			b.TokenStorage = sharedStorage{} // not a *MemoryStorage, so shared; never used
			_, err := NewOAuthProvider(OAuthProviderConfig{Config: b, AuthorizationEndpoint: "a", TokenEndpoint: "t"})
			return err
		},
		"bad tenant": func() error {
			_, err := NewEnterpriseDirectoryProvider(EnterpriseDirectoryConfig{Config: base, TenantID: "x y"})
			return err
		},
	} {
		assert.Error(t, f(), name)
	}
}

// sharedStorage is a TokenStorage the proxy takes for a shared one (any
// but its own *MemoryStorage).
type sharedStorage struct{ *MemoryStorage }
