package tokenexchange_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/tokenexchange"
)

// A tool that reads the caller's calendar at another API of the
// organisation, as the caller: one line gets the client.
func ExampleExchanger_Client() {
	x, err := tokenexchange.New(tokenexchange.Config{TokenURL: "https://id.example.com/oauth2/token",
		ClientID: "mcp-server", ClientSecret: os.Getenv("CLIENT_SECRET")})
	if err != nil {
		log.Fatal(err)
	}
	srv := mcp.NewServer(mcp.Options{Name: "calendar", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "today"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		hc, err := x.Client(c, "https://calendar.example.com", "events.read")
		if err != nil {
			return "", err
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://calendar.example.com/v1/me/today", nil)
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	})
}

// Microsoft Entra ID's on-behalf-of flow: the user's token for this
// server's application becomes a Microsoft Graph token.
func ExampleEntraOnBehalfOf() {
	x, err := tokenexchange.New(tokenexchange.EntraOnBehalfOf(os.Getenv("TENANT_ID"), os.Getenv("CLIENT_ID"), os.Getenv("CLIENT_SECRET")))
	if err != nil {
		log.Fatal(err)
	}
	_ = x // in a tool: x.Client(c, "https://graph.microsoft.com", "User.Read")
}
