package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp/providers"
)

// The consent page is tested in a real browser: Debian's chromium, driven
// over the DevTools protocol by github.com/chromedp/chromedp. A browser is the only way to prove what an HTTP client
// cannot: that the page renders under its own Content-Security-Policy
// (inline style allowed by nonce, nothing else), that the form posts
// same-origin with the cookies a browser really keeps, and that the
// redirects after Approve and Deny are not blocked by form-action.

// chromiumPath is the browser the test drives; E2E_CHROMIUM overrides it.
func chromiumPath() string {
	if p := os.Getenv("E2E_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// artifactsDir is where screenshots go: $ARTIFACTS_DIR, or e2e/artifacts
// (gitignored).
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = "artifacts"
	}
	dir, err := filepath.Abs(dir)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// consentWorld is an OAuth proxy in front of an upstream that approves at
// once, and an MCP client's redirect URI that records what it receives.
type consentWorld struct {
	proxy    *providers.OAuthProvider
	server   *httptest.Server // the proxy (the MCP server's origin)
	upstream *httptest.Server
	client   *httptest.Server // the MCP client's redirect URI lives here
	hits     chan url.Values  // query of each request to the redirect URI
	http     *http.Client
}

func newConsentWorld(t *testing.T) *consentWorld {
	t.Helper()
	w := &consentWorld{hits: make(chan url.Values, 4)}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	w.http = &http.Client{Transport: tr, Timeout: 5 * time.Second}

	// Upstream: /authorize approves at once (the user is "already logged
	// in"), /token checks the PKCE verifier, /userinfo names alice.
	var mu sync.Mutex
	codes := map[string]string{} // code → S256 challenge
	um := http.NewServeMux()
	um.HandleFunc("GET /authorize", func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "upstream-client" || q.Get("code_challenge_method") != "S256" {
			http.Error(rw, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := rand.Text()
		mu.Lock()
		codes[code] = q.Get("code_challenge")
		mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(rw, r, back.String(), http.StatusFound)
	})
	um.HandleFunc("POST /token", func(rw http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		_ = r.ParseForm()
		mu.Lock()
		ch, ok := codes[r.PostForm.Get("code")]
		delete(codes, r.PostForm.Get("code"))
		mu.Unlock()
		if id != "upstream-client" || secret != "upstream-secret" || !ok || oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier")) != ch {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(rw, `{"error":"invalid_grant"}`)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, `{"access_token":"upstream-at","token_type":"Bearer","expires_in":3600}`)
	})
	um.HandleFunc("GET /userinfo", func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer upstream-at" {
			http.Error(rw, "no token", http.StatusUnauthorized)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, `{"sub":"alice","email":"alice@example.com"}`)
	})
	w.upstream = httptest.NewServer(um)
	t.Cleanup(w.upstream.Close)

	// The MCP client's redirect URI: records the query and shows a page.
	cm := http.NewServeMux()
	cm.HandleFunc("GET /callback", func(rw http.ResponseWriter, r *http.Request) {
		w.hits <- r.URL.Query()
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(rw, `<!doctype html><title>client</title><p id="done">back at the client</p>`)
	})
	w.client = httptest.NewServer(cm)
	t.Cleanup(w.client.Close)

	mux := http.NewServeMux()
	w.server = httptest.NewServer(mux)
	t.Cleanup(w.server.Close)
	p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{
			BaseURL: w.server.URL, ClientID: "upstream-client", ClientSecret: "upstream-secret",
			Scopes:        []string{"openid", "profile", "email"},
			JWTSigningKey: strings.Repeat("j", 32), EncryptionKey: strings.Repeat("e", 32),
			HTTPClient: w.http, Logger: slog.New(slog.DiscardHandler),
		},
		AuthorizationEndpoint: w.upstream.URL + "/authorize",
		TokenEndpoint:         w.upstream.URL + "/token",
		UserInfoEndpoint:      w.upstream.URL + "/userinfo",
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	p.Mount(mux)
	w.proxy = p
	return w
}

