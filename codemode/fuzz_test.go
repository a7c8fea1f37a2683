package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// FuzzScript runs any source in the sandbox with small limits and a tool
// that answers with its arguments: it must end (a result or a tool
// error, never a panic or a hang), an error must say something, and a
// result's structured content must be JSON.
func FuzzScript(f *testing.F) {
	for _, s := range []string{
		`result = call("t", {"a": 1})`,
		"x = 0\nwhile True:\n    x += 1\n",
		"def f(n):\n    return f(n)\nf(1)",
		"s = 'x'\nfor i in range(99):\n    s += s",
		`result = {"a": [1, 2.5, None, True, "s"], "b": {"c": -1}}`,
		`print(try_call("t", {"x": [1] * 10}))`,
		"result = lambda: 1",
		"load('x', 'y')",
		"x = (",
		`result = call("t", {"big": 123456789012345678901234567890})`,
		"l = list(range(100))\nresult = sorted(l, reverse=True)[:3] + [len(l) * 'ab']",
	} {
		f.Add(s)
	}
	r := &Runner{name: DefaultTool, maxSteps: 10_000, timeout: time.Second, maxCalls: 5, maxOut: 4096, programs: newProgramCache(programCacheSize)}
	call := func(_ context.Context, name string, args json.RawMessage) (any, error) {
		if name == "fail" {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Unknown tool: fail"}
		}
		return &mcp.ContentResult{StructuredContent: json.RawMessage(`{"args":` + string(args) + `}`)}, nil
	}
	f.Fuzz(func(t *testing.T, src string) {
		res := r.run(t.Context(), src, call)
		require.NotNil(t, res)
		require.NotEmpty(t, res.Content)
		if res.IsError {
			require.NotEmpty(t, res.Text())
			return
		}
		if res.StructuredContent != nil {
			require.True(t, json.Valid(res.StructuredContent.(json.RawMessage)))
		}
	})
}
