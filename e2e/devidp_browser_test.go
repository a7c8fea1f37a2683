package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/devidp"
)

// devIdPAuthURL is an authorization request of the provider's
// confidential client to redirect.
func devIdPAuthURL(p *devidp.Provider, redirect string) string {
	sum := sha256.Sum256([]byte(strings.Repeat("v", 43)))
	return p.AuthorizationEndpoint() + "?" + url.Values{"response_type": {"code"}, "client_id": {p.ClientID()},
		"redirect_uri": {redirect}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"}, "state": {"st"}}.Encode()
}

// TestDevIdPInBrowser drives package devidp in headless Chromium: without
// AutoApprove the consent page is shown under its CSP and Approve (as the
// second user) sends the browser to the client with a code; with
// AutoApprove a navigation arrives there at once; and a script of another
// origin that fetches /authorize, with the provider's own JWKS (which
// answers with CORS headers) as the redirect URI, never reads a code, nor
// does one of a name rebound to 127.0.0.1 (DNS rebinding).
func TestDevIdPInBrowser(t *testing.T) {
	var mu sync.Mutex
	var hits []url.Values
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" { // the other origin's page
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<!doctype html><title>other</title>")
			return
		}
		if r.URL.Path == "/cb" { // not the browser's /favicon.ico
			mu.Lock()
			hits = append(hits, r.URL.Query())
			mu.Unlock()
		}
		_, _ = io.WriteString(w, "back at the client")
	}))
	defer client.Close()
	last := func() url.Values {
		mu.Lock()
		defer mu.Unlock()
		if len(hits) == 0 {
			return nil
		}
		return hits[len(hits)-1]
	}
	quiet := slog.New(slog.DiscardHandler)
	bob := devidp.User{Subject: "bob-2", Email: "bob@example.com", Name: "Bob"}
	page, err := devidp.Start(devidp.Config{Users: []devidp.User{devidp.DefaultUser(), bob}, Logger: quiet})
	require.NoError(t, err)
	defer page.Close()
	auto, err := devidp.Start(devidp.Config{AutoApprove: true, Logger: quiet})
	require.NoError(t, err)
	defer auto.Close()

	ctx := newChromium(t)
	violations := cspErrors(t, ctx)

	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(devIdPAuthURL(page, client.URL+"/cb")))
	require.NoError(t, err)
	require.Equal(t, int64(http.StatusOK), resp.Status)
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("title")))
	require.NoError(t, err)
	assert.Equal(t, devidp.ConsentPageTitle, title)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`input[value="bob-2"]`), chromedp.Click(chromedp.ID("approve"))))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(`body`)))
	require.Eventually(t, func() bool { return last().Get("code") != "" }, 10*time.Second, 50*time.Millisecond, "approve sends the browser to the client")
	assert.Equal(t, "st", last().Get("state"))
	assert.Empty(t, violations(), "no CSP violation on the page or its form's redirect")

	mu.Lock()
	hits = nil
	mu.Unlock()
	resp, err = chromedp.Run(ctx, chromedp.NavigateResponse(devIdPAuthURL(auto, client.URL+"/cb")))
	require.NoError(t, err)
	require.Equal(t, int64(http.StatusOK), resp.Status)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(loc, client.URL+"/cb?"), "auto-approved at once: %s", loc)
	assert.NotEmpty(t, last().Get("code"))

	_, err = chromedp.Run(ctx, chromedp.NavigateResponse(client.URL+"/page"))
	require.NoError(t, err)
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+"`"+devIdPAuthURL(auto, auto.Issuer()+"/jwks")+"`"+`)
		.then(r => "read: " + r.url, e => "refused: " + e)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.NotContains(t, got, "code=", "a script of another origin reads no code")
	t.Logf("the other origin's fetch: %s", got)

	// DNS rebinding: Chromium resolves every *.localhost name to
	// loopback, as a rebound name would. A page at such a name and the
	// provider's port would be the provider's origin: its same-origin
	// fetch of /authorize needs no CORS, and the redirect to the JWKS
	// does not need more than the JWKS's own CORS headers.
	au, err := url.Parse(auto.Issuer())
	require.NoError(t, err)
	rebound := "http://rebound.localhost:" + au.Port()
	resp, err = chromedp.Run(ctx, chromedp.NavigateResponse(rebound+"/jwks"))
	require.NoError(t, err)
	assert.Equal(t, int64(http.StatusForbidden), resp.Status, "a rebound Host is refused")
	got, err = chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+"`"+strings.Replace(devIdPAuthURL(auto, auto.Issuer()+"/jwks"), auto.Issuer(), rebound, 1)+"`"+`)
		.then(r => "read: " + r.url, e => "refused: " + e)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.NotContains(t, got, "code=", "a rebound page's script reads no code")
	t.Logf("the rebound page's fetch: %s", got)
}
