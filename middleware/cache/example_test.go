package cache_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/middleware/cache"
)

// A read-only lookup is answered from the cache for five minutes, per
// caller: the second call of the same caller does not run the tool.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Options{Name: "rates", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	runs := 0
	mcp.AddTool(srv, mcp.Tool{Name: "rate", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.Context, in struct {
			Currency string `json:"currency"`
		}) (string, error) {
			runs++ // an expensive upstream call
			return fmt.Sprintf("1 EUR = 1.08 %s (lookup %d)", in.Currency, runs), nil
		})
	cached := cache.New(srv, cache.Options{TTL: 5 * time.Minute})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	// The caller's identity comes first: answers are kept per caller.
	chain := middleware.FixedAuth(user("ada"))(cached(h))
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(chain, nil), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for range 2 {
		res, err := c.CallTool(ctx, "rate", map[string]string{"currency": "USD"}, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Text())
	}
	// Output:
	// 1 EUR = 1.08 USD (lookup 1)
	// 1 EUR = 1.08 USD (lookup 1)
}
