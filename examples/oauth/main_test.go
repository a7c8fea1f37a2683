package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func base(provider string, extra ...string) map[string]string {
	m := map[string]string{"OAUTH_PROVIDER": provider, "OAUTH_CLIENT_ID": "cid", "OAUTH_CLIENT_SECRET": "csecret",
		"MCP_BASE_URL": "https://mcp.example.com"}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func TestLoadConfigErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("k", 32)
	for _, tt := range []struct {
		name string
		env  map[string]string
		want []string // substrings of the error; none: valid
	}{
		{"empty", map[string]string{}, []string{"OAUTH_PROVIDER is required", "OAUTH_CLIENT_ID is required",
			"OAUTH_CLIENT_SECRET is required", "MCP_BASE_URL is required", "/oauth/callback"}},
		{"unknown provider", base("google"), []string{`OAUTH_PROVIDER "google" is not one of`}},
		{"provider is case-insensitive", base("CodeHost"), nil},
		{"http base URL off loopback", base("codehost", "MCP_BASE_URL", "http://mcp.example.com"), []string{"MCP_BASE_URL", "OAUTH_INSECURE_HTTP=1"}},
		{"http base URL, insecure dev", base("codehost", "MCP_BASE_URL", "http://mcp.example.com", "OAUTH_INSECURE_HTTP", "1"), nil},
		{"http base URL on loopback", base("codehost", "MCP_BASE_URL", "http://127.0.0.1:8000"), nil},
		{"rate limits", base("codehost", "OAUTH_REGISTER_RATE_LIMIT", "off", "OAUTH_AUTHORIZE_RATE_LIMIT", "60,10"), nil},
		{"client address header", base("codehost", "OAUTH_CLIENT_ADDRESS_HEADER", "X-Forwarded-For"), nil},
		{"bad rate limit", base("codehost", "OAUTH_REGISTER_RATE_LIMIT", "fast"), []string{`OAUTH_REGISTER_RATE_LIMIT: "fast"`}},
		{"bad insecure flag", base("codehost", "OAUTH_INSECURE_HTTP", "yes"), []string{`OAUTH_INSECURE_HTTP "yes"`}},
		{"CIMD off", base("codehost", "OAUTH_CIMD", "off"), nil},
		{"CIMD private addresses", base("codehost", "OAUTH_CIMD", "allow-private-addresses"), nil},
		{"bad CIMD", base("codehost", "OAUTH_CIMD", "yes"), []string{`OAUTH_CIMD "yes"`, "allow-private-addresses"}},
		{"short previous key", base("codehost", "OAUTH_JWT_PREVIOUS_SIGNING_KEYS", key+",short"), []string{"OAUTH_JWT_PREVIOUS_SIGNING_KEYS: key 2"}},
		{"relative base URL", base("codehost", "MCP_BASE_URL", "mcp.example.com"), []string{"MCP_BASE_URL:", "not an absolute http(s) URL"}},
		{"generic needs endpoints", base("generic"), []string{"OAUTH_AUTHORIZATION_ENDPOINT and OAUTH_TOKEN_ENDPOINT are required"}},
		{"generic ok", base("generic", "OAUTH_AUTHORIZATION_ENDPOINT", "https://idp/auth", "OAUTH_TOKEN_ENDPOINT", "https://idp/token"), nil},
		{"generic bad auth method", base("generic", "OAUTH_AUTHORIZATION_ENDPOINT", "https://idp/auth", "OAUTH_TOKEN_ENDPOINT", "https://idp/token",
			"OAUTH_TOKEN_ENDPOINT_AUTH_METHOD", "private_key_jwt"), []string{`OAUTH_TOKEN_ENDPOINT_AUTH_METHOD "private_key_jwt"`}},
		{"upstream URL is not for generic", base("generic", "OAUTH_AUTHORIZATION_ENDPOINT", "https://idp/auth", "OAUTH_TOKEN_ENDPOINT", "https://idp/token",
			"OAUTH_UPSTREAM_URL", "https://idp"), []string{"OAUTH_UPSTREAM_URL does not apply to OAUTH_PROVIDER=generic"}},
		{"tenant is for enterprise only", base("consumer", "OAUTH_TENANT_ID", "common"), []string{"OAUTH_TENANT_ID does not apply to OAUTH_PROVIDER=consumer"}},
		{"api URL is for codehost only", base("enterprise", "OAUTH_API_URL", "https://api"), []string{"OAUTH_API_URL does not apply"}},
		{"bad upstream URL", base("consumer", "OAUTH_UPSTREAM_URL", "idp.local"), []string{"OAUTH_UPSTREAM_URL:"}},
		{"redis needs keys", base("codehost", "REDIS_URL", "redis://127.0.0.1:6379"), []string{"REDIS_URL is set, so OAUTH_JWT_SIGNING_KEY and OAUTH_ENCRYPTION_KEY are required"}},
		{"redis with keys", base("codehost", "REDIS_URL", "redis://127.0.0.1:6379", "OAUTH_JWT_SIGNING_KEY", key, "OAUTH_ENCRYPTION_KEY", key), nil},
		{"short key", base("codehost", "OAUTH_ENCRYPTION_KEY", "short"), []string{"OAUTH_ENCRYPTION_KEY must be at least 32 bytes (it is 5)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadConfig(envOf(tt.env))
			if tt.want == nil {
				require.NoError(t, err)
				require.NotNil(t, c)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, errConfig)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadConfigLists(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(envOf(base("enterprise", "OAUTH_ALLOWED_TENANTS", "a, b,c", "OAUTH_SCOPES", "openid  email",
		"OAUTH_REDIRECT_URI_PATTERNS", "http://localhost:*,https://claude.ai/*", "MCP_BASE_URL", "https://mcp.example.com/")))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, c.Tenants)
	assert.Equal(t, []string{"openid", "email"}, c.Scopes)
	assert.Equal(t, []string{"http://localhost:*", "https://claude.ai/*"}, c.Patterns)
	assert.Equal(t, "https://mcp.example.com", c.BaseURL, "trailing slash trimmed")
	assert.Equal(t, providers.ClientMetadataDocuments{}, c.CIMD, "client ID metadata documents on, fenced, by default")
	c, err = loadConfig(envOf(base("codehost", "OAUTH_CIMD", "Allow-Private-Addresses")))
	require.NoError(t, err)
	assert.True(t, c.CIMD.AllowPrivateAddresses)
}

func TestProviderConstructionErrorsAreConfigErrors(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(envOf(base("enterprise", "OAUTH_TENANT_ID", "not a tenant")))
	require.NoError(t, err)
	err = run(context.Background(), c, "127.0.0.1", 0, slog.New(slog.DiscardHandler))
	require.Error(t, err)
	assert.ErrorIs(t, err, errConfig)
	assert.Contains(t, err.Error(), `TenantID "not a tenant"`)
}

// TestUpstreamURLs runs the login up to the redirect to the upstream
// provider in process, for each provider, and checks that
// OAUTH_UPSTREAM_URL (or the generic endpoints) decide where it goes.
func TestUpstreamURLs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider string
		env      []string
		authURL  string
		scope    string
		nonce    bool
	}{
		{"generic", []string{"OAUTH_AUTHORIZATION_ENDPOINT", "https://idp.test/authorize", "OAUTH_TOKEN_ENDPOINT", "https://idp.test/token"},
			"https://idp.test/authorize", "openid", false},
		{"consumer", []string{"OAUTH_UPSTREAM_URL", "https://idp.test/google"}, "https://idp.test/google/o/oauth2/v2/auth", "openid profile email", true},
		{"codehost", []string{"OAUTH_UPSTREAM_URL", "https://idp.test/gh"}, "https://idp.test/gh/login/oauth/authorize", "read:user user:email", false},
		{"enterprise", []string{"OAUTH_UPSTREAM_URL", "https://idp.test/entra", "OAUTH_TENANT_ID", "organizations"},
			"https://idp.test/entra/organizations/oauth2/v2.0/authorize", "openid profile email offline_access", true},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			t.Parallel()
			var mux http.Handler
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mux.ServeHTTP(w, r) }))
			defer ts.Close()
			env := base(tt.provider, append(tt.env, "MCP_BASE_URL", ts.URL)...)
			c, err := loadConfig(envOf(env))
			require.NoError(t, err)
			proxy, err := c.newProvider(nil, slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			defer proxy.Close()
			h := mcphttp.New(newServer(tt.provider, proxy, slog.New(slog.DiscardHandler)), nil)
			defer h.Close()
			mux = mcphttp.NewMux(h, nil)

			loc := approveUpTo(t, ts.URL)
			u, err := url.Parse(loc)
			require.NoError(t, err)
			assert.Equal(t, tt.authURL, u.Scheme+"://"+u.Host+u.Path)
			q := u.Query()
			assert.Equal(t, "cid", q.Get("client_id"))
			assert.Equal(t, ts.URL+providers.CallbackPath, q.Get("redirect_uri"))
			assert.Equal(t, "S256", q.Get("code_challenge_method"))
			assert.NotEmpty(t, q.Get("state"))
			assert.Equal(t, tt.scope, q.Get("scope"))
			assert.Equal(t, tt.nonce, q.Get("nonce") != "", "nonce sent upstream")
			assert.Empty(t, q.Get("client_secret"), "the secret never travels in the browser")
		})
	}
}

