package elicit_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

// Pizza is the form a tool asks the user to fill: its requestedSchema is
// inferred from the fields, as a tool's input schema is.
type Pizza struct {
	Size     string   `json:"size" title:"Size" enum:"s,m,l" enumTitles:"Small,Medium,Large" default:"m"`
	Toppings []string `json:"toppings,omitempty" title:"Toppings" enum:"ham,olives,basil" mcp:"maxItems=2"`
	Note     string   `json:"note,omitempty" jsonschema:"anything the cook should know" mcp:"maxLength=80"`
	Delivery bool     `json:"delivery" title:"Deliver it?"`
}

// pizzaForm is made where the program starts: a struct the form schema
// cannot express (a nested struct, a list of numbers) panics here, not in
// a call.
var pizzaForm = elicit.MustForm[Pizza]()

// A tool asks the user for a typed answer with As (or a form made
// beforehand with NewForm / MustForm); the answer is checked
// against the form, given its defaults and decoded into the struct. The
// same tool works over a 2025 session and as an input-required round at
// 2026-07-28.
func ExampleAs() {
	if _, err := elicit.NewForm[struct{ Where struct{ City string } }](); err != nil {
		fmt.Println(errors.Is(err, mcp.ErrInvalidDefinition))
	}
	fmt.Println(pizzaForm.Schema().Properties["size"].OneOf[2].Title)

	srv := mcp.NewServer(mcp.Options{Name: "pizzeria", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "order"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		p, action, err := elicit.As[Pizza](ctx, c, "Your pizza?")
		switch {
		case err != nil:
			return "", err // ErrInputRequired at 2026-07-28: the round ends here
		case action != mcp.ActionAccept:
			return "no order (" + action + ")", nil
		}
		return fmt.Sprintf("%s pizza with %v, delivery %v", p.Size, p.Toppings, p.Delivery), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "reorder"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		_, action, err := pizzaForm.Ask(ctx, c, "The same again?")
		return action, err
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		s, _ := client.Connect(ctx, client.InProcess(h, nil), &client.Options{ProtocolVersion: version,
			Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				if p.Message == "The same again?" {
					return &mcp.ElicitResult{Action: mcp.ActionDecline}, nil
				}
				// The user leaves the size as it is: its default fills it.
				return &mcp.ElicitResult{Action: mcp.ActionAccept, Content: map[string]any{"toppings": []string{"basil"}, "delivery": true}}, nil
			}})
		res, _ := s.CallTool(ctx, "order", nil, nil)
		again, _ := s.CallTool(ctx, "reorder", nil, nil)
		fmt.Println(version, res.Text(), again.Text(), mcp.ActionCancel)
		s.Close()
	}
	// Output:
	// true
	// Large
	// 2025-11-25 m pizza with [basil], delivery true decline cancel
	// 2026-07-28 m pizza with [basil], delivery true decline cancel
}
