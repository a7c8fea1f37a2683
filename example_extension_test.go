package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// A team's own extension, without forking the engine: it advertises its
// settings, adds the method notes/search, and wraps tools/list to mark
// every tool for the clients that declared the extension (the others get
// the core protocol's list).
func ExampleServer_AddExtension() {
	const id = "com.example/notes"
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	notes := []string{"buy milk", "call mum", "milk the cow"}
	srv.AddExtension(mcp.Extension{
		ID:       id,
		Settings: map[string]int{"maxResults": 10},
		Methods: map[string]mcp.CallHandler{
			"notes/search": func(ctx context.Context, c *mcp.Call) (any, error) {
				var p struct {
					Q string `json:"q"`
				}
				if err := json.Unmarshal(c.Params, &p); err != nil || p.Q == "" {
					return nil, mcp.Errorf(mcp.CodeInvalidParams, "notes/search needs params.q")
				}
				var hits []string
				for _, n := range notes {
					if strings.Contains(n, p.Q) {
						hits = append(hits, n)
					}
				}
				return map[string][]string{"notes": hits}, nil
			},
		},
		Wrap: map[string]mcp.Interceptor{
			"tools/list": func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					res, err := next(ctx, c)
					if _, ok := mcp.FromContext(ctx).ClientCapabilities.Extensions[id]; !ok || err != nil {
						return res, err // graceful degradation: the core list
					}
					b, err := json.Marshal(res)
					if err != nil {
						return nil, err
					}
					var page struct {
						Tools      []map[string]any `json:"tools"`
						NextCursor string           `json:"nextCursor,omitempty"`
					}
					if err := json.Unmarshal(b, &page); err != nil {
						return nil, err
					}
					for _, t := range page.Tools {
						t["_meta"] = map[string]any{id: map[string]bool{"takesNotes": true}}
					}
					return page, nil
				}
			},
		},
	})
	mcp.AddTool(srv, mcp.Tool{Name: "count_notes", Description: "Count the notes"},
		func(context.Context, *mcp.Context, struct{}) (int, error) { return len(notes), nil })

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	c, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Println("advertised:", string(c.Initialize().Capabilities.Extensions[id]))
	var res struct {
		Notes []string `json:"notes"`
	}
	if err := c.Call(ctx, "notes/search", map[string]string{"q": "milk"}, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("found:", res.Notes)
	// This client declares no extensions: its tools/list is the core one.
	tools, _ := c.ListTools(ctx)
	fmt.Println("tools:", tools[0].Name, tools[0].Meta == nil)
	// Output:
	// advertised: {"maxResults":10}
	// found: [buy milk milk the cow]
	// tools: count_notes true
}
