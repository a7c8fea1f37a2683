package providers

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// The threat table of oauth-design.md §3.10, one test per row.

func TestThreatOpenRedirect(t *testing.T) {
	t.Parallel()
	pats := mustPatterns(t, DefaultRedirectURIPatterns()...)
	for _, tt := range []struct {
		uri string
		ok  bool
	}{
		{"http://localhost:3000/cb", true},
		{"http://127.0.0.1:33418/cb", true},
		{"http://[::1]:8080/cb", true},
		{"HTTP://LOCALHOST:3000/cb", true},
		{"https://claude.ai/api/mcp/auth_callback", true},
		{"https://example.com:8443/cb", true},
		{"http://localhost:@evil.example", false},
		{"http://localhost:@evil.example/cb", false},
		{"http://localhost.evil.example/", false},
		{"http://127.0.0.1.nip.io/", false},
		{"https://evil.example#@localhost", false},
		{"http://evil.example/cb", false},
		{"javascript:alert(1)//", false},
		{"data:text/html,hi", false},
		{"/relative/cb", false},
		{"cursor://callback", false},
	} {
		err := checkRedirectURI(tt.uri, pats)
		assert.Equal(t, tt.ok, err == nil, "%s: %v", tt.uri, err)
	}
	sub := mustPatterns(t, "https://*.example.com/cb", "cursor://*")
	assert.NoError(t, checkRedirectURI("https://a.example.com/cb", sub))
	assert.Error(t, checkRedirectURI("https://example.com/cb", sub), "*.example.com is subdomains only")
	assert.Error(t, checkRedirectURI("https://evilexample.com/cb", sub))
	assert.Error(t, checkRedirectURI("https://a.example.com/other", sub))
	assert.NoError(t, checkRedirectURI("cursor://anything/cb", sub))

	e := newEnv(t, func(c *OAuthProviderConfig) { c.AllowedRedirectURIPatterns = []string{"http://localhost:*"} })
	resp := do(t, http.DefaultClient, "POST", e.ts.URL+RegisterPath, nil, nil)
	assert.Equal(t, 400, resp.StatusCode)
	resp.Body.Close()
	for _, bad := range []string{
		`"https://evil.example/cb"`, `"http://localhost:@evil.example"`,
		"\"http://localhost:5000/\xe9\xe9\"",                        // not ASCII: percent-encode it
		`"http://localhost:5000/a b"`,                               // a space
		`"http://localhost:5000/` + strings.Repeat("a", 2000) + `"`, // longer than 2,000 bytes
	} {
		r, err := http.Post(e.ts.URL+RegisterPath, "application/json", strings.NewReader(`{"redirect_uris":[`+bad+`]}`))
		require.NoError(t, err)
		body := readBody(t, r)
		assert.Equal(t, 400, r.StatusCode, body)
		assert.Contains(t, body, "invalid_redirect_uri")
		assert.Less(t, len(body), 512, "the refusal reflects at most a clipped copy of the URI")
	}
	// Members are matched exactly, as in MCP requests: a case variant is
	// refused rather than read as redirect_uris (FuzzRegister found one
	// registering 5 KB of invalid UTF-8 through "redireCt_uris").
	for _, bad := range []string{
		`{"redireCt_uris":["http://localhost:5000/cb"]}`,
		`{"redirect_uris":["http://localhost:5000/cb"],"redirect_uris":["http://localhost:5000/cb"]}`,
	} {
		r, err := http.Post(e.ts.URL+RegisterPath, "application/json", strings.NewReader(bad))
		require.NoError(t, err)
		body := readBody(t, r)
		assert.Equal(t, 400, r.StatusCode, body)
		assert.Contains(t, body, "invalid_client_metadata")
	}
	c := e.register("none", "http://localhost:5000/cb")
	b := browser(t)
	for _, other := range []string{"http://localhost:5000/cb2", "https://evil.example/cb"} {
		resp := do(t, b, "GET", e.authorizeURL(regd{ID: c.ID, Redirect: other}, nil), nil, nil)
		body := readBody(t, resp)
		assert.Equal(t, 400, resp.StatusCode, body)
		assert.Empty(t, resp.Header.Get("Location"), "never redirect to an unregistered URI")
	}
	resp = do(t, b, "GET", e.authorizeURL(regd{ID: "nope", Redirect: c.Redirect}, nil), nil, nil)
	assert.Equal(t, 400, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Location"))
	resp.Body.Close()
	// A loopback client may change only its port (RFC 8252).
	resp = do(t, b, "GET", e.authorizeURL(regd{ID: c.ID, Redirect: "http://localhost:5001/cb"}, nil), nil, nil)
	assert.Equal(t, 302, resp.StatusCode)
	resp.Body.Close()
}

func mustPatterns(t *testing.T, ps ...string) []redirectPattern {
	var out []redirectPattern
	for _, p := range ps {
		rp, err := parseRedirectPattern(p)
		require.NoError(t, err, p)
		out = append(out, rp)
	}
	return out
}

func TestConsentCannotBeOffWithWildcardHTTPS(t *testing.T) {
	t.Parallel()
	_, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: "https://mcp.example", ClientID: "x", DisableConsent: true},
		AuthorizationEndpoint: "https://idp/a", TokenEndpoint: "https://idp/t"})
	require.ErrorContains(t, err, `consent cannot be turned off while the redirect URI pattern "https://*" is allowed`)
	p, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: "https://mcp.example", ClientID: "x", DisableConsent: true,
		AllowedRedirectURIPatterns: []string{"http://localhost:*", "https://app.example/cb"}},
		AuthorizationEndpoint: "https://idp/a", TokenEndpoint: "https://idp/t"})
	require.NoError(t, err)
	require.NoError(t, p.Close())
}

func TestThreatConsentCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	b := browser(t)
	resp := do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
	page := do(t, b, "GET", e.ts.URL+resp.Header.Get("Location"), nil, nil)
	body := readBody(t, page)
	assert.Equal(t, "DENY", page.Header.Get("X-Frame-Options"))
	assert.Contains(t, page.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Equal(t, "no-store", page.Header.Get("Cache-Control"))
	assert.Contains(t, body, "127.0.0.1:9999", "the redirect host is shown")
	assert.Contains(t, body, "Test &lt;App&gt;", "the client name is shown, escaped")
	var csrfCookieSeen bool
	for _, ck := range page.Cookies() {
		if ck.Name == "mcp_csrf" {
			csrfCookieSeen = true
			assert.True(t, ck.HttpOnly)
			assert.Equal(t, http.SameSiteLaxMode, ck.SameSite)
		}
	}
	assert.True(t, csrfCookieSeen)
	f := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(body, -1) {
		f.Set(m[1], m[2])
	}
	f.Set("action", "approve")

	attacker := browser(t) // no cookie
	resp = do(t, attacker, "POST", e.ts.URL+ConsentPath, f, nil)
	assert.Equal(t, 403, resp.StatusCode, "POST without the CSRF cookie")
	resp.Body.Close()
	resp = do(t, b, "POST", e.ts.URL+ConsentPath, f, http.Header{"Sec-Fetch-Site": {"cross-site"}})
	assert.Equal(t, 403, resp.StatusCode, "cross-site POST")
	resp.Body.Close()
	resp = do(t, b, "POST", e.ts.URL+ConsentPath, f, http.Header{"Origin": {"https://evil.example"}})
	assert.Equal(t, 403, resp.StatusCode, "foreign Origin")
	resp.Body.Close()
	bad := url.Values{"txn": {f.Get("txn")}, "csrf": {"forged"}, "action": {"approve"}}
	resp = do(t, b, "POST", e.ts.URL+ConsentPath, bad, nil)
	assert.Equal(t, 403, resp.StatusCode, "wrong CSRF token")
	resp.Body.Close()
	// The cookie of another transaction does not approve this one.
	other := e.consent(b, e.authorizeURL(c, nil))
	resp = do(t, b, "POST", e.ts.URL+ConsentPath, f, nil) // b's cookie is now other's
	assert.Equal(t, 403, resp.StatusCode, "cookie of another transaction")
	resp.Body.Close()
	other.Set("action", "approve")
	resp = do(t, b, "POST", e.ts.URL+ConsentPath, other, nil)
	assert.Equal(t, 303, resp.StatusCode, "the real form still works")
	resp.Body.Close()
	resp = do(t, b, "PUT", e.ts.URL+ConsentPath, nil, nil)
	assert.Equal(t, 405, resp.StatusCode)
	resp.Body.Close()
}

