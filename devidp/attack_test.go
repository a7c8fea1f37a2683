package devidp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/devidp"
)

// TestNoOpenRedirect: /authorize redirects only to a redirect URI the
// client may use (any loopback http URI by default, exactly the configured
// ones otherwise); anything else is a plain 400 with no Location, so the
// provider cannot send a browser, code or error to another site.
func TestNoOpenRedirect(t *testing.T) {
	t.Parallel()
	open, err := devidp.Start(devidp.Config{AutoApprove: true, Logger: quiet})
	require.NoError(t, err)
	defer open.Close()
	exact, err := devidp.Start(devidp.Config{AutoApprove: true, Logger: quiet, RedirectURIs: []string{"http://localhost:8000/oauth/callback"}})
	require.NoError(t, err)
	defer exact.Close()
	b := noFollow(t)
	for _, tc := range []struct {
		p        *devidp.Provider
		redirect string
		ok       bool
	}{
		{open, "http://localhost:8000/oauth/callback", true},
		{open, "http://127.0.0.1:1/cb", true},
		{open, "http://[::1]:1/cb", true},
		{open, "https://evil.example/cb", false},
		{open, "http://evil.example/cb", false},
		{open, "http://127.0.0.1.evil.example/cb", false},
		{open, "http://localhost.evil.example/cb", false},
		{open, "http://localhost@evil.example/cb", false},
		{open, "http://evil.example@localhost/cb", false},
		{open, "http://localhost:1/cb#frag", false},
		{open, "//evil.example/cb", false},
		{open, "javascript:alert(1)", false},
		{open, "http:localhost", false},
		{open, "", false},
		{exact, "http://localhost:8000/oauth/callback", true},
		{exact, "http://localhost:8001/oauth/callback", false},
		{exact, "http://localhost:8000/oauth/callback/../x", false},
		{exact, "http://localhost:8000/oauth/callback?next=https://evil.example", false},
	} {
		resp, err := b.Get(authURL(tc.p, tc.redirect))
		require.NoError(t, err)
		resp.Body.Close()
		if tc.ok {
			assert.Equal(t, http.StatusFound, resp.StatusCode, tc.redirect)
			assert.True(t, strings.HasPrefix(resp.Header.Get("Location"), tc.redirect+"?"), resp.Header.Get("Location"))
		} else {
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, tc.redirect)
			assert.Empty(t, resp.Header.Get("Location"), tc.redirect)
		}
	}

	// A second redirect_uri (which one would be checked, which one used?)
	// and an unknown client are refused too.
	u := authURL(open, "http://localhost:1/cb") + "&redirect_uri=" + url.QueryEscape("https://evil.example/")
	resp, err := b.Get(u)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	u = strings.Replace(authURL(open, "http://localhost:1/cb"), "client_id=dev-client", "client_id=other", 1)
	resp, err = b.Get(u)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// TestConsentCSRF: the consent form's answer is taken only from the
// browser the page was shown to, with the page's token, posted from the
// provider's own origin: a page of another site that posts the form (with
// or without the victim's cookie, with a guessed or stolen request id)
// gets 403 and no code, and the real page still works afterwards.
func TestConsentCSRF(t *testing.T) {
	t.Parallel()
	idp, err := devidp.Start(devidp.Config{Logger: quiet})
	require.NoError(t, err)
	defer idp.Close()
	victim := noFollow(t)
	_, form := consentPage(t, victim, authURL(idp, "http://localhost:1/cb"))
	form.Set("action", "approve")
	form.Set("user", devidp.DefaultUser().Subject)

	post := func(b *http.Client, f url.Values, header map[string]string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, idp.AuthorizationEndpoint(), strings.NewReader(f.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := b.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	wrongToken := url.Values{}
	for k, v := range form {
		wrongToken[k] = v
	}
	wrongToken.Set("csrf", strings.Repeat("A", 32))
	noToken := url.Values{"request": {form.Get("request")}, "action": {"approve"}, "user": {devidp.DefaultUser().Subject}}
	for _, tc := range []struct {
		name   string
		b      *http.Client
		f      url.Values
		header map[string]string
		status int
	}{
		{"another site's form, the victim's cookie", victim, form, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"an opaque origin", victim, form, map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"fetch metadata: cross-site", victim, form, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"fetch metadata: same-site other port", victim, form, map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"the attacker's browser", noFollow(t), form, nil, http.StatusForbidden},
		{"no token", victim, noToken, nil, http.StatusForbidden},
		{"a wrong token", victim, wrongToken, nil, http.StatusForbidden},
		{"an unknown request", victim, url.Values{"request": {"x"}, "csrf": {form.Get("csrf")}, "action": {"approve"}}, nil, http.StatusBadRequest},
	} {
		resp := post(tc.b, tc.f, tc.header)
		assert.Equal(t, tc.status, resp.StatusCode, tc.name)
		assert.Empty(t, resp.Header.Get("Location"), tc.name)
	}
	resp := post(victim, form, map[string]string{"Origin": strings.TrimSuffix(idp.Issuer(), "/"), "Sec-Fetch-Site": "same-origin"})
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode, "the page itself still answers")
	assert.Contains(t, resp.Header.Get("Location"), "code=")
	_, bad := consentPage(t, victim, authURL(idp, "http://localhost:1/cb"))
	bad.Set("action", "approve")
	bad.Set("user", "someone-else")
	resp = post(victim, bad, nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "only a configured user")
}

// TestPKCE: PKCE S256 is required at /authorize (no challenge, plain, a
// malformed challenge: 400), and the code is exchanged only with the
// verifier, by the client it was issued to, with the same redirect URI,
// once.
func TestPKCE(t *testing.T) {
	t.Parallel()
	idp, err := devidp.Start(devidp.Config{AutoApprove: true, Logger: quiet})
	require.NoError(t, err)
	defer idp.Close()
	b := noFollow(t)
	verifier, challenge := pkce()
	q := func(method, ch string) string {
		v := url.Values{"response_type": {"code"}, "client_id": {idp.ClientID()}, "redirect_uri": {"http://localhost:1/cb"}}
		if method != "" {
			v.Set("code_challenge_method", method)
		}
		if ch != "" {
			v.Set("code_challenge", ch)
		}
		return idp.AuthorizationEndpoint() + "?" + v.Encode()
	}
	for _, u := range []string{q("", ""), q("S256", ""), q("", challenge), q("plain", verifier), q("S256", "short"),
		q("S256", strings.Repeat("+", 43))} {
		resp, err := b.Get(u)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, u)
	}
	code := func() string {
		resp, err := b.Get(q("S256", challenge))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusFound, resp.StatusCode)
		loc, err := url.Parse(resp.Header.Get("Location"))
		require.NoError(t, err)
		return loc.Query().Get("code")
	}
	exchange := func(f url.Values) int {
		resp, err := http.PostForm(idp.TokenEndpoint(), f)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	form := func(c, v, redirect string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {c}, "code_verifier": {v}, "redirect_uri": {redirect},
			"client_id": {idp.ClientID()}, "client_secret": {idp.ClientSecret()}}
	}
	for _, tc := range []struct {
		name string
		f    func(c string) url.Values
	}{
		{"no verifier", func(c string) url.Values { return form(c, "", "http://localhost:1/cb") }},
		{"wrong verifier", func(c string) url.Values { return form(c, strings.Repeat("w", 43), "http://localhost:1/cb") }},
		{"the challenge as verifier", func(c string) url.Values { return form(c, challenge, "http://localhost:1/cb") }},
		{"another redirect URI", func(c string) url.Values { return form(c, verifier, "http://localhost:2/cb") }},
		{"wrong secret", func(c string) url.Values {
			f := form(c, verifier, "http://localhost:1/cb")
			f.Set("client_secret", "x")
			return f
		}},
	} {
		status := exchange(tc.f(code()))
		assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnauthorized}, status, tc.name)
	}
	c := code()
	assert.Equal(t, http.StatusOK, exchange(form(c, verifier, "http://localhost:1/cb")))
	assert.Equal(t, http.StatusBadRequest, exchange(form(c, verifier, "http://localhost:1/cb")), "a code is used once")
}

