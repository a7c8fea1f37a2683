package oauth_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/devidp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

// TestOAuthProxyEndToEnd: the client against mcpchain's own OAuth proxy
// (package providers, in front of the local identity provider of
// package devidp, auto-approving), over Streamable HTTP at 2025-11-25 and 2026-07-28
// (the deprecated HTTP+SSE transport: TestLegacySSEAuthorized; the
// proxy's resource is the /mcp endpoint, which /sse does not match, so
// the client refuses it, as the specification says): the first request gets a
// 401, the handler discovers, registers dynamically, sends the "browser"
// (an http.Client that follows every redirect) through the proxy and the
// identity provider to a Loopback, exchanges the code, and the call goes
// through with the user's identity; a second client reuses the token.
func TestOAuthProxyEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version mcp.Version
	}{
		{"HTTP 2025-11-25", mcp.Version20251125},
		{"HTTP 2026-07-28", mcp.Version20260728},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := startProxy(t)
			loop, err := oauth.ListenLoopback("/callback")
			require.NoError(t, err)
			defer loop.Close()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			jar, err := cookiejar.New(nil)
			require.NoError(t, err)
			browser := &http.Client{Transport: tr, Jar: jar, Timeout: 10 * time.Second}
			var opened int
			h := oauth.New(oauth.Config{
				ClientName:  "e2e",
				RedirectURL: loop.RedirectURL(),
				Authorize: loop.Authorize(func(authURL string) error {
					opened++
					go func() {
						resp, err := browser.Get(authURL)
						if err != nil {
							t.Logf("browser: %v", err)
							return
						}
						b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							t.Logf("browser: %s %d %s", resp.Request.URL, resp.StatusCode, b)
						}
					}()
					return nil
				}, 10*time.Second),
				HTTPClient: &http.Client{Transport: tr, Timeout: 10 * time.Second},
			})
			url := base + "/mcp"
			tran := client.HTTP(url, &client.HTTPOptions{Client: &http.Client{Transport: tr}, Auth: h})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := range 2 {
				c, err := client.Connect(ctx, tran, &client.Options{ProtocolVersion: tc.version,
					Logger: slog.New(slog.DiscardHandler)})
				require.NoError(t, err)
				res, err := c.CallTool(ctx, "whoami", nil, nil)
				require.NoError(t, err)
				assert.Equal(t, "generic:"+devidp.DefaultUser().Subject, res.Text(), "call %d", i)
				require.NoError(t, c.Close())
			}
			assert.Equal(t, 1, opened, "one authorization for both clients")
			tok, err := h.Token(ctx, url)
			require.NoError(t, err)
			require.NotNil(t, tok)
			assert.NotEmpty(t, tok.RefreshToken)
		})
	}
}

// startProxy serves a whoami tool behind the OAuth proxy on 127.0.0.1 and
// returns its base URL.
func startProxy(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	idp, err := devidp.Start(devidp.Config{RedirectURIs: []string{base + "/oauth/callback"}, AutoApprove: true,
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = idp.Close() })
	auth, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{
			BaseURL: base, ClientID: idp.ClientID(), ClientSecret: idp.ClientSecret(),
			Scopes: []string{"openid", "profile", "email"}, DisableConsent: true,
			AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"},
			Logger:                     slog.New(slog.DiscardHandler),
		},
		AuthorizationEndpoint: idp.Issuer() + "/authorize",
		TokenEndpoint:         idp.Issuer() + "/token",
		Issuer:                idp.Issuer(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = auth.Close() })
	srv := mcp.NewServer(mcp.Options{Name: "e2e", Version: "1.0.0", Auth: auth, Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, _ := providers.SessionOf(c.Session)
		return s.UserID, nil
	})
	h := mcphttp.New(srv, nil)
	mux := mcphttp.NewMux(h, nil)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); _ = h.Close() })
	return base
}
