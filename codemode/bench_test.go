package codemode_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/codemode"
)

// benchCalls is the tool calls one benchmarked script makes.
const benchCalls = 100

// BenchmarkToolCall compares a tool called from a script with the same
// tool called directly by a client, each per call: direct is one
// tools/call from an in-process client; script is one run_script
// request making benchCalls calls of the tool, its time divided by
// benchCalls (ns/call, cpu-ns/call), so the script's parse and setup are
// shared as a model's script shares them; script-one is a script making
// a single call, the worst case, against direct. cpu-ns is the process's
// user and system time over the loop, which a loaded machine inflates
// far less than wall time.
func BenchmarkToolCall(b *testing.B) {
	srv := testServer(b, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (map[string]int, error) {
		return map[string]int{"sum": in.A + in.B}, nil
	})
	r, err := codemode.New(srv, &codemode.Options{MaxCalls: benchCalls})
	require.NoError(b, err)
	c := connect(b, srv, r, nil, "")
	ctx := context.Background()
	// loop runs call b.N times and reports the CPU time of each, divided
	// by per (the tool calls one run makes).
	loop := func(b *testing.B, per int, call func() error) {
		b.ReportAllocs()
		var start time.Duration
		n := 0
		for b.Loop() {
			if n == 0 {
				start = codemode.CPUClock()
			}
			if err := call(); err != nil {
				b.Fatal(err)
			}
			n++
		}
		cpu := float64(codemode.CPUClock()-start) / float64(max(n, 1))
		b.ReportMetric(cpu, "cpu-ns/op")
		if per > 1 {
			b.ReportMetric(cpu/float64(per), "cpu-ns/call")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/call")
		}
	}
	callTool := func(name string, args map[string]any) func() error {
		return func() error {
			res, err := c.CallTool(ctx, name, args, nil)
			if err == nil && res.IsError {
				err = fmt.Errorf("%s: %s", name, res.Text())
			}
			return err
		}
	}
	b.Run("direct", func(b *testing.B) {
		loop(b, 1, callTool("add", map[string]any{"a": 1, "b": 2}))
	})
	script := fmt.Sprintf("t = 0\nfor i in range(%d):\n    t += call('add', {'a': i, 'b': 2})['sum']\nresult = t\n", benchCalls)
	b.Run("script", func(b *testing.B) {
		loop(b, benchCalls, callTool(codemode.DefaultTool, map[string]any{"script": script}))
	})
	b.Run("script-one", func(b *testing.B) {
		loop(b, 1, callTool(codemode.DefaultTool, map[string]any{"script": "result = call('add', {'a': 1, 'b': 2})"}))
	})
}
