package providers

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// The upstream is asked only for the scopes of the
// transaction (what the consent page showed), not every configured one.
func TestThreatUpstreamAskedOnlyTheGrantedScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	b := browser(t)
	f := e.consent(b, e.authorizeURL(c, url.Values{"scope": {"read"}}))
	f.Set("action", "approve")
	resp := do(t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(t, 303, resp.StatusCode)
	up, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "read", up.Query().Get("scope"), "only the scope the client asked for and the user approved")

	// Scopes the provider needs that clients are not offered stay (the
	// enterprise directory's offline_access), and openid stays.
	assert.Equal(t, []string{"openid", "email", "offline_access"},
		upstreamScopes([]string{"openid", "profile", "email", "offline_access"}, []string{"openid", "profile", "email"}, []string{"email"}))
}

// Whoever can write the storage cannot mint scopes or
// clients: rt:, code: and client: records are sealed like grants.
func TestThreatStoredRecordsAreSealed(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			store := sc.open(t)
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store })
			c, tok := loginTokens(t, e)
			ctx := context.Background()
			rt := tok["refresh_token"].(string)
			raw, err := store.Get(ctx, "rt:"+hashKey(rt))
			require.NoError(t, err)
			assert.NotContains(t, string(raw), c.ID, "the refresh token record is not plain JSON")
			raw, err = store.Get(ctx, "client:"+c.ID)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), "Test <App>", "the client record is not plain JSON")

			claims, err := e.p.jwt.verify(tok["access_token"].(string), time.Now())
			require.NoError(t, err)
			// A record written by hand, granting a scope never approved, is
			// refused.
			forged := claims.GrantID + ".forged-refresh-token"
			require.NoError(t, store.Put(ctx, "rt:"+hashKey(forged),
				[]byte(`{"client_id":"`+c.ID+`","gid":"`+claims.GrantID+`","scopes":["admin"],"sub":"generic:alice"}`), time.Hour))
			st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {forged}})
			assert.Equal(t, 400, st, "a forged refresh token record: %v", out)
			assert.NotContains(t, out, "access_token")
			// A client written by hand is unknown.
			require.NoError(t, store.Put(ctx, "client:forged", []byte(`{"client_id":"forged","redirect_uris":["https://evil.example/cb"],"token_endpoint_auth_method":"none","grant_types":["authorization_code"]}`), time.Hour))
			resp := do(t, browser(t), "GET", e.authorizeURL(regd{ID: "forged", Redirect: "https://evil.example/cb"}, nil), nil, nil)
			assert.NotEqual(t, http.StatusFound, resp.StatusCode, "a forged client gets no consent page")
		})
	}
}

// An http:// base URL on a host other than loopback
// would drop the cookies' Secure flag: it is refused unless the
// insecure-dev option says otherwise.
func TestThreatHTTPBaseURLRefused(t *testing.T) {
	t.Parallel()
	build := func(base string, insecure bool) error {
		p, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: base, ClientID: "x", AllowInsecureHTTP: insecure},
			AuthorizationEndpoint: "https://idp/a", TokenEndpoint: "https://idp/t"})
		if err == nil {
			_ = p.Close()
		}
		return err
	}
	err := build("http://mcp.example.com", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AllowInsecureHTTP")
	assert.Error(t, build("http://10.0.0.5:8000", false))
	for _, ok := range []string{"https://mcp.example.com", "http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"} {
		assert.NoError(t, build(ok, false), ok)
	}
	assert.NoError(t, build("http://mcp.example.com", true), "the explicit insecure-dev option")
}

// The HS256 key can be rotated: tokens of a previous
// key still verify (found by kid) until they expire; others do not.
func TestJWTKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := strings.Repeat("o", 32), strings.Repeat("n", 32)
	proxy := func(current string, previous ...string) *Proxy {
		p, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: "https://mcp.example", ClientID: "x",
			JWTSigningKey: current, PreviousJWTSigningKeys: previous}, AuthorizationEndpoint: "https://idp/a", TokenEndpoint: "https://idp/t"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Close() })
		return p.Proxy
	}
	before, rotated, dropped := proxy(oldKey), proxy(newKey, oldKey), proxy(newKey)
	now := time.Now()
	claims := AccessTokenClaims{Claims: jwt.Claims{Issuer: "https://mcp.example", Audience: jwt.Audience{"https://mcp.example/mcp"},
		Subject: "generic:alice", IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour)), ID: "j1"},
		ClientID: "c", GrantID: "g"}
	old, err := before.jwt.mint(claims)
	require.NoError(t, err)
	_, err = rotated.jwt.verify(old, now)
	assert.NoError(t, err, "a token of the previous key verifies")
	_, err = dropped.jwt.verify(old, now)
	assert.ErrorContains(t, err, "unknown key", "once the previous key is dropped, its tokens are refused")

	cur, err := rotated.jwt.mint(claims)
	require.NoError(t, err)
	_, err = rotated.jwt.verify(cur, now)
	require.NoError(t, err, "new tokens are signed with the current key")
	_, err = dropped.jwt.verify(cur, now)
	require.NoError(t, err)
	_, err = before.jwt.verify(cur, now)
	assert.Error(t, err, "the old key does not verify new tokens")

	// A token naming the current key's kid but signed with the previous
	// key does not verify.
	parts := strings.Split(old, ".")
	hdr, _ := base64.RawURLEncoding.DecodeString(parts[0])
	swapped := strings.Replace(string(hdr), before.jwt.kid, rotated.jwt.kid, 1)
	require.NotEqual(t, string(hdr), swapped)
	_, err = rotated.jwt.verify(base64.RawURLEncoding.EncodeToString([]byte(swapped))+"."+parts[1]+"."+parts[2], now)
	assert.ErrorIs(t, err, mcp.ErrUnauthorized)

	_, err = NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: "https://mcp.example", ClientID: "x",
		JWTSigningKey: newKey, PreviousJWTSigningKeys: []string{"short"}}, AuthorizationEndpoint: "https://idp/a", TokenEndpoint: "https://idp/t"})
	assert.ErrorContains(t, err, "PreviousJWTSigningKeys")
}
