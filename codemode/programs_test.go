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
	_, kept := r.programs.get(programKey(partition{cacheable: true}, src))
	assert.True(t, kept, "used after 20 others, so among the last 64")
	_, kept = r.programs.get(programKey(partition{cacheable: true}, "result = 0"))
	assert.False(t, kept, "the least recently used is dropped")
	_, kept = r.programs.get(programKey(partition{cacheable: true}, fmt.Sprintf("result = %d", programCacheSize+9)))
	assert.True(t, kept)
}

// TestProgramCachePerCaller: a compiled script is reused only by its own
// caller (anonymous callers share one partition), so the time a script
// takes tells nobody what another caller ran; a caller whose auth data
// has no subject keeps nothing.
func TestProgramCachePerCaller(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		auth any
		want partition
	}{
		{"anonymous", nil, partition{cacheable: true}},
		{"subject", subjectAuth("ada"), partition{key: "sub:ada", cacheable: true}},
		{"no subject", struct{ Token string }{"t"}, partition{}},
	} {
		assert.Equal(t, tc.want, partitionOf(tc.auth), tc.name)
	}
	r := &Runner{name: DefaultTool, maxSteps: 10_000, timeout: 5 * time.Second, maxCalls: 2, maxOut: 4096, maxAlloc: 1 << 20,
		programs: newProgramCache(programCacheSize)}
	call := func(context.Context, string, json.RawMessage) (any, error) { return nil, nil }
	as := func(auth any) context.Context {
		return context.WithValue(t.Context(), partitionKey{}, partitionOf(auth))
	}
	src := "result = 1"
	for _, auth := range []any{subjectAuth("ada"), subjectAuth("ada"), subjectAuth("bob"), nil, nil} {
		require.False(t, r.run(as(auth), src, call).IsError)
	}
	assert.Equal(t, 3, r.programs.len(), "one compiled script each for ada, bob and the anonymous callers")
	require.False(t, r.run(as(struct{ Token string }{"t"}), src, call).IsError)
	assert.Equal(t, 3, r.programs.len(), "a caller without a subject keeps nothing")
}

// subjectAuth is auth data with a subject.
type subjectAuth string

func (s subjectAuth) Subject() string { return string(s) }
