//go:build !race

package mcphttp_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
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
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", UI: &mcp.ToolUI{ResourceURI: "ui://bench/view.html",
		Visibility: []mcp.Visibility{mcp.VisibleToApp}}}, echo)
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
