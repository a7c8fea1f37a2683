package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
)

// BenchmarkRun is the sandbox's own cost for a script of one call, the
// tool answered at once: parsing, guarding, compiling and running it.
func BenchmarkRun(b *testing.B) {
	r := &Runner{name: DefaultTool, maxSteps: defaultMaxSteps, timeout: time.Second, maxCalls: 5, maxOut: 4096, maxAlloc: defaultMaxAllocBytes}
	res := &mcp.ContentResult{StructuredContent: json.RawMessage(`{"sum":3}`)}
	call := func(context.Context, string, json.RawMessage) (any, error) { return res, nil }
	b.ReportAllocs()
	for b.Loop() {
		if out := r.run(context.Background(), "result = call('add', {'a': 1, 'b': 2})", call); out.IsError {
			b.Fatal(out.Text())
		}
	}
}
