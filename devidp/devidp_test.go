package devidp_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/devidp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

var alice = devidp.User{Subject: "alice-1", Email: "alice@example.com", Name: "Alice"}

// callback is a client's redirect URI on 127.0.0.1: it records the query
// of each request it gets.
type callback struct {
	*httptest.Server
	mu   sync.Mutex
	last url.Values
}

func newCallback(t *testing.T) *callback {
	c := &callback{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.last = r.URL.Query()
		c.mu.Unlock()
		_, _ = io.WriteString(w, "signed in")
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *callback) query() url.Values {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

func pkce() (verifier, challenge string) {
	verifier = strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestOwnServerSignsInWithAutoApprove: a user's own MCP server, whose OAuth
// proxy (package providers, consent off) has the dev provider as its
// upstream, signs a user in through the whole authorization code flow with
// an http.Client that follows redirects: no page, no form. The proxy
// verifies the provider's ID token (OpenID Connect discovery, JWKS,
// nonce) and the tool sees the configured user.
func TestOwnServerSignsInWithAutoApprove(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	idp, err := devidp.Start(devidp.Config{Users: []devidp.User{alice, devidp.DefaultUser()}, AutoApprove: true, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = idp.Close() })

	auth, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{
			BaseURL: base, ClientID: idp.ClientID(), ClientSecret: idp.ClientSecret(),
			Scopes: []string{"openid", "profile", "email"}, DisableConsent: true,
			AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"}, Logger: quiet,
		},
		AuthorizationEndpoint: idp.AuthorizationEndpoint(), TokenEndpoint: idp.TokenEndpoint(), Issuer: idp.Issuer(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = auth.Close() })
	srv := mcp.NewServer(mcp.Options{Name: "mine", Version: "1.0.0", Auth: auth, Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, _ := providers.SessionOf(c.Session)
		return s.UserID + " " + s.Claims["email"].(string), nil
	})
	h := mcphttp.New(srv, nil)
	hs := &http.Server{Handler: mcphttp.NewMux(h, nil), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); _ = h.Close() })

	cb := newCallback(t)
	resp, err := http.Post(base+providers.RegisterPath, "application/json",
		strings.NewReader(`{"redirect_uris":["`+cb.URL+`/cb"],"token_endpoint_auth_method":"none","client_name":"test"}`))
	require.NoError(t, err)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reg))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	verifier, challenge := pkce()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {cb.URL + "/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st"}, "resource": {base + "/mcp"}}
	resp, err = browser.Get(base + providers.AuthorizePath + "?" + q.Encode())
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.Equal(t, "signed in", string(body), "the browser ended at the client's redirect URI")
	back := cb.query()
	require.Equal(t, "st", back.Get("state"))
	require.NotEmpty(t, back.Get("code"))

	resp, err = http.PostForm(base+providers.TokenPath, url.Values{"grant_type": {"authorization_code"}, "client_id": {reg.ClientID},
		"code": {back.Get("code")}, "code_verifier": {verifier}, "redirect_uri": {cb.URL + "/cb"}, "resource": {base + "/mcp"}})
	require.NoError(t, err)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.HTTP(base+"/mcp", &client.HTTPOptions{
		Header: http.Header{"Authorization": {"Bearer " + tok.AccessToken}}}), &client.Options{Logger: quiet})
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "generic:alice-1 alice@example.com", res.Text(), "the first configured user, auto-approved")
}