// approveUpTo registers a client, authorizes, approves the consent page
// and returns where the server sends the browser: the upstream authorize
// URL.
func approveUpTo(t *testing.T, base string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	loc, _ := approveWith(t, b, base)
	return loc
}

// approveWith is approveUpTo in browser b; it also returns the client id.
func approveWith(t *testing.T, b *http.Client, base string) (string, string) {
	t.Helper()
	resp, err := http.Post(base+providers.RegisterPath, "application/json",
		strings.NewReader(`{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none","client_name":"unit"}`))
	require.NoError(t, err)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reg))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	sum := sha256.Sum256([]byte(strings.Repeat("v", 43)))
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:9/cb"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "state": {"s"}}
	resp, err = b.Get(base + providers.AuthorizePath + "?" + q.Encode())
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	consent, err := url.Parse(base)
	require.NoError(t, err)
	consent, err = consent.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	resp, err = b.Get(consent.String())
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(page))
	form := url.Values{"action": {"approve"}}
	for _, m := range regexp.MustCompile(`<input[^>]*>`).FindAllString(string(page), -1) {
		name := regexp.MustCompile(`name="([^"]*)"`).FindStringSubmatch(m)
		val := regexp.MustCompile(`value="([^"]*)"`).FindStringSubmatch(m)
		if name != nil && val != nil {
			form.Set(name[1], val[1])
		}
	}
	req, err := http.NewRequest("POST", base+providers.ConsentPath, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = b.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, string(body))
	return resp.Header.Get("Location"), reg.ClientID
}

