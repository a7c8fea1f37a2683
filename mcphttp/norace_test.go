//go:build !race

package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The bounds of what a request costs in allocations and in stack. The race
// detector changes what allocates and grows every frame, so this file is
// built only without it (make unit runs it so, after the -race run): under
// -race it is not compiled, rather than skipped.

// allocBounds are the allocations one tools/call of add may make, per
// transport: the figures measured when they were set (go test -bench
// ToolsCall -benchmem: http-json 18, http-sse 31, stateless 16, stdio 32,
// embedded 68, a client.Client over client.InProcess) plus about a tenth;
// BENCHMARKS.md has their history. A
// change that makes the hot
// path allocate more fails here; one that makes it allocate less should
// lower the bound.
var allocBounds = map[string]float64{
	"http-json": 20,
	"http-sse":  34,
	"stateless": 18,
	"stdio":     35,
	"embedded":  75,
}

// minAllocs is the least of three testing.AllocsPerRun rounds of 200
// calls: allocations other goroutines make meanwhile (a collector, a
// timer of an earlier test) only ever add to a round, so the least is the
// hot path's own figure.
func minAllocs(fn func()) float64 {
	least := testing.AllocsPerRun(200, fn)
	for range 2 {
		least = min(least, testing.AllocsPerRun(200, fn))
	}
	return least
}

// TestAllocsPerToolsCall fails when a tools/call allocates more than its
// transport's bound.
func TestAllocsPerToolsCall(t *testing.T) {
	measure := map[string]func(t *testing.T) float64{
		"http-json": func(t *testing.T) float64 {
			e := newEngine(t, newBenchServer(t, 0), nil)
			e.initialize()
			e.postOK(benchCall, `"text":"3"`)
			return minAllocs(func() { e.post(benchCall) })
		},
		"http-sse": func(t *testing.T) float64 {
			e := newEngine(t, newBenchServer(t, 0), nil)
			e.initialize()
			e.postOK(benchCallSSE, "event: message")
			return minAllocs(func() { e.post(benchCallSSE) })
		},
		"stateless": func(t *testing.T) float64 {
			e := newEngine(t, newBenchServer(t, 0), &mcphttp.Options{Stateless: true})
			e.postOK(benchCall, `"text":"3"`)
			return minAllocs(func() { e.post(benchCall) })
		},
		"stdio": func(t *testing.T) float64 {
			p := newStdio(t, newBenchServer(t, 0))
			p.send(benchCall)
			require.Contains(t, p.recv(), `"text":"3"`)
			return minAllocs(func() {
				p.send(benchCall)
				p.recv()
			})
		},
		"embedded": func(t *testing.T) float64 {
			ctx := context.Background()
			h := mcphttp.New(newBenchServer(t, 0), nil)
			t.Cleanup(func() { _ = h.Close() })
			e, err := client.Connect(ctx, client.InProcess(h, nil), nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = e.Close() })
			args := addArgs{A: 1, B: 2}
			res, err := e.CallTool(ctx, "add", args, nil)
			require.NoError(t, err)
			require.Equal(t, "3", res.Text())
			return minAllocs(func() { _, _ = e.CallTool(ctx, "add", args, nil) })
		},
	}
	for _, name := range []string{"http-json", "http-sse", "stateless", "stdio", "embedded"} {
		t.Run(name, func(t *testing.T) {
			got := measure[name](t)
			t.Logf("%s: %.0f allocations per tools/call (bound %.0f)", name, got, allocBounds[name])
			require.LessOrEqual(t, got, allocBounds[name],
				"allocations per tools/call over %s grew past the bound", strings.ToUpper(name))
		})
	}
}

// withEveryFeature registers on srv what a call of add does not use: an
// MCP App's view and a tool only it calls, skills, a task tool, a
// transformed tool, tagged tools and a Disable rule, and a mounted
// server.
func withEveryFeature(t *testing.T, srv *mcp.Server) *mcp.Server {
	t.Helper()
	type text struct {
		Text string `json:"text"`
	}
	echo := func(_ context.Context, _ *mcp.Context, in text) (string, error) { return in.Text, nil }
	srv.AddAppResource(mcp.AppResource{URI: "ui://bench/view.html", Name: "view", HTML: "<!doctype html><title>v</title>"})
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", UI: &apps.ToolUI{ResourceURI: "ui://bench/view.html",
		Visibility: []apps.Visibility{apps.VisibleToApp}}}, echo)
	srv.AddSkills(fstest.MapFS{"greet/SKILL.md": {Data: []byte("---\nname: greet\ndescription: Greets\n---\n")}})
	mcp.AddTool(srv, mcp.Tool{Name: "report", Task: &mcp.TaskOptions{}}, echo)
	mcp.AddTool(srv, mcp.Tool{Name: "admin", Tags: []string{"admin"}}, echo)
	srv.AddTransformedTool("echo", mcp.Transform{Name: "echo2"})
	require.NoError(t, srv.Registry().Disable(mcp.Match{Tags: []string{"admin"}}))
	child := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(child, mcp.Tool{Name: "t"}, echo)
	srv.Mount("child", child, nil)
	return srv
}

// TestAllocsPlainCallOnFullServer: a call of a plain tool allocates what it
// allocates on the minimal server, whatever else the server registers
// (the apps' fallback copied the request and built an access policy for
// each call of a client without the extension: six allocations more).
func TestAllocsPlainCallOnFullServer(t *testing.T) {
	measure := func(srv *mcp.Server) float64 {
		e := newEngine(t, srv, nil)
		e.initialize()
		e.postOK(benchCall, `"text":"3"`)
		return minAllocs(func() { e.post(benchCall) })
	}
	plain := measure(newBenchServer(t, 0))
	full := measure(withEveryFeature(t, newBenchServer(t, 0)))
	t.Logf("allocations per tools/call: %.0f on the minimal server, %.0f with every feature", plain, full)
	require.Equal(t, plain, full)
}

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
