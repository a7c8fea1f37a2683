package mcp_test

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
	"github.com/mcpchain/mcp/mcphttp"
)

// A tool that needs the user to do something the client must not see
// (sign in to a third party, pay) sends them to a page of the server's own
// (URL-mode elicitation). Here the tool returns URLElicitationRequired
// (-32042 at 2025-11-25, an input-required round at 2026-07-28) until the
// page was visited; the page's route records it and tells the client with
// CompleteElicitation. A tool that waits in the call asks with
// Context.ElicitURL instead.
func ExampleURLElicitationRequired() {
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
		return "", mcp.URLElicitationRequired(mcp.URLElicitation{ID: id, URL: base + "/connect?id=" + id, Message: "Sign in to your bank"})
	})
	mcp.AddTool(srv, mcp.Tool{Name: "pay"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := c.ElicitURL(ctx, mcp.URLElicitation{ID: rand.Text(), URL: base + "/pay", Message: "Confirm the payment"})
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
			srv.CompleteElicitation(sid, id)
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
		ElicitURL: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ActionAccept}, nil // shown to the user, who agrees
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
