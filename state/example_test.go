package state_test

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
	"github.com/mcpchain/mcp/state"
)

// A tool keeps typed state per session: Set stores it in the session
// store (with Redis, every replica reads it), Get reads it back on a
// later call, Delete removes a key, and it all ends with the session.
// A value over the limit is refused with a *SizeError.
func ExampleSet() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})

	type cart struct {
		Items []string `json:"items"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add_to_cart", Description: "Add an item to the cart"},
		func(ctx context.Context, c *mcp.Context, in struct {
			Item string `json:"item"`
		}) (string, error) {
			ct, _, err := state.Get[cart](ctx, state.Session(c), "cart")
			if err != nil {
				return "", err
			}
			ct.Items = append(ct.Items, in.Item)
			if err := state.Set(ctx, state.Session(c), "cart", ct); errors.Is(err, state.ErrTooLarge) {
				return "", mcp.UserErrorf("the cart is full")
			} else if err != nil {
				return "", err
			}
			return "cart: " + strings.Join(ct.Items, ", "), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "empty_cart", Description: "Empty the cart"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "emptied", state.Delete(ctx, state.Session(c), "cart")
		})

	ctx := context.Background()
	// MaxStateValue: 40 bytes of JSON per value, for the example.
	h := mcphttp.New(srv, &mcphttp.Options{MaxStateValue: 40})
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	for _, item := range []string{"apple", "pear", "a very long item name"} {
		res, _ := session.CallTool(ctx, "add_to_cart", map[string]any{"item": item}, nil)
		fmt.Println(res.Text())
	}
	res, _ := session.CallTool(ctx, "empty_cart", nil, nil)
	fmt.Println(res.Text())
	res, _ = session.CallTool(ctx, "add_to_cart", map[string]any{"item": "fig"}, nil)
	fmt.Println(res.Text())
	// Output:
	// cart: apple
	// cart: apple, pear
	// the cart is full
	// emptied
	// cart: fig
}

// shopper is the auth data of the example: a subject, so that its state
// is its own.
type shopper string

func (s shopper) Subject() string { return string(s) }

// Without a protocol session (revision 2026-07-28 here), a tool keeps
// state for the authenticated caller (Caller) or under a handle it
// makes and returns (NewHandle), which the client passes back and
// later calls read through ForHandle. Another caller does not find the
// handle, and an anonymous caller has no state of its own.
func ExampleNewHandle() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return shopper(u), nil
			}
			return nil, nil // anonymous
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "visit", Description: "Count the caller's visits"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			n, _, err := state.Get[int](ctx, state.Caller(c), "visits")
			if errors.Is(err, mcp.ErrNoCaller) {
				return "anonymous: no visits kept", nil
			} else if err != nil {
				return "", err
			}
			n++
			return fmt.Sprint("visit ", n), state.Set(ctx, state.Caller(c), "visits", n)
		})
	mcp.AddTool(srv, mcp.Tool{Name: "new_cart", Description: "Start a cart; pass its id to add. It expires after a day."},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (state.Handle, error) {
			return state.NewHandle(ctx, c)
		})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add an item to a cart"},
		func(ctx context.Context, c *mcp.Context, in struct {
			Cart state.Handle `json:"cart"`
			Item string       `json:"item"`
		}) (string, error) {
			items, _, err := state.Get[[]string](ctx, state.ForHandle(c, in.Cart), "items")
			if errors.Is(err, state.ErrUnknownHandle) {
				return "no such cart", nil
			} else if err != nil {
				return "", err
			}
			items = append(items, in.Item)
			return strings.Join(items, ", "), state.Set(ctx, state.ForHandle(c, in.Cart), "items", items)
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