// register registers a public client by DCR (RFC 7591) and returns its
// OAuth configuration.
func (w *consentWorld) register(t *testing.T, name string) *oauth2.Config {
	t.Helper()
	redirect := w.client.URL + "/callback"
	body, err := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
	require.NoError(t, err)
	resp, err := w.http.Post(w.server.URL+providers.RegisterPath, "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.NotEmpty(t, out.ClientID)
	return &oauth2.Config{
		ClientID:    out.ClientID,
		RedirectURL: redirect,
		Scopes:      []string{"openid", "profile"},
		Endpoint: oauth2.Endpoint{AuthURL: w.server.URL + providers.AuthorizePath,
			TokenURL: w.server.URL + providers.TokenPath, AuthStyle: oauth2.AuthStyleInParams},
	}
}

// authorizeURL starts an authorization with PKCE S256 and a resource.
func (w *consentWorld) authorizeURL(c *oauth2.Config, state, verifier string) string {
	return c.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", w.proxy.Resource()))
}

// nextHit waits for the browser to arrive at the client's redirect URI.
func (w *consentWorld) nextHit(t *testing.T) url.Values {
	t.Helper()
	select {
	case q := <-w.hits:
		return q
	case <-time.After(10 * time.Second):
		t.Fatal("the browser never reached the client's redirect URI")
		return nil
	}
}

// newChromium starts headless Chromium with a fresh profile and returns a
// tab. It fails the test (never skips) when Chromium is missing: CI
// installs it (.ci/run), and a consent page nobody rendered is not tested.
func newChromium(t *testing.T) context.Context {
	t.Helper()
	exe := chromiumPath()
	_, err := os.Stat(exe)
	require.NoError(t, err, "Chromium is required for the consent page test: apt-get install -y chromium (or set E2E_CHROMIUM)")

	var out syncBuffer
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), // root in CI containers
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.WindowSize(1280, 900),
		chromedp.CombinedOutput(&out),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 25*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		if t.Failed() {
			t.Logf("chromium output:\n%s", out.String())
		}
	})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")), "starting %s", exe)
	return ctx
}

// cspErrors collects what the browser logs about Content-Security-Policy
// violations on the pages it shows.
func cspErrors(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && strings.Contains(e.Entry.Text, "Content Security Policy") {
			mu.Lock()
			seen = append(seen, e.Entry.Text)
			mu.Unlock()
		}
	}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})))
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// screenshot saves a full-page PNG of the current page at the given
// viewport width, in light or dark colour scheme.
func screenshot(t *testing.T, ctx context.Context, name string, width int64, mobile, dark bool) {
	t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	vp := []chromedp.EmulateViewportOption{chromedp.EmulateScale(2)}
	if mobile {
		vp = append(vp, chromedp.EmulateMobile, chromedp.EmulatePortrait)
	}
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(width, 800, vp...),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		}),
	))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := filepath.Join(artifactsDir(t), name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}