// TestDevIdP: with -dev-idp's settings and nothing else, a login through
// the local provider completes (its ID token verified, nonce included),
// the code is exchanged and the refresh token works; the provider refuses
// another redirect URI and a wrong secret.
func TestDevIdP(t *testing.T) {
	t.Parallel()
	var mux http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mux.ServeHTTP(w, r) }))
	defer ts.Close()
	host := "0.0.0.0"
	_, _, err := devSetup(true, &host, 1, envOf(nil), slog.New(slog.DiscardHandler))
	assert.ErrorContains(t, err, "-host must be a loopback address")
	idp, getenv, err := devSetup(false, &host, 1, envOf(map[string]string{"MCP_BASE_URL": ts.URL, "OAUTH_PROVIDER": "codehost"}),
		slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer idp.Close()
	assert.Equal(t, "127.0.0.1", host, "-dev-idp listens on loopback")
	var printed strings.Builder
	idp.printSettings(&printed, ts.URL)
	assert.Contains(t, printed.String(), "OAUTH_ISSUER="+idp.issuer)
	assert.NotContains(t, printed.String(), idp.secret, "the secret is not printed")

	c, err := loadConfig(getenv)
	require.NoError(t, err)
	assert.Equal(t, "generic", c.Provider, "the dev provider's settings replace the environment's")
	proxy, err := c.newProvider(nil, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer proxy.Close()
	h := mcphttp.New(newServer(c.Provider, proxy, slog.New(slog.DiscardHandler)), nil)
	defer h.Close()
	mux = mcphttp.NewMux(h, nil)

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer b.CloseIdleConnections()
	loc, clientID := approveWith(t, b, ts.URL)
	require.True(t, strings.HasPrefix(loc, idp.issuer+"/authorize"), loc)
	for range 2 { // the provider, then our callback
		resp, err := b.Get(loc)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusFound, resp.StatusCode, string(body))
		loc = resp.Header.Get("Location")
	}
	back, err := url.Parse(loc)
	require.NoError(t, err)
	require.NotEmpty(t, back.Query().Get("code"), "the login completed: %s", loc)
	token := func(form url.Values) map[string]any {
		resp, err := http.PostForm(ts.URL+providers.TokenPath, form)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Equal(t, http.StatusOK, resp.StatusCode, out)
		return out
	}
	tok := token(url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {back.Query().Get("code")},
		"code_verifier": {strings.Repeat("v", 43)}, "redirect_uri": {"http://127.0.0.1:9/cb"}})
	tok = token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {tok["refresh_token"].(string)}})
	assert.NotEmpty(t, tok["access_token"])

	// The provider itself: another redirect URI, a wrong secret.
	resp, err := http.Get(idp.issuer + "/authorize?client_id=dev-client&response_type=code&code_challenge_method=S256&code_challenge=x&redirect_uri=" +
		url.QueryEscape("https://evil.example/cb"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp, err = http.PostForm(idp.issuer+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"dev-client"},
		"client_secret": {"wrong"}, "refresh_token": {"x"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func TestWhoamiShowsTheSessionWithoutTokens(t *testing.T) {
	t.Parallel()
	base := providers.OAuthSession{AccessToken: "secret-access", RefreshToken: "secret-refresh", IDToken: "secret-id",
		Scopes: []string{"read:user"}, UserID: "codehost:42", ClientID: "client-1", Claims: map[string]any{"login": "octo"}}
	for _, tt := range []struct {
		session any
		field   string
		value   string
	}{
		{&providers.CodeHostSession{OAuthSession: base, Username: "octo"}, "username", "octo"},
		{&providers.ConsumerIdentitySession{OAuthSession: base, Email: "a@example.com"}, "email", "a@example.com"},
		{&providers.EnterpriseDirectorySession{OAuthSession: base, UPN: "a@corp.example"}, "upn", "a@corp.example"},
		{&base, "", ""},
	} {
		out, err := whoami("p")(context.Background(), &mcp.Context{Session: tt.session}, struct{}{})
		require.NoError(t, err)
		b, err := json.Marshal(out)
		require.NoError(t, err)
		s := string(b)
		for _, secret := range []string{"secret-access", "secret-refresh", "secret-id"} {
			assert.NotContains(t, s, secret)
		}
		var got struct {
			Provider string          `json:"provider"`
			Session  map[string]any  `json:"session"`
			Tokens   map[string]bool `json:"upstreamTokens"`
		}
		require.NoError(t, json.Unmarshal(b, &got))
		assert.Equal(t, "p", got.Provider)
		assert.Equal(t, "codehost:42", got.Session["sub"])
		assert.Equal(t, "client-1", got.Session["clientId"])
		assert.Equal(t, []any{"read:user"}, got.Session["scopes"])
		assert.Equal(t, map[string]bool{"accessToken": true, "refreshToken": true, "idToken": true}, got.Tokens)
		if tt.field != "" {
			assert.Equal(t, tt.value, got.Session[tt.field])
		}
	}
	_, err := whoami("p")(context.Background(), &mcp.Context{}, struct{}{})
	var ue *mcp.UserError
	assert.True(t, errors.As(err, &ue), "no session: a user error, got %v", err)
}
