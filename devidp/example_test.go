package devidp_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/mcpchain/mcp/devidp"
	"github.com/mcpchain/mcp/providers"
)

// A test of your own server's OAuth login: the dev provider as the
// upstream of the server's OAuth proxy, with AutoApprove so that an
// http.Client following redirects completes the sign-in (turn the proxy's
// own consent page off too, as here, or drive it).
func ExampleStart() {
	idp, err := devidp.Start(devidp.Config{
		Users:       []devidp.User{{Subject: "alice", Email: "alice@example.com", Name: "Alice"}},
		AutoApprove: true,
		Logger:      slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer idp.Close()

	auth, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{
			BaseURL: "http://localhost:8000", ClientID: idp.ClientID(), ClientSecret: idp.ClientSecret(),
			Scopes: []string{"openid", "profile", "email"}, DisableConsent: true,
			AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"},
			Logger:                     slog.New(slog.DiscardHandler),
		},
		AuthorizationEndpoint: idp.AuthorizationEndpoint(),
		TokenEndpoint:         idp.TokenEndpoint(),
		Issuer:                idp.Issuer(), // ID tokens verified against the provider's JWKS
	})
	if err != nil {
		panic(err)
	}
	defer auth.Close()
	// ... mcp.NewServer(mcp.Options{Auth: auth}) serves on localhost:8000.

	fmt.Println("client:", idp.ClientID())
	fmt.Println("issuer on loopback:", strings.HasPrefix(idp.Issuer(), "http://127.0.0.1:"))
	// Output:
	// client: dev-client
	// issuer on loopback: true
}

// The provider as a handler of your own test server, and its consent page
// (no AutoApprove): a browser, or a test that reads the page, picks the
// user.
func ExampleNew() {
	p, err := devidp.New(devidp.Config{Issuer: "http://127.0.0.1:9000/idp", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/idp/", p)

	q := url.Values{"response_type": {"code"}, "client_id": {p.ClientID()}, "redirect_uri": {"http://localhost:8000/oauth/callback"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
	r, _ := http.NewRequest(http.MethodGet, p.AuthorizationEndpoint()+"?"+q.Encode(), nil)
	r.RemoteAddr = "127.0.0.1:50000"
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	fmt.Println(w.Code, strings.Contains(w.Body.String(), devidp.ConsentPageTitle))
	// Output: 200 true
}
