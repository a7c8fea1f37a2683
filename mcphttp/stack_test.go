//go:build !race

package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
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

// maxRequestPeak bounds the deepest point our code and what it calls
// reach below NewMux's handler, in a request of any kind once the server
// is warm (measured 4,431 bytes, a tools/call whose typed result has
// structured content; 6,127 before the JSON checker kept its member names
// out of its recursive frames and tool results stopped nesting two
// reflective encodings). net/http's frames above the handler take 1,240
// bytes, so a connection's goroutine stays within the 8 KB stack it grows
// to, with about 1.9 KB left for the user's middleware: no request pays a
// stack copy, and an idle connection holds 8 KB of stack, not 16. (The
// first initialize of a protocol version goes deeper, once per process:
// it encodes the answer the later ones reuse.)
const maxRequestPeak = 5000

const (
	paintSize = 32 << 10
	paintByte = 0xA5
)

var paintSink byte

// paintStack grows the stack past paintSize and fills the paintSize bytes
// below its caller's frame with paintByte. It returns the lowest painted
// address.
//
//go:noinline
func paintStack() uintptr {
	var buf [paintSize]byte
	for i := range buf {
		buf[i] = paintByte
	}
	paintSink = buf[paintSize/2]
	return uintptr(unsafe.Pointer(&buf[0]))
}

// stackPeak returns how far below top the stack was written since
// paintStack painted down to low: the distance from top to the lowest byte
// that no longer holds paintByte. The stack must not have moved meanwhile
// (no growth past the painted size, no shrinking: the caller stops the
// collector).
//
//go:noinline
func stackPeak(low, top uintptr) int {
	var here byte
	base := unsafe.Pointer(&here)
	for a := low; a < top; a++ {
		if *(*byte)(unsafe.Add(base, -int(uintptr(base)-a))) != paintByte {
			return int(top - a)
		}
	}
	return 0
}

// Every kind of request of a session's life, once warm, stays within
// maxRequestPeak of the stack below the mounted handler.
func TestRequestStackPeak(t *testing.T) {
	// No collection may shrink the stack between painting and reading it.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	srv := mcp.NewServer(mcp.Options{Name: "stack", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct{ A, B float64 }) (float64, error) {
		return in.A + in.B, nil
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	mux := mcphttp.NewMux(h, nil)
	peak := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		low := paintStack()
		top := stackMark()
		mux.ServeHTTP(w, r)
		peak[r.Header.Get("X-Step")] = stackPeak(low, top)
	}))
	t.Cleanup(ts.Close)

	steps := []struct {
		name, method, body string
		status             int
	}{
		{"initialize", http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, http.StatusOK},
		{"initialized", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted},
		{"tools/list", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, http.StatusOK},
		{"tools/call", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"A":1.5,"B":2}}}`, http.StatusOK},
		{"ping", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, http.StatusOK},
		{"DELETE", http.MethodDelete, "", http.StatusNoContent},
	}
	// The first round warms the server up (the first initialize encodes
	// the answer for its version); the second is measured.
	for round := range 2 {
		sid := ""
		for _, st := range steps {
			hdr := []string{"X-Step", st.name}
			if sid != "" {
				hdr = append(hdr, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
			}
			resp, b, err := wiretest.Do(ts.Client(), wiretest.NewRequest(t.Context(), st.method, ts.URL+"/mcp", st.body, hdr...))
			require.NoError(t, err)
			require.Equal(t, st.status, resp.StatusCode, "%s: %s", st.name, b)
			if st.name == "initialize" {
				sid = resp.Header.Get("Mcp-Session-Id")
			}
			if round == 1 {
				used := peak[st.name]
				t.Logf("%s: %d bytes below the mounted handler", st.name, used)
				assert.Positive(t, used, st.name)
				assert.LessOrEqual(t, used, maxRequestPeak, st.name)
			}
		}
	}
}
