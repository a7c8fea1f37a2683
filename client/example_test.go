package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

func ExampleConnect() {
	// A server to talk to: any MCP server's URL will do.
	srv := mcp.NewServer(mcp.Options{Name: "calc", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.Context, in struct {
			A int `json:"a"`
			B int `json:"b"`
		}) (int, error) {
			return in.A + in.B, nil
		})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Println("connected to", c.Initialize().ServerInfo.Name, "at", c.ProtocolVersion())

	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools {
		fmt.Println("tool:", t.Name)
	}
	sum, err := client.CallToolAs[int](ctx, c, "add", map[string]int{"a": 2, "b": 40})
	fmt.Println(sum, err)
	// Output:
	// connected to calc at 2025-11-25
	// tool: add
	// 42 <nil>
}

func ExampleOptions_handlers() {
	// A client that answers the server's questions: a tool that asks for
	// roots, asks the user or asks the model gets these answers.
	opts := &client.Options{
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///home/me/project", Name: "project"}}, nil
		},
		Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			// A real client shows p.Message and a form; this one accepts
			// the form's defaults.
			return &elicit.Result{Action: "accept", Content: client.ElicitDefaults(p)}, nil
		},
		OnToolsChanged: func() { fmt.Println("the server's tools changed") },
	}
	_ = opts
	fmt.Println(client.ElicitDefaults(&elicit.Params{RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "default": "Ada"}}}}))
	// Output: map[name:Ada]
}