func TestThreatConsentDenyCarriesIss(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	b := browser(t)
	f := e.consent(b, e.authorizeURL(c, nil))
	f.Set("action", "deny")
	resp := do(t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(t, 303, resp.StatusCode)
	u, _ := url.Parse(resp.Header.Get("Location"))
	assert.Equal(t, "access_denied", u.Query().Get("error"))
	assert.Equal(t, "client-state", u.Query().Get("state"))
	assert.Equal(t, e.ts.URL, u.Query().Get("iss"))
	assert.Equal(t, 0, e.idp.logins, "a denial never reaches upstream")
}

func TestThreatConsentBypassAcrossBrowsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	jarA, jarB := browser(t), browser(t)
	f := e.consent(jarA, e.authorizeURL(c, nil))
	f.Set("action", "approve")
	resp := do(t, jarA, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(t, 303, resp.StatusCode)
	upstream := resp.Header.Get("Location")
	// The attacker sends the approved upstream URL to a victim (jar B).
	resp = do(t, jarB, "GET", upstream, nil, nil)
	require.Equal(t, 302, resp.StatusCode)
	resp = do(t, jarB, "GET", resp.Header.Get("Location"), nil, nil)
	assert.Equal(t, 403, resp.StatusCode, "the callback needs the approving browser's binding cookie")
	assert.Empty(t, resp.Header.Get("Location"), "no code is issued")
	resp.Body.Close()
}

func TestThreatPKCEDowngrade(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	b := browser(t)
	for name, extra := range map[string]url.Values{
		"no challenge": {"code_challenge": {""}},
		"plain":        {"code_challenge_method": {"plain"}, "code_challenge": {verifier}},
		"no method":    {"code_challenge_method": {""}},
	} {
		resp := do(t, b, "GET", e.authorizeURL(c, extra), nil, nil)
		resp.Body.Close()
		require.Equal(t, 302, resp.StatusCode, name)
		u, _ := url.Parse(resp.Header.Get("Location"))
		assert.Equal(t, "invalid_request", u.Query().Get("error"), name)
		assert.Equal(t, e.ts.URL, u.Query().Get("iss"), name)
	}
	u := e.login(b, c)
	st, out := e.token(c, url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}, "code_verifier": {strings.Repeat("x", 43)}})
	assert.Equal(t, 400, st)
	assert.Equal(t, "invalid_grant", out["error"])
	st, out = e.exchange(c, u.Query().Get("code"))
	assert.Equal(t, 400, st, "the code is burnt by the failed attempt")
	assert.Equal(t, "invalid_grant", out["error"])
	u = e.login(b, c)
	st, out = e.token(c, url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}})
	assert.Equal(t, 400, st, "missing verifier")
	assert.Equal(t, "invalid_grant", out["error"])
}

func TestThreatCodeReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	u := e.login(browser(t), c)
	code := u.Query().Get("code")
	st, tok := e.exchange(c, code)
	require.Equal(t, 200, st)
	st, out := e.exchange(c, code)
	assert.Equal(t, 400, st)
	assert.Equal(t, "invalid_grant", out["error"])
	got, _ := e.call(tok["access_token"].(string))
	assert.Equal(t, 401, got, "a replayed code revokes the tokens of the first exchange")
	st, _ = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	assert.Equal(t, 400, st)

	// 50 concurrent redemptions of one code: exactly one wins.
	u = e.login(browser(t), c)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			form := url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")}, "code_verifier": {verifier}, "client_id": {c.ID}}
			resp, err := http.PostForm(e.ts.URL+TokenPath, form)
			if err == nil {
				if resp.StatusCode == 200 {
					wins.Add(1)
				}
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load())
}

// TestThreatLostRaceIsNotServedAgain: a use of a code that finds it
// marked used by a use whose refresh token is gone is served again only
// while the grant lives. A use that lost a race to another (it revoked
// the grant as a replay, then deleted the refresh token it had stored)
// leaves exactly that state behind; a third use must not win then. The
// 50 concurrent redemptions of TestThreatCodeReplay hit this
// interleaving now and then, and two won.
func TestThreatLostRaceIsNotServedAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	code := e.login(browser(t), c).Query().Get("code")
	st, tok := e.exchange(c, code)
	require.Equal(t, 200, st)
	gid, _, _ := strings.Cut(code, ".")
	ctx := context.Background()
	require.NoError(t, e.p.store.Delete(ctx, "grant:"+gid), "the loser revokes the grant…")
	require.NoError(t, e.p.store.Delete(ctx, "rt:"+hashKey(tok["refresh_token"].(string))), "…then deletes its refresh token")

	st, out := e.exchange(c, code)
	assert.Equal(t, 400, st, "the code is not served again: %v", out)
	assert.Equal(t, "invalid_grant", out["error"])
}

func TestThreatRefreshReuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("client_secret_post")
	u := e.login(browser(t), c)
	_, tok := e.exchange(c, u.Query().Get("code"))
	rt1 := tok["refresh_token"].(string)
	st, tok2 := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt1}})
	require.Equal(t, 200, st)
	st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt1}})
	assert.Equal(t, 400, st)
	assert.Equal(t, "invalid_grant", out["error"])
	st, _ = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok2["refresh_token"].(string)}})
	assert.Equal(t, 400, st, "reuse revokes the whole family, successor included")
	got, _ := e.call(tok2["access_token"].(string))
	assert.Equal(t, 401, got)
}

func TestThreatCrossClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.register("none"), e.register("client_secret_post")
	u := e.login(browser(t), a)
	st, out := e.exchange(b, u.Query().Get("code"))
	assert.Equal(t, 400, st, "client B redeems A's code")
	assert.Equal(t, "invalid_grant", out["error"])

	u = e.login(browser(t), a)
	_, tok := e.exchange(a, u.Query().Get("code"))
	st, out = e.token(b, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	assert.Equal(t, 400, st, "client B uses A's refresh token")
	assert.Equal(t, "invalid_grant", out["error"])
	st, out = e.token(regd{ID: b.ID, Secret: "wrong"}, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}})
	assert.Equal(t, 401, st)
	assert.Equal(t, "invalid_client", out["error"])

	got, _ := e.call(tok["refresh_token"].(string))
	assert.Equal(t, 401, got, "a refresh token is not a bearer token")
	got, _ = e.call("up-at-1")
	assert.Equal(t, 401, got, "the upstream token is not accepted")
	resp := do(t, http.DefaultClient, "GET", e.ts.URL+"/mcp?access_token="+url.QueryEscape(tok["access_token"].(string)), nil, nil)
	assert.Equal(t, 401, resp.StatusCode, "tokens in the query string are ignored")
	resp.Body.Close()

	resp = do(t, browser(t), "GET", e.authorizeURL(a, url.Values{"resource": {"https://other.example/mcp"}}), nil, nil)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	assert.Equal(t, "invalid_target", loc.Query().Get("error"))
	resp.Body.Close()
}

