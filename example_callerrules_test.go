package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// At revision 2026-07-28 there is no session to give a tool to, so a
// tool shows one to its caller: the tool is registered server-wide,
// hidden from everyone by a server-wide Disable, and the unlock tool
// Enables it for its caller alone (srv.CallerRegistry(c.Session)). The
// rule lives in the handler's store (on Redis, every replica's), and the
// caller is sent tools/list_changed. An anonymous caller has no rules.
// shopper is the auth data of the example: a subject, so that rules can
// be kept for it.
type shopper string

func (s shopper) Subject() string { return string(s) }

func ExampleServer_CallerRegistry() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		CallerRules: true, // on every replica
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return shopper(u), nil
			}
			return nil, nil // anonymous
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "vault", Description: "What premium callers see"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "the vault is open", nil })
	if err := srv.Registry().Disable(mcp.Match{Kind: access.KindTool, Names: []string{"vault"}}); err != nil {
		panic(err)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "unlock", Description: "Show the caller the vault"},
		func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
			err := srv.CallerRegistry(c.Session).Enable(mcp.Match{Kind: access.KindTool, Names: []string{"vault"}})
			if errors.Is(err, mcp.ErrNoCaller) {
				return "sign in first", nil
			}
			return "unlocked", err
		})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	connect := func(user string, changed chan<- string) *client.Client {
		hd := http.Header{}
		if user != "" {
			hd.Set("X-User", user)
		}
		c, err := client.Connect(ctx, client.InProcess(h, hd), &client.Options{ProtocolVersion: mcp.Version20260728,
			OnToolsChanged: func() { changed <- user }})
		if err != nil {
			panic(err)
		}
		return c
	}
	changed := make(chan string, 8)
	ada, bob, anon := connect("ada", changed), connect("bob", changed), connect("", changed)
	defer ada.Close()
	defer bob.Close()
	defer anon.Close()

	text := func(c *client.Client, tool string) string {
		res, err := c.CallTool(ctx, tool, nil, nil)
		if err != nil {
			return err.Error()
		}
		return res.Content[0].(mcp.TextContent).Text
	}
	fmt.Println("ada sees", names(ctx, ada))
	fmt.Println("ada:", text(ada, "unlock"))
	fmt.Println("told of the change:", <-changed)
	fmt.Println("ada sees", names(ctx, ada))
	fmt.Println("ada:", text(ada, "vault"))
	fmt.Println("bob sees", names(ctx, bob))
	fmt.Println("anonymous:", text(anon, "unlock"))
	// Output:
	// ada sees [unlock]
	// ada: unlocked
	// told of the change: ada
	// ada sees [vault unlock]
	// ada: the vault is open
	// bob sees [unlock]
	// anonymous: sign in first
}