// TestIDTokenVerifiesWithGoOIDC: the confidential client's flow against
// the provider alone, as a relying party does it with golang.org/x/oauth2
// and go-oidc: discovery, the code exchange with PKCE, the ID token
// verified against the JWKS (issuer, audience, expiry), its nonce and
// claims; a refresh works once; userinfo answers with the same user.
func TestIDTokenVerifiesWithGoOIDC(t *testing.T) {
	t.Parallel()
	cb := newCallback(t)
	idp, err := devidp.Start(devidp.Config{Users: []devidp.User{alice}, AutoApprove: true, Logger: quiet,
		RedirectURIs: []string{cb.URL + "/cb"}})
	require.NoError(t, err)
	defer idp.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(ctx, idp.Issuer())
	require.NoError(t, err)
	conf := &oauth2.Config{ClientID: idp.ClientID(), ClientSecret: idp.ClientSecret(), Endpoint: op.Endpoint(),
		RedirectURL: cb.URL + "/cb", Scopes: []string{oidc.ScopeOpenID, "email"}}
	verifier := oauth2.GenerateVerifier()
	resp, err := http.Get(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oidc.Nonce("n-1")))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	back := cb.query()
	assert.Equal(t, idp.Issuer(), back.Get("iss"), "RFC 9207")
	tok, err := conf.Exchange(ctx, back.Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	raw, _ := tok.Extra("id_token").(string)
	idt, err := op.Verifier(&oidc.Config{ClientID: idp.ClientID()}).Verify(ctx, raw)
	require.NoError(t, err)
	assert.Equal(t, "alice-1", idt.Subject)
	assert.Equal(t, "n-1", idt.Nonce)
	var claims struct {
		Email    string `json:"email"`
		Verified bool   `json:"email_verified"`
		Name     string `json:"name"`
	}
	require.NoError(t, idt.Claims(&claims))
	assert.Equal(t, "alice@example.com", claims.Email)
	assert.True(t, claims.Verified)
	assert.Equal(t, "Alice", claims.Name)
	info, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	require.NoError(t, err)
	assert.Equal(t, "alice-1", info.Subject)

	_, err = conf.Exchange(ctx, back.Get("code"), oauth2.VerifierOption(verifier))
	require.Error(t, err, "a code is used once")
	fresh, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	require.NoError(t, err)
	assert.NotEqual(t, tok.AccessToken, fresh.AccessToken)
	_, err = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	require.Error(t, err, "a refresh token is used once")
}

// consentPage gets the consent page in browser b and returns it with the
// values of its hidden fields.
func consentPage(t *testing.T, b *http.Client, authURL string) (string, url.Values) {
	t.Helper()
	resp, err := b.Get(authURL)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(page))
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`).FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	return string(page), form
}

func authURL(p *devidp.Provider, redirect string) string {
	_, challenge := pkce()
	return p.AuthorizationEndpoint() + "?" + url.Values{"response_type": {"code"}, "client_id": {p.ClientID()},
		"redirect_uri": {redirect}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st"}}.Encode()
}

// noFollow is a browser that stops at each redirect.
func noFollow(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestConsentPageWithoutAutoApprove: without AutoApprove /authorize shows
// the consent page (every user to choose from, the client and where the
// browser goes next, framing forbidden); approving as the second user
// sends the browser back with a code for that user, denying with
// access_denied; each page is answered once.
func TestConsentPageWithoutAutoApprove(t *testing.T) {
	t.Parallel()
	cb := newCallback(t)
	idp, err := devidp.Start(devidp.Config{Users: []devidp.User{devidp.DefaultUser(), alice}, Logger: quiet})
	require.NoError(t, err)
	defer idp.Close()
	b := noFollow(t)

	resp, err := b.Get(authURL(idp, cb.URL+"/cb"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a page, not a redirect")
	assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")

	page, form := consentPage(t, b, authURL(idp, cb.URL+"/cb"))
	assert.Contains(t, page, devidp.ConsentPageTitle)
	assert.Contains(t, page, "alice@example.com")
	assert.Contains(t, page, "dev@example.com")
	assert.Contains(t, page, cb.URL+"/cb")
	require.NotEmpty(t, form.Get("request"))
	require.NotEmpty(t, form.Get("csrf"))
	form.Set("user", "alice-1")
	form.Set("action", "approve")
	resp, err = b.PostForm(idp.AuthorizationEndpoint(), form)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, cb.URL+"/cb", loc.Scheme+"://"+loc.Host+loc.Path)
	assert.Equal(t, "st", loc.Query().Get("state"))
	code := loc.Query().Get("code")
	require.NotEmpty(t, code)

	resp, err = b.PostForm(idp.AuthorizationEndpoint(), form)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a page is answered once")

	verifier, _ := pkce()
	resp, err = http.PostForm(idp.TokenEndpoint(), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {cb.URL + "/cb"}, "client_id": {idp.ClientID()}, "client_secret": {idp.ClientSecret()}})
	require.NoError(t, err)
	var tok struct {
		IDToken string `json:"id_token"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	op, err := oidc.NewProvider(context.Background(), idp.Issuer())
	require.NoError(t, err)
	idt, err := op.Verifier(&oidc.Config{ClientID: idp.ClientID()}).Verify(context.Background(), tok.IDToken)
	require.NoError(t, err)
	assert.Equal(t, "alice-1", idt.Subject, "the user chosen on the page")

	_, form = consentPage(t, b, authURL(idp, cb.URL+"/cb"))
	form.Set("action", "deny")
	resp, err = b.PostForm(idp.AuthorizationEndpoint(), form)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	loc, err = url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "access_denied", loc.Query().Get("error"))
	assert.Empty(t, loc.Query().Get("code"))
}

