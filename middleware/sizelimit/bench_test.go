package sizelimit_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/sizelimit"
)

// BenchmarkToolsCallSizeLimit measures a tools/call through an in-process
// client without the middleware, with it on a result well within a
// default limit (the common case: one pass over the items, no encoding)
// and within a per-tool limit (the params read too), and on a result it
// cuts down (an encoding and the cut) beside the same result uncut.
func BenchmarkToolsCallSizeLimit(b *testing.B) {
	limit := sizelimit.New(sizelimit.Options{Default: sizelimit.Limit{Bytes: 64 << 10}, Tools: map[string]sizelimit.Limit{"other": {Bytes: 1000}}})
	byDefault := sizelimit.New(sizelimit.Options{Default: sizelimit.Limit{Bytes: 64 << 10}})
	for _, bc := range []struct {
		name string
		mw   func(http.Handler) http.Handler
		tool string
		n    int
	}{
		{"off", func(h http.Handler) http.Handler { return h }, "text", 200},
		{"within-default", byDefault, "text", 200},
		{"within", limit, "text", 200},
		{"off-large", func(h http.Handler) http.Handler { return h }, "other", 5000},
		{"cut", limit, "other", 5000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := mcphttp.New(testServer(), nil)
			defer h.Close()
			c := connect(b, bc.mw(h))
			args := map[string]int{"n": bc.n}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(context.Background(), bc.tool, args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
