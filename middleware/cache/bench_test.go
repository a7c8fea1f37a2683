package cache_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/cache"
)

// BenchmarkToolsCallCache measures a tools/call through an in-process
// client: without the middleware; with it on a tool it does not cache
// (write: the params read and the tool looked up, then the call); and
// answered from the cache (whoami, after its first call).
func BenchmarkToolsCallCache(b *testing.B) {
	for _, bc := range []struct {
		name, tool string
		on         bool
	}{
		{"off", "whoami", false},
		{"not-cacheable", "write", true},
		{"hit", "whoami", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var runs atomic.Int64
			srv := testServer(&runs)
			h := mcphttp.New(srv, nil)
			defer h.Close()
			var chain http.Handler = h
			if bc.on {
				chain = cache.New(srv, cache.Options{})(h)
			}
			c := connect(b, client.InProcess(authAs(user("ada"))(chain), nil))
			args := map[string]string{"q": "benchmark"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(context.Background(), bc.tool, args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