// TestAutoApproveOnlyFromLoopback: AutoApprove signs in at once only a
// request whose peer is a loopback address; from any other address the
// consent page is shown.
func TestAutoApproveOnlyFromLoopback(t *testing.T) {
	t.Parallel()
	p, err := devidp.New(devidp.Config{Issuer: "http://127.0.0.1:9999/idp", AutoApprove: true, Logger: quiet})
	require.NoError(t, err)
	for _, tc := range []struct {
		remote string
		want   int
	}{
		{"127.0.0.1:40000", http.StatusFound},
		{"[::1]:40000", http.StatusFound},
		{"192.0.2.10:40000", http.StatusOK},
		{"[2001:db8::1]:40000", http.StatusOK},
		{"10.0.0.1:40000", http.StatusOK},
		{"garbage", http.StatusOK},
	} {
		r := httptest.NewRequest(http.MethodGet, authURL(p, "http://localhost:8000/oauth/callback"), nil)
		r.RemoteAddr = tc.remote
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		assert.Equal(t, tc.want, w.Code, tc.remote)
		if tc.want == http.StatusOK {
			assert.Contains(t, w.Body.String(), devidp.ConsentPageTitle, tc.remote)
		}
	}
}

// TestRefusesNonLoopback: Start refuses to listen, and New to be served,
// on an address that is not loopback unless AllowNonLoopback; bad
// settings are clear errors.
func TestRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  devidp.Config
		err  string
	}{
		{"all interfaces", devidp.Config{Addr: "0.0.0.0:0"}, "not a loopback address"},
		{"a public name", devidp.Config{Addr: "example.com:0"}, "not a loopback address"},
		{"no port", devidp.Config{Addr: "127.0.0.1"}, "Config.Addr"},
	} {
		tc.cfg.Logger = quiet
		_, err := devidp.Start(tc.cfg)
		assert.ErrorContains(t, err, tc.err, tc.name)
	}
	for _, tc := range []struct {
		name string
		cfg  devidp.Config
		err  string
	}{
		{"no issuer", devidp.Config{}, "Config.Issuer is required"},
		{"public issuer", devidp.Config{Issuer: "https://idp.example.com"}, "not on a loopback host"},
		{"trailing slash", devidp.Config{Issuer: "http://127.0.0.1:1/"}, "trailing slash"},
		{"query", devidp.Config{Issuer: "http://127.0.0.1:1?x=1"}, "without query"},
		{"scheme", devidp.Config{Issuer: "ftp://127.0.0.1:1"}, "http(s) URL"},
		{"user without subject", devidp.Config{Issuer: "http://127.0.0.1:1", Users: []devidp.User{{Email: "a@b"}}}, "no Subject"},
		{"same subject twice", devidp.Config{Issuer: "http://127.0.0.1:1", Users: []devidp.User{alice, alice}}, "appears twice"},
		{"relative redirect", devidp.Config{Issuer: "http://127.0.0.1:1", RedirectURIs: []string{"/cb"}}, "RedirectURIs"},
	} {
		tc.cfg.Logger = quiet
		_, err := devidp.New(tc.cfg)
		assert.ErrorContains(t, err, tc.err, tc.name)
	}
	p, err := devidp.New(devidp.Config{Issuer: "https://idp.test.internal", AllowNonLoopback: true, Logger: quiet})
	require.NoError(t, err, "allowed when asked")
	assert.Equal(t, "https://idp.test.internal", p.Issuer())
}

// TestStartWarns: starting logs a warning that names the issuer.
func TestStartWarns(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(b)
	}), nil))
	p, err := devidp.Start(devidp.Config{Logger: log})
	require.NoError(t, err)
	require.NoError(t, p.Close())
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, buf.String(), "level=WARN")
	assert.Contains(t, buf.String(), "never expose it")
	assert.Contains(t, buf.String(), p.Issuer())
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
