package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// A tool keeps typed state per session: SetState stores it in the session
// store (with Redis, every replica reads it), GetState reads it back on a
// later call, DeleteState removes a key, and it all ends with the session.
// A value over the limit is refused with a *StateSizeError.
func ExampleSetState() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})

	type cart struct {
		Items []string `json:"items"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add_to_cart", Description: "Add an item to the cart"},
		func(ctx context.Context, c *mcp.Context, in struct {
			Item string `json:"item"`
		}) (string, error) {
			ct, _, err := mcp.GetState[cart](ctx, c, "cart")
			if err != nil {
				return "", err
			}
			ct.Items = append(ct.Items, in.Item)
			if err := mcp.SetState(ctx, c, "cart", ct); errors.Is(err, mcp.ErrStateTooLarge) {
				return "", mcp.UserErrorf("the cart is full")
			} else if err != nil {
				return "", err
			}
			return "cart: " + strings.Join(ct.Items, ", "), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "empty_cart", Description: "Empty the cart"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "emptied", mcp.DeleteState(ctx, c, "cart")
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
