package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// A generic tool becomes a narrower one for the model: AddTransformedTool
// derives "search_docs" from "search" with a new name and description,
// the argument "q" renamed "query", "index" hidden with a fixed value,
// a new default for "limit", and a wrapper that adds a note to the
// result. The derived tool's schema and validation follow; removing the
// source leaves only the derived tool listed.
func ExampleServer_AddTransformedTool() {
	srv := mcp.NewServer(mcp.Options{Name: "docs", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	type searchArgs struct {
		Q     string `json:"q" jsonschema:"the query"`
		Index string `json:"index" enum:"docs,code,issues"`
		Limit int    `json:"limit,omitempty" default:"50"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "search", Description: "Search an index"},
		func(ctx context.Context, c *mcp.Context, in searchArgs) (string, error) {
			return fmt.Sprintf("%d results for %q in %s", in.Limit, in.Q, in.Index), nil
		})

	srv.AddTransformedTool("search", mcp.Transform{
		Name:        "search_docs",
		Description: "Search the documentation",
		Args: map[string]mcp.ArgTransform{
			"q":     {Name: "query", Description: "words to look for in the documentation"},
			"index": {Hide: true, Value: "docs"},
			"limit": {Default: 5},
		},
		Wrap: func(ctx context.Context, c *mcp.Context, args map[string]any, next mcp.ToolCall) (*mcp.ContentResult, error) {
			res, err := next(ctx, args)
			if err != nil || res.IsError {
				return res, err
			}
			res.Content = append(res.Content, mcp.Text("(documentation only)"))
			return res, nil
		},
	})
	srv.Registry().Remove(access.KindTool, "search")

	schema, _ := json.Marshal(srv.ListTools(context.Background(), nil)[0].InputSchema)
	fmt.Println(string(schema))

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	res, _ := session.CallTool(ctx, "search_docs", map[string]any{"query": "sessions"}, nil)
	for _, c := range res.Content {
		fmt.Println(c.(mcp.TextContent).Text)
	}
	res, _ = session.CallTool(ctx, "search_docs", map[string]any{"query": "sessions", "index": "code"}, nil)
	fmt.Println(res.Text())
	// Output:
	// {"type":"object","properties":{"query":{"type":"string","description":"words to look for in the documentation"},"limit":{"type":"integer","default":5}},"required":["query"],"additionalProperties":false}
	// 5 results for "sessions" in docs
	// (documentation only)
	// Invalid arguments for tool "search_docs": argument "index" is not accepted (the schema allows no additional properties)
}
