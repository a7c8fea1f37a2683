//go:build !race

package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// stackMark returns an address in its own frame: the difference of two
// marks is the stack between them (stacks grow down).
//
//go:noinline
func stackMark() uintptr {
	var x byte
	return uintptr(unsafe.Pointer(&x))
}

// maxRequestStack bounds the stack our code uses between the handler
// NewMux's endpoint is mounted under and a tool's function, over HTTP
// (measured 2,944 bytes; 3,944 before the error paths of handleRequest,
// servePost and CallTool moved out of their frames). A request runs on
// its connection's goroutine, whose stack the runtime shrinks back to
// 8 KB at garbage collections; net/http's own frames take about 1.5 KB
// above ours, and the user's middleware and interceptors (telemetry, rate
// limits, auth) add theirs. A request that needs more than the 8 KB pays
// a stack copy after every collection, which at 64 concurrent clients
// cost telemetry 10% of the server's CPU before the frames were trimmed.
const maxRequestStack = 3500

// The stack a tools/call takes from the mux to the tool stays under
// maxRequestStack, leaving room for the user's middleware.
func TestRequestStackDepth(t *testing.T) {
	var deep uintptr
	srv := mcp.NewServer(mcp.Options{Name: "stack", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(context.Context, *mcp.Context, struct{ A, B float64 }) (string, error) {
		deep = stackMark()
		return "ok", nil
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	mux := mcphttp.NewMux(h, nil)
	var top uintptr
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		top = stackMark()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	resp, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL+"/mcp",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	resp, b, err = wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"A":1.5,"B":2}}}`,
		"Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version", "2025-06-18"))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	require.NotZero(t, deep, "the tool ran")
	used := int(top - deep)
	t.Logf("stack from the mounted handler to the tool: %d bytes", used)
	assert.LessOrEqual(t, used, maxRequestStack)
}
