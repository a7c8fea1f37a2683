package codemode_test

import (
	"context"
	"fmt"
	"testing"

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
// benchCalls (ns/call), so the script's parse and setup are shared as a
// model's script shares them; script-one is a script making a single
// call, the worst case, against direct.
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
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := c.CallTool(ctx, "add", map[string]any{"a": 1, "b": 2}, nil)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	script := fmt.Sprintf("t = 0\nfor i in range(%d):\n    t += call('add', {'a': i, 'b': 2})['sum']\nresult = t\n", benchCalls)
	b.Run("script", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := c.CallTool(ctx, codemode.DefaultTool, map[string]any{"script": script}, nil)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
	})
	b.Run("script-one", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := c.CallTool(ctx, codemode.DefaultTool, map[string]any{"script": "result = call('add', {'a': 1, 'b': 2})"}, nil)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
