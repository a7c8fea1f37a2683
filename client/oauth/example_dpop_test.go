package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"log"
	"os"

	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
)

// DPoP-bound tokens (RFC 9449, the MCP DPoP extension): the handler
// proves with every token request and every MCP request that it holds
// the key, so a token that leaks is useless on its own.
func ExampleConfig_dPoP() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	auth := oauth.New(oauth.Config{
		ClientID: "reporting-job", ClientSecret: os.Getenv("CLIENT_SECRET"), ClientCredentials: true,
		DPoPKey: key,
	})
	_ = client.HTTP("https://mcp.example.com/mcp", &client.HTTPOptions{Auth: auth})
}
