package sizelimit_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/sizelimit"
)

// A search tool that may return a great deal is cut down to about 100
// tokens; the model reads what fits and a notice that says how to get the
// rest.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Options{Name: "search", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "search"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return strings.Repeat("result ", 1000), nil
	})
	limits := sizelimit.New(sizelimit.Options{
		Default: sizelimit.Limit{Bytes: 64 << 10}, // every tool: 64 KiB
		Tools:   map[string]sizelimit.Limit{"search": {Tokens: 100, Hint: "Narrow the query."}},
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	c, err := client.Connect(context.Background(), client.InProcess(limits(h), nil), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "search", nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[len(res.Content)-1].(mcp.TextContent).Text)
	// Output:
	// [Result cut down: tool "search" returned 7039 bytes (about 1760 tokens), over the limit of 400 bytes (about 100 tokens); the text above is cut short. Narrow the query.]
}
