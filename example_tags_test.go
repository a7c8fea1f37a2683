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

// The mcp tag puts JSON Schema validation keywords on an argument; a call
// that breaks one gets an isError result naming the argument and the rule,
// and a tag that cannot work stops the registration.
func ExampleAddTool_tags() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})

	type orderArgs struct {
		SKU      string   `json:"sku" mcp:"pattern=^[A-Z]{3}-[0-9]{4}$"`
		Quantity int      `json:"quantity" mcp:"minimum=1,maximum=10"`
		Note     string   `json:"note,omitempty" mcp:"maxLength=140"`
		Deliver  string   `json:"deliver,omitempty" mcp:"format=date"`
		Gifts    []string `json:"gifts,omitempty" mcp:"maxItems=3,uniqueItems"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "order", Description: "Order an item"},
		func(ctx context.Context, c *mcp.Context, in orderArgs) (string, error) {
			return fmt.Sprintf("ordered %d × %s", in.Quantity, in.SKU), nil
		})

	type badArgs struct {
		Name string `json:"name" mcp:"minimum=1"`
	}
	err := mcp.TryAddTool(srv.Registry(), mcp.Tool{Name: "bad"}, func(context.Context, *mcp.Context, badArgs) (string, error) { return "", nil })
	fmt.Println(errors.Is(err, mcp.ErrInvalidDefinition), strings.Contains(err.Error(), "field Name: mcp tag: minimum applies to numbers"))

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	res, _ := session.CallTool(ctx, "order", map[string]any{"sku": "ABC-1234", "quantity": 2}, nil)
	fmt.Println(res.Text())
	res, _ = session.CallTool(ctx, "order", map[string]any{"sku": "ABC-1234", "quantity": 11}, nil)
	fmt.Println(res.Text())
	res, _ = session.CallTool(ctx, "order", map[string]any{"sku": "abc", "quantity": 1}, nil)
	fmt.Println(res.Text())
	// Output:
	// true true
	// ordered 2 × ABC-1234
	// Invalid arguments for tool "order": argument "quantity": maximum: 11 is greater than 10
	// Invalid arguments for tool "order": argument "sku": pattern: "abc" does not match regular expression "^[A-Z]{3}-[0-9]{4}$"
}
