package elicit_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"

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
		case action != elicit.ActionAccept:
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
			Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
				if p.Message == "The same again?" {
					return &elicit.Result{Action: elicit.ActionDecline}, nil
				}
				// The user leaves the size as it is: its default fills it.
				return &elicit.Result{Action: elicit.ActionAccept, Content: map[string]any{"toppings": []string{"basil"}, "delivery": true}}, nil
			}})
		res, _ := s.CallTool(ctx, "order", nil, nil)
		again, _ := s.CallTool(ctx, "reorder", nil, nil)
		fmt.Println(version, res.Text(), again.Text(), elicit.ActionCancel)
		s.Close()
	}
	// Output:
	// true
	// Large
	// 2025-11-25 m pizza with [basil], delivery true decline cancel
	// 2026-07-28 m pizza with [basil], delivery true decline cancel
}

// A tool that needs the user to do something the client must not see
// (sign in to a third party, pay) sends them to a page of the server's own
// (URL-mode elicitation). Here the tool returns URLRequired
// (-32042 at 2025-11-25, an input-required round at 2026-07-28) until the
// page was visited; the page's route records it and tells the client with
// Complete. A tool that waits in the call asks with
// OpenURL instead.
func ExampleURLRequired() {
	srv := mcp.NewServer(mcp.Options{Name: "bank", Version: "1.0.0", Logger: quiet})
	var (
		mu        sync.Mutex
		pending   = map[string]string{} // elicitation ID → session ID
		connected = map[string]bool{}   // session ID → signed in
	)
	base := "https://bank.example"
	mcp.AddTool(srv, mcp.Tool{Name: "balance"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if connected[c.SessionID] {
			return "42 EUR", nil
		}
		id := rand.Text()
		pending[id] = c.SessionID
		return "", elicit.URLRequired(elicit.URLRequest{ID: id, URL: base + "/connect?id=" + id, Message: "Sign in to your bank"})
	})
	mcp.AddTool(srv, mcp.Tool{Name: "pay"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: rand.Text(), URL: base + "/pay", Message: "Confirm the payment"})
		if errors.Is(err, mcp.ErrURLElicitation) {
			return "this client cannot open a payment page", nil
		} else if err != nil {
			return "", err
		}
		return "payment page: " + res.Action, nil
	})
	// The page the user opens: it checks who they are (the bank's own
	// login) before it records anything.
	connect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		mu.Lock()
		sid, ok := pending[id]
		delete(pending, id)
		connected[sid] = ok
		mu.Unlock()
		if ok {
			elicit.Complete(srv, sid, id)
		}
	})
	srv.AddRoute("GET", "/connect", connect, &mcp.RouteOptions{Public: true})

	ctx := context.Background()
	visit := func(u string) { // the user's browser, at the route
		connect.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", u, nil))
	}
	completed := make(chan string, 1)
	h := mcphttp.New(srv, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), &client.Options{
		OnNotification: func(method string, _ json.RawMessage) { completed <- method },
		ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: elicit.ActionAccept}, nil // shown to the user, who agrees
		}})
	defer s.Close()
	_, err := s.CallTool(ctx, "balance", nil, nil)
	var je *mcp.Error
	if errors.As(err, &je) && je.Code == mcp.CodeURLElicitationRequired {
		var data struct { // the server's data, as sent
			Elicitations []struct {
				URL string `json:"url"`
			} `json:"elicitations"`
		}
		_ = json.Unmarshal(je.Data.(json.RawMessage), &data)
		visit(data.Elicitations[0].URL)
		fmt.Println(<-completed)
	}
	res, _ := s.CallTool(ctx, "balance", nil, nil)
	pay, _ := s.CallTool(ctx, "pay", nil, nil)
	fmt.Println(res.Text(), "/", pay.Text())
	// Output:
	// notifications/elicitation/complete
	// 42 EUR / payment page: accept
}
