package oauth_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
)

// A command-line client of a server that wants OAuth: the handler
// discovers the authorization server on the first 401, registers the
// client, and sends the user to the authorization page; the redirect
// comes back to a loopback listener; the tokens are kept in a file, so
// the next run reuses (or refreshes) them.
func ExampleNew() {
	loop, err := oauth.ListenLoopback("/callback")
	if err != nil {
		log.Fatal(err)
	}
	defer loop.Close()
	auth := oauth.New(oauth.Config{
		ClientName:  "my-agent",
		RedirectURL: loop.RedirectURL(),
		// Used as the client_id where the authorization server supports
		// client ID metadata documents; registration otherwise.
		ClientMetadataURL: "https://my-agent.example/client.json",
		Authorize: loop.Authorize(func(authURL string) error {
			_, err := fmt.Fprintln(os.Stderr, "Open this page to sign in:", authURL)
			return err
		}, 5*time.Minute),
		Store: &oauth.FileStore{Path: os.ExpandEnv("$HOME/.my-agent-tokens.json")},
	})

	ctx := context.Background()
	c, err := client.Connect(ctx, client.HTTP("https://mcp.example.com/mcp", &client.HTTPOptions{Auth: auth}),
		&client.Options{Info: mcp.Implementation{Name: "my-agent", Version: "1.0.0"}})
	if err != nil {
		log.Fatal(err) // an *oauth.AuthError names the step that failed
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	fmt.Println(len(tools), err)
}

// A machine client with credentials of its own: the client_credentials
// grant, no user, the token kept in memory.
func ExampleConfig_clientCredentials() {
	auth := oauth.New(oauth.Config{ClientID: "reporting-job", ClientSecret: os.Getenv("CLIENT_SECRET"), ClientCredentials: true})
	_ = client.HTTP("https://mcp.example.com/mcp", &client.HTTPOptions{Auth: auth})
}

// Scopes the user wants on top of those the server names (its challenge's
// scope, else its scopes_supported), as mcpchain --scope sets them.
func ExampleConfig_scopes() {
	loop, err := oauth.ListenLoopback("")
	if err != nil {
		log.Fatal(err)
	}
	defer loop.Close()
	printURL := func(authURL string) error { _, err := fmt.Fprintln(os.Stderr, "Sign in:", authURL); return err }
	auth := oauth.New(oauth.Config{
		Scopes:      []string{"files:write"},
		RedirectURL: loop.RedirectURL(),
		Authorize:   loop.Authorize(printURL, 5*time.Minute),
	})
	_ = client.HTTP("https://mcp.example.com/mcp", &client.HTTPOptions{Auth: auth})
}
