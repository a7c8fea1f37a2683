package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

// Put an OAuth provider in front of a server: set it as Options.Auth, and
// the server mounts the OAuth endpoints and discovery documents (with
// mcphttp.NewMux or Start), checks the bearer token of every request
// however the endpoint is served, and hands tools the caller's session.
func ExampleNewOAuthProvider() {
	auth, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{
			BaseURL:  "https://mcp.example.com",
			ClientID: "client-id-from-the-upstream", ClientSecret: "its-secret",
			Scopes: []string{"notes:read"},
			Logger: slog.New(slog.DiscardHandler),
		},
		AuthorizationEndpoint: "https://login.example.com/authorize",
		TokenEndpoint:         "https://login.example.com/token",
		UserInfoEndpoint:      "https://login.example.com/userinfo",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer auth.Close()

	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Auth: auth, Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami", CanAccess: access.Scopes("notes:read")},
		func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
			s, _ := providers.SessionOf(c.Session)
			return s.UserID, nil
		})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	mux := mcphttp.NewMux(h, nil)

	// A client finds the authorization server from the resource metadata…
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &md); err != nil {
		log.Fatal(err)
	}
	fmt.Println(md.Resource, md.AuthorizationServers)

	// …which a request without a token is pointed at.
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))
	// Output:
	// https://mcp.example.com/mcp [https://mcp.example.com]
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
}
