package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// A script run again runs its kept compiled form, with nothing of the
// earlier run: its globals, values, tool calls and allocation budget
// start afresh, concurrent runs of it included. At most programCacheSize
// scripts are kept, the least recently used dropped; a script that does
// not compile is not kept, and fails again with its error; nor is one
// longer than maxCachedScriptBytes.
func TestProgramCache(t *testing.T) {
	t.Parallel()
	r := &Runner{name: DefaultTool, maxSteps: 10_000, timeout: 5 * time.Second, maxCalls: 2, maxOut: 4096, maxAlloc: 1 << 20,
		programs: newProgramCache(programCacheSize)}
	call := func(_ context.Context, name string, args json.RawMessage) (any, error) {
		return &mcp.ContentResult{StructuredContent: json.RawMessage(`{"n":1}`)}, nil
	}
	// Two calls (the limit), a list built and changed, a global reassigned.
	src := "l = [call('t')['n']]\nl.append(call('t')['n'])\nx = 1\nx += len(l)\nresult = [l, x, 'a' * 1000]"
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res := r.run(t.Context(), src, call)
			if assert.False(t, res.IsError, res.Text()) {
				b, err := json.Marshal(res.StructuredContent)
				assert.NoError(t, err)
				assert.JSONEq(t, fmt.Sprintf(`{"result":[[1,1],3,%q]}`, strings.Repeat("a", 1000)), string(b))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 1, r.programs.len())

	res := r.run(t.Context(), "x = (", call)
	require.True(t, res.IsError)
	assert.Contains(t, res.Text(), "syntax error at line 1")
	res = r.run(t.Context(), "x = (", call)
	assert.Contains(t, res.Text(), "syntax error at line 1")
	res = r.run(t.Context(), "result = undefined_name", call)
	assert.Contains(t, res.Text(), "undefined: undefined_name")
	assert.Equal(t, 1, r.programs.len(), "scripts that do not compile are not kept")
	long := "result = 1" + strings.Repeat(" ", maxCachedScriptBytes)
	require.False(t, r.run(t.Context(), long, call).IsError)
	assert.Equal(t, 1, r.programs.len(), "a long script is not kept")

	for i := range programCacheSize + 10 {
		res := r.run(t.Context(), fmt.Sprintf("result = %d", i), call)
		require.False(t, res.IsError, res.Text())
		if i == 20 {
			// Used again: kept over older ones.
			assert.False(t, r.run(t.Context(), src, call).IsError)
		}
	}
	assert.Equal(t, programCacheSize, r.programs.len())
	_, kept := r.programs.get(sha256Of(src))
	assert.True(t, kept, "used after 20 others, so among the last 64")
	_, kept = r.programs.get(sha256Of("result = 0"))
	assert.False(t, kept, "the least recently used is dropped")
	_, kept = r.programs.get(sha256Of(fmt.Sprintf("result = %d", programCacheSize+9)))
	assert.True(t, kept)
}
