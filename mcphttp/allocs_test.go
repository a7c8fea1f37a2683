//go:build !race

package mcphttp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// The race detector changes what allocates, so this file is built only
// without it (make unit runs it so, after the -race run): under -race it is
// not compiled, rather than skipped.

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
