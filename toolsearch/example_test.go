package toolsearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// A server of several tools behind tool search: the client lists the
// pinned tool and the two search tools, finds a tool by what it does, and
// calls it through call_tool.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "status", Description: "Is the service up?"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "up", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "delete_note", Description: "Remove a note for good"},
		func(_ context.Context, _ *mcp.Context, in struct {
			ID int `json:"id" jsonschema:"the note's number"`
		}) (string, error) {
			return fmt.Sprintf("note %d deleted", in.ID), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "send_email", Description: "Send a message to someone's inbox"},
		func(_ context.Context, _ *mcp.Context, in struct {
			To string `json:"to"`
		}) (string, error) {
			return "sent to " + in.To, nil
		})

	s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{"status"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := mcphttp.New(srv, nil)
	defer h.Close()
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(s.Middleware(h), nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	tools, _ := c.ListTools(ctx)
	for _, t := range tools {
		fmt.Println("listed:", t.Name)
	}
	res, _ := c.CallTool(ctx, "search_tools", map[string]any{"query": "remove a note", "limit": 1}, nil)
	var found struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	_ = json.Unmarshal([]byte(res.Text()), &found)
	fmt.Println("found:", found.Tools[0].Name, string(found.Tools[0].InputSchema))
	res, _ = c.CallTool(ctx, "call_tool", map[string]any{"name": "delete_note", "arguments": map[string]any{"id": 7}}, nil)
	fmt.Println(res.Text())
	// Output:
	// listed: status
	// listed: search_tools
	// listed: call_tool
	// found: delete_note {"type":"object","properties":{"id":{"type":"integer","description":"the note's number"}},"required":["id"],"additionalProperties":false}
	// note 7 deleted
}
