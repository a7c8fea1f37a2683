package resourceserver_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/resourceserver"
)

// An MCP server that accepts the access tokens of an existing identity
// provider. JWKSURL is set here so the example needs no network; without
// it New reads the issuer's metadata to find the keys.
func Example() {
	v, err := resourceserver.New(context.Background(), resourceserver.Config{
		Issuer:         "https://id.example.com/realms/acme",
		Resource:       "https://mcp.example.com/mcp",
		RequiredScopes: []string{"mcp:tools"},
		JWKSURL:        "https://id.example.com/realms/acme/protocol/openid-connect/certs",
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := mcp.NewServer(mcp.Options{Name: "acme", Version: "1.0.0", Auth: v, Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, _ := c.Session.(*resourceserver.Session)
		return s.Sub, nil
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	mux := mcphttp.NewMux(h, nil)

	// A request without a token learns where to get one.
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))

	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	fmt.Print(rec.Body.String())
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"
	// {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://id.example.com/realms/acme"],"scopes_supported":["mcp:tools"],"bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256","ES384","ES512","PS256","PS384","PS512","RS256","RS384","RS512","EdDSA"]}
}
