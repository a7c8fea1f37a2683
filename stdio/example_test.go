package stdio_test

import (
	"context"
	"net/http"
	"os"
	"strings"

	"github.com/mcpchain/mcp/stdio"
)

// Serve any MCP http.Handler over standard input and output. Here a tiny
// handler stands in for mcphttp.New(srv, nil).
func ExampleServe() {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	_ = stdio.Serve(context.Background(), h, in, os.Stdout, nil)
	// Output: {"jsonrpc":"2.0","id":1,"result":{}}
}