// TestAutoApproveNotForScripts: a web page's script on this machine's
// browser that fetches /authorize (with redirect_uri the provider's own
// JWKS, which answers with CORS headers, it could read the code from the
// response's URL) gets the consent page, not a code: auto-approval is for
// navigations and plain HTTP clients only. A page of another site cannot
// register a public client either, and a name rebound to 127.0.0.1 (DNS
// rebinding) is refused by its Host.
func TestAutoApproveNotForScripts(t *testing.T) {
	t.Parallel()
	idp, err := devidp.Start(devidp.Config{AutoApprove: true, Audience: "http://localhost:8000/mcp", Logger: quiet})
	require.NoError(t, err)
	defer idp.Close()
	b := noFollow(t)
	get := func(u string, header map[string]string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		require.NoError(t, err)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if h, ok := header["Host"]; ok {
			req.Host = h
		}
		resp, err := b.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	leak := authURL(idp, idp.Issuer()+"/jwks")
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"a navigation", map[string]string{"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "cross-site"}, http.StatusFound},
		{"a plain HTTP client", nil, http.StatusFound},
		{"a cross-origin fetch", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Mode": "cors"}, http.StatusOK},
		{"a fetch without Fetch Metadata", map[string]string{"Origin": "https://evil.example"}, http.StatusOK},
		{"a no-cors fetch", map[string]string{"Sec-Fetch-Mode": "no-cors"}, http.StatusOK},
		{"a same-origin fetch", map[string]string{"Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	} {
		resp := get(leak, tc.header)
		assert.Equal(t, tc.status, resp.StatusCode, tc.name)
		if tc.status == http.StatusOK {
			assert.Empty(t, resp.Header.Get("Location"), tc.name)
			assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "%s: the page is not readable cross-origin", tc.name)
		}
	}

	u, err := url.Parse(idp.Issuer())
	require.NoError(t, err)
	_, port, _ := strings.Cut(u.Host, ":")
	for _, host := range []string{"evil.example:" + port, "127.0.0.1.evil.example:" + port} {
		for _, path := range []string{"/.well-known/openid-configuration", "/jwks"} {
			assert.Equal(t, http.StatusForbidden, get(idp.Issuer()+path, map[string]string{"Host": host}).StatusCode, host+path)
		}
		assert.Equal(t, http.StatusForbidden, get(authURL(idp, "http://localhost:1/cb"), map[string]string{"Host": host}).StatusCode, host)
	}
	assert.Equal(t, http.StatusOK, get(idp.Issuer()+"/jwks", map[string]string{"Host": "localhost:" + port}).StatusCode, "another loopback name")

	register := func(origin string) int {
		req, err := http.NewRequest(http.MethodPost, idp.Issuer()+"/register", strings.NewReader(`{"redirect_uris":["http://localhost:1/cb"]}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "text/plain")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusForbidden, register("https://evil.example"))
	assert.Equal(t, http.StatusForbidden, register("null"))
	assert.Equal(t, http.StatusCreated, register("http://localhost:6274"), "an MCP client's page on this machine")
	assert.Equal(t, http.StatusCreated, register(""), "an MCP client's own HTTP client")
}
