package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// shopper is the auth data of the example: a subject, so that its state
// is its own.
type shopper string

func (s shopper) Subject() string { return string(s) }

// Without a protocol session (revision 2026-07-28 here), a tool keeps
// state for the authenticated caller (c.Caller()) or under a handle it
// makes and returns (c.NewHandle), which the client passes back and
// later calls read through c.Handle. Another caller does not find the
// handle, and an anonymous caller has no state of its own.
func ExampleContext_NewHandle() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return shopper(u), nil
			}
			return nil, nil // anonymous
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "visit", Description: "Count the caller's visits"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			n, _, err := mcp.GetState[int](ctx, c.Caller(), "visits")
			if errors.Is(err, mcp.ErrNoCaller) {
				return "anonymous: no visits kept", nil
			} else if err != nil {
				return "", err
			}
			n++
			return fmt.Sprint("visit ", n), mcp.SetState(ctx, c.Caller(), "visits", n)
		})
	mcp.AddTool(srv, mcp.Tool{Name: "new_cart", Description: "Start a cart; pass its id to add. It expires after a day."},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (mcp.StateHandle, error) {
			return c.NewHandle(ctx)
		})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add an item to a cart"},
		func(ctx context.Context, c *mcp.Context, in struct {
			Cart mcp.StateHandle `json:"cart"`
			Item string          `json:"item"`
		}) (string, error) {
			items, _, err := mcp.GetState[[]string](ctx, c.Handle(in.Cart), "items")
			if errors.Is(err, mcp.ErrUnknownHandle) {
				return "no such cart", nil
			} else if err != nil {
				return "", err
			}
			items = append(items, in.Item)
			return strings.Join(items, ", "), mcp.SetState(ctx, c.Handle(in.Cart), "items", items)
		})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	connect := func(user string) *client.Client {
		hd := http.Header{}
		if user != "" {
			hd.Set("X-User", user)
		}
		c, err := client.Connect(ctx, client.InProcess(h, hd), &client.Options{ProtocolVersion: mcp.Version20260728})
		if err != nil {
			panic(err)
		}
		return c
	}
	ada, bob, anon := connect("ada"), connect("bob"), connect("")
	defer ada.Close()
	defer bob.Close()
	defer anon.Close()
	text := func(c *client.Client, tool string, args any) string {
		res, err := c.CallTool(ctx, tool, args, nil)
		if err != nil {
			return err.Error()
		}
		return res.Text()
	}
	fmt.Println("ada:", text(ada, "visit", nil))
	fmt.Println("ada:", text(ada, "visit", nil))
	fmt.Println("bob:", text(bob, "visit", nil))
	fmt.Println("anonymous:", text(anon, "visit", nil))

	cart := text(ada, "new_cart", nil)
	fmt.Println("ada:", text(ada, "add", map[string]any{"cart": cart, "item": "apple"}))
	fmt.Println("ada:", text(ada, "add", map[string]any{"cart": cart, "item": "pear"}))
	fmt.Println("bob:", text(bob, "add", map[string]any{"cart": cart, "item": "fig"}))
	// Output:
	// ada: visit 1
	// ada: visit 2
	// bob: visit 1
	// anonymous: anonymous: no visits kept
	// ada: apple
	// ada: apple, pear
	// bob: no such cart
}
