package mcp_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// A client that only calls tools reads the server's resources and prompts
// through the catalog tools, and sees the shape of a large catalog in one
// call to list_tool_groups.
func ExampleServer_AddCatalogTools() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddResource(mcp.Resource{URI: "config://app", Name: "config", MIMEType: "application/json",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: `{"currency":"EUR"}`}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "refund", Description: "Draft a refund email",
		Arguments: []mcp.PromptArgument{{Name: "order", Required: true}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Draft a refund email for order " + args["order"]), nil
		}})
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	for _, name := range []string{"invoice_list", "invoice_void", "payment_refund"} {
		mcp.AddTool(srv, mcp.Tool{Name: name, Tags: []string{"billing"}}, noop)
	}
	warehouse := mcp.NewServer(mcp.Options{Name: "warehouse", Version: "1.0.0"})
	mcp.AddTool(warehouse, mcp.Tool{Name: "stock"}, noop)
	srv.Mount("warehouse", warehouse, nil) // its tools are the namespace "warehouse"
	srv.AddCatalogTools(mcp.CatalogTools{Resources: true, Prompts: true, Groups: true,
		GroupDescriptions: map[string]string{"billing": "invoices, payments and refunds"}})

	h := mcphttp.New(srv, nil)
	defer h.Close()
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, call := range []struct {
		tool string
		args any
	}{
		{"read_resource", map[string]string{"uri": "config://app"}},
		{"get_prompt", map[string]any{"name": "refund", "arguments": map[string]string{"order": "A-17"}}},
		{"list_tool_groups", nil},
	} {
		res, err := c.CallTool(ctx, call.tool, call.args, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Text())
	}
	// Output:
	// {"currency":"EUR"}
	// {"description":"Draft a refund email","messages":[{"role":"user","content":{"type":"text","text":"Draft a refund email for order A-17"}}]}
	// {"groups":[{"name":"billing","kind":"tag","description":"invoices, payments and refunds","tools":3},{"name":"warehouse","kind":"namespace","tools":1}],"ungrouped":5,"total":9}
}

// Two versions of a tool under one name: a client gets the newest unless
// its requests carry X-Api-Version: 1, which a middleware turns into a
// version filter; any client may ask for a version in params._meta.
func ExampleWithVersionFilter() {
	srv := mcp.NewServer(mcp.Options{Name: "calc", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	type args struct {
		X, Y int
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add", Version: "1.0"}, func(_ context.Context, _ *mcp.Context, in args) (string, error) {
		return fmt.Sprint("v1: ", in.X+in.Y), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Version: "2.0"}, func(_ context.Context, _ *mcp.Context, in args) (string, error) {
		return fmt.Sprintf("v2: %d + %d = %d", in.X, in.Y, in.X+in.Y), nil
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	apiVersion := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Version") == "1" {
				r = r.WithContext(mcp.WithVersionFilter(r.Context(), func(v string) bool {
					return mcp.CompareVersions(v, "2") < 0
				}))
			}
			next.ServeHTTP(w, r)
		})
	}
	ctx := context.Background()
	for _, header := range []http.Header{nil, {"X-Api-Version": {"1"}}} {
		c, err := client.Connect(ctx, client.InProcess(apiVersion(h), header), nil)
		if err != nil {
			log.Fatal(err)
		}
		tools, _ := c.ListTools(ctx)
		res, _ := c.CallTool(ctx, "add", map[string]int{"X": 1, "Y": 2}, nil)
		fmt.Println(tools[0].Meta["mcpchain/version"], tools[0].Meta["mcpchain/versions"], res.Text())
		c.Close()
	}
	c, _ := client.Connect(ctx, client.InProcess(h, nil), nil)
	defer c.Close()
	res, _ := c.CallTool(ctx, "add", map[string]int{"X": 1, "Y": 2}, &client.CallOptions{Meta: map[string]any{"mcpchain/version": "1.0"}})
	fmt.Println(res.Text())
	// Output:
	// 2.0 [2.0 1.0] v2: 1 + 2 = 3
	// 1.0 [1.0] v1: 3
	// v1: 3
}
