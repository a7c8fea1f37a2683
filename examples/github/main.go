// Command github serves a tool behind GitHub login with the built-in code
// host provider: MCP clients register with this server, the user signs in
// at GitHub, and the tool learns the user's GitHub login. Register an OAuth
// App at GitHub (Settings → Developer settings → OAuth Apps) whose callback
// URL is {MCP_BASE_URL}/oauth/callback, then:
//
//	GITHUB_CLIENT_ID=… GITHUB_CLIENT_SECRET=… MCP_BASE_URL=http://localhost:8000 go run ./examples/github
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
)

// newServer returns the server and its GitHub login, configured from getenv.
func newServer(getenv func(string) string) (*mcp.Server, *providers.CodeHostProvider, error) {
	auth, err := providers.NewCodeHostProvider(providers.CodeHostConfig{Config: providers.Config{
		BaseURL:      getenv("MCP_BASE_URL"), // GitHub redirects to {MCP_BASE_URL}/oauth/callback
		ClientID:     getenv("GITHUB_CLIENT_ID"),
		ClientSecret: getenv("GITHUB_CLIENT_SECRET"),
	}})
	if err != nil {
		return nil, nil, err
	}
	srv := mcp.NewServer(mcp.Options{Name: "github", Version: "1.0.0", Auth: auth})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami", Description: "Your GitHub login",
		CanAccess: access.Scopes("read:user")},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			s, ok := c.Session.(*providers.CodeHostSession)
			if !ok {
				return "", &mcp.UserError{Message: "not signed in"}
			}
			// s.AccessToken is GitHub's token, to call its API as this user.
			return "You are " + s.Username, nil
		})
	return srv, auth, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, auth, err := newServer(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	defer auth.Close()
	inst, err := mcphttp.Start(ctx, srv, &mcphttp.StartOptions{TransportType: mcphttp.TransportHTTPStream,
		Host: "127.0.0.1", Port: 8000})
	if err != nil {
		log.Fatal(err)
	}
	if err := inst.Wait(); err != nil {
		log.Fatal(err)
	}
}