// TestConsentPageInBrowser drives the consent page in headless Chromium:
// the client's name (escaped) and the redirect host are shown; Approve
// completes the flow to a code that exchanges for a token; Deny returns
// access_denied; screenshots at desktop and phone width are kept.
func TestConsentPageInBrowser(t *testing.T) {
	w := newConsentWorld(t)
	const clientName = "Acme Notes"
	client := w.register(t, clientName)
	redirect, err := url.Parse(client.RedirectURL)
	require.NoError(t, err)

	ctx := newChromium(t)
	violations := cspErrors(t, ctx)

	t.Run("approve", func(t *testing.T) {
		verifier, state := oauth2.GenerateVerifier(), rand.Text()
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(w.authorizeURL(client, state, verifier)))
		require.NoError(t, err)
		require.Equal(t, int64(http.StatusOK), resp.Status)
		loc, err := chromedp.Run(ctx, chromedp.Location())
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(loc, w.server.URL+providers.ConsentPath+"?"), "the browser is on the consent page: %s", loc)

		hdr := func(k string) string {
			for name, v := range resp.Headers {
				if strings.EqualFold(name, k) {
					return fmt.Sprint(v)
				}
			}
			return ""
		}
		csp := hdr("Content-Security-Policy")
		for _, d := range []string{"default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "style-src 'nonce-"} {
			assert.Contains(t, csp, d, "the consent page's CSP")
		}
		assert.Equal(t, "DENY", hdr("X-Frame-Options"))
		assert.Equal(t, "same-origin", hdr("Referrer-Policy"))
		assert.Equal(t, "no-store", hdr("Cache-Control"))

		name, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("client-name")))
		require.NoError(t, err)
		assert.Equal(t, clientName, name, "the client name is shown")
		host, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("redirect-host")))
		require.NoError(t, err)
		assert.Equal(t, redirect.Host, strings.TrimSpace(host), "the redirect host is shown")
		full, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("redirect-uri")))
		require.NoError(t, err)
		assert.Equal(t, client.RedirectURL, strings.TrimSpace(full))
		// The inline style applies (its nonce matches the CSP): the card
		// has rounded corners, not the browser's default square box.
		radius, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("main")).borderTopLeftRadius`))
		require.NoError(t, err)
		assert.NotEqual(t, "0px", radius, "the page's stylesheet applies under its CSP")

		screenshot(t, ctx, "consent-desktop.png", 1280, false, false)
		screenshot(t, ctx, "consent-phone.png", 390, true, false)
		screenshot(t, ctx, "consent-phone-dark.png", 390, true, true)

		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve"))))
		q := w.nextHit(t)
		require.Empty(t, q.Get("error"), "approve: %v", q)
		require.NotEmpty(t, q.Get("code"))
		assert.Equal(t, state, q.Get("state"))
		assert.Equal(t, w.proxy.Issuer(), q.Get("iss"), "RFC 9207 iss")

		tctx := context.WithValue(context.Background(), oauth2.HTTPClient, w.http)
		tok, err := client.Exchange(tctx, q.Get("code"), oauth2.VerifierOption(verifier),
			oauth2.SetAuthURLParam("resource", w.proxy.Resource()))
		require.NoError(t, err, "the code exchanges for a token")
		assert.Equal(t, "Bearer", tok.Type())
		req := httptest.NewRequest(http.MethodPost, w.proxy.Resource(), nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		s, err := w.proxy.VerifyRequest(req)
		require.NoError(t, err, "the proxy accepts its own token")
		sess, ok := s.(*providers.OAuthSession)
		require.True(t, ok, "%T", s)
		assert.Equal(t, "generic:alice", sess.UserID)
		assert.Equal(t, client.ClientID, sess.ClientID)
	})

	t.Run("deny", func(t *testing.T) {
		// A client may register any name: the page shows it as text.
		const hostile = `Acme Notes <img src=x onerror=alert(1)><script>alert(2)</script>`
		client := w.register(t, hostile)
		verifier, state := oauth2.GenerateVerifier(), rand.Text()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(w.authorizeURL(client, state, verifier)),
			chromedp.WaitVisible(chromedp.ID("deny"))))
		name, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("client-name")))
		require.NoError(t, err)
		assert.Equal(t, hostile, name, "the client name is shown as text")
		injected, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.images.length + document.scripts.length`))
		require.NoError(t, err)
		assert.Zero(t, injected, "the client name injected no element")

		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("deny"))))
		q := w.nextHit(t)
		assert.Equal(t, "access_denied", q.Get("error"))
		assert.Empty(t, q.Get("code"))
		assert.Equal(t, state, q.Get("state"))
		assert.Equal(t, w.proxy.Issuer(), q.Get("iss"))
	})

	assert.Empty(t, violations(), "the browser reported Content-Security-Policy violations")
}
