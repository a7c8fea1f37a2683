package e2e

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

// TestConsentPageBehindTheMCPMux: the proxy's consent page served as an
// MCP server serves it (mcp.Options.Auth, mcphttp.NewMux, whose
// DNS-rebinding check judges every route's Origin) works in a browser:
// Approve posts the form with the page's own Origin, not "null" (what a
// browser sends for a form of a page whose referrer policy is
// no-referrer, which the check rightly refuses), and the client gets its
// code. It failed before the pages' referrer policy became same-origin.
func TestConsentPageBehindTheMCPMux(t *testing.T) {
	idp := newFlowIdP(t)
	w := &consentWorld{hits: make(chan url.Values, 4), http: http.DefaultClient}
	cm := http.NewServeMux()
	cm.HandleFunc("GET /callback", func(rw http.ResponseWriter, r *http.Request) {
		w.hits <- r.URL.Query()
		_, _ = rw.Write([]byte("back at the client"))
	})
	w.client = httptest.NewServer(cm)
	t.Cleanup(w.client.Close)
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{BaseURL: base, ClientID: "up-client", ClientSecret: "up-secret", Scopes: []string{"openid", "profile", "email"},
			JWTSigningKey: strings.Repeat("j", 32), EncryptionKey: strings.Repeat("e", 32), Logger: slog.New(slog.DiscardHandler)},
		AuthorizationEndpoint: idp.URL + "/authorize", TokenEndpoint: idp.URL + "/token", UserInfoEndpoint: idp.URL + "/userinfo",
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	srv := mcp.NewServer(mcp.Options{Name: "consent-mux", Version: "1.0.0", Auth: p, Logger: slog.New(slog.DiscardHandler)})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ts.Config.Handler = mcphttp.NewMux(h, nil)
	ts.Start()
	t.Cleanup(ts.Close)
	w.server, w.proxy = ts, p

	ctx := newChromium(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(idp.URL+"/login?as=alice")))
	client := w.register(t, "Acme Notes")
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(w.authorizeURL(client, state, verifier)), chromedp.WaitVisible(chromedp.ID("approve"))))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve"))))
	q := w.nextHit(t)
	require.Empty(t, q.Get("error"), "%v", q)
	assert.NotEmpty(t, q.Get("code"), "the consent page's Approve reached the client")
	assert.Equal(t, state, q.Get("state"))
}