// forge mints a token with the proxy's own key and the given changes.
func forge(t *testing.T, e *env, mod func(*AccessTokenClaims)) string {
	c := e.register("none")
	u := e.login(browser(t), c)
	_, tok := e.exchange(c, u.Query().Get("code"))
	claims, err := e.p.jwt.verify(tok["access_token"].(string), time.Now())
	require.NoError(t, err)
	mod(claims)
	s, err := e.p.jwt.mint(*claims)
	require.NoError(t, err)
	return s
}

func TestThreatWrongAudienceExpiredTampered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	check := func(name, tok, want string) {
		req, _ := http.NewRequest("GET", "/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		_, err := e.p.VerifyRequest(req)
		require.ErrorIs(t, err, mcp.ErrUnauthorized, name)
		assert.ErrorContains(t, err, want, name)
	}
	check("wrong audience", forge(t, e, func(c *AccessTokenClaims) { c.Audience = jwt.Audience{"https://other.example/mcp"} }), "another resource")
	check("wrong issuer", forge(t, e, func(c *AccessTokenClaims) { c.Issuer = "https://evil.example" }), "another issuer")
	check("expired", forge(t, e, func(c *AccessTokenClaims) {
		c.Expiry = jwt.NewNumericDate(time.Now().Add(-2 * ClockSkew))
	}), "expired")
	// Within the clock skew an expired token still passes.
	req, _ := http.NewRequest("GET", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+forge(t, e, func(c *AccessTokenClaims) {
		c.Expiry = jwt.NewNumericDate(time.Now().Add(-ClockSkew / 3))
	}))
	_, err := e.p.VerifyRequest(req)
	assert.NoError(t, err, "small clock skew is allowed")

	good := forge(t, e, func(*AccessTokenClaims) {})
	parts := strings.Split(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := strings.Replace(string(payload), `"scope":"read write"`, `"scope":"admin rea"`, 1)
	require.NotEqual(t, string(payload), tampered)
	check("tampered payload", parts[0]+"."+base64.RawURLEncoding.EncodeToString([]byte(tampered))+"."+parts[2], "signature")
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt"}`))
	check("alg none", none+"."+parts[1]+".", "malformed")
	check("garbage", "abc", "malformed")

	other := newEnv(t, func(c *OAuthProviderConfig) { c.JWTSigningKey = strings.Repeat("z", 32) })
	req, _ = http.NewRequest("GET", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	_, err = other.p.VerifyRequest(req)
	assert.ErrorIs(t, err, mcp.ErrUnauthorized, "a token signed with another key")
	_, err = e.p.VerifyRequest(httptest_noauth())
	assert.ErrorContains(t, err, "no bearer token")
}

func httptest_noauth() *http.Request {
	r, _ := http.NewRequest("GET", "/mcp", nil)
	return r
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	u := e.login(browser(t), c)
	_, tok := e.exchange(c, u.Query().Get("code"))
	at := tok["access_token"].(string)
	resp := do(t, http.DefaultClient, "POST", e.ts.URL+RevokePath, url.Values{"token": {at}, "client_id": {c.ID}}, nil)
	assert.Equal(t, 200, resp.StatusCode)
	resp.Body.Close()
	got, _ := e.call(at)
	assert.Equal(t, 401, got, "a revoked access token is refused")
	resp = do(t, http.DefaultClient, "POST", e.ts.URL+RevokePath, url.Values{"token": {tok["refresh_token"].(string)}, "client_id": {c.ID}}, nil)
	assert.Equal(t, 200, resp.StatusCode)
	resp.Body.Close()
	st, _ := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	assert.Equal(t, 400, st)
	resp = do(t, http.DefaultClient, "POST", e.ts.URL+RevokePath, url.Values{"token": {"unknown"}, "client_id": {c.ID}}, nil)
	assert.Equal(t, 200, resp.StatusCode, "unknown tokens get 200")
	resp.Body.Close()
}
