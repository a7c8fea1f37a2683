package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// nestedArgs is tools/call of "deep" with arguments nesting n arrays
// inside {"v": …}: the message is n+3 levels deep (envelope, params,
// arguments, then the arrays).
func nestedArgs(id, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deep","arguments":{"v":%s%s}}}`,
		id, strings.Repeat("[", n), strings.Repeat("]", n))
}

// deepServer has a raw tool "deep" that takes any arguments and counts
// its runs.
func deepServer(t *testing.T, runs *atomic.Int32) *mcp.Server {
	t.Helper()
	srv := newEngineServer(t, nil)
	srv.AddRawTool(mcp.Tool{Name: "deep"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
		runs.Add(1)
		return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "ran"}}}, nil
	})
	return srv
}

func batchOf(n int) string {
	elems := make([]string, n)
	for i := range elems {
		elems[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
	}
	return "[" + strings.Join(elems, ",") + "]"
}

func TestDecodeLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    *mcphttp.Options
		version string
		body    string
		status  int
		code    int64  // of the error; 0: a result
		msgHas  string // in the error message
		runs    int32  // of the deep tool
		results int    // responses in a batch answer
	}{
		{name: "arguments 60 deep run", body: nestedArgs(1, 60), status: 200, runs: 1},
		{name: "arguments 65 deep refused before the tool runs", body: nestedArgs(1, 65), status: 400, code: mcp.CodeInvalidRequest,
			msgHas: "deeper than the limit of 64 levels (mcphttp.Options.MaxDepth)"},
		{name: "9,990 deep refused", body: nestedArgs(1, 9990), status: 400, code: mcp.CodeInvalidRequest, msgHas: "limit of 64 levels"},
		{name: "a configured MaxDepth accepts 65", opts: &mcphttp.Options{MaxDepth: 128}, body: nestedArgs(1, 65), status: 200, runs: 1},
		{name: "a configured MaxDepth refuses past it", opts: &mcphttp.Options{MaxDepth: 16}, body: nestedArgs(1, 14), status: 400,
			code: mcp.CodeInvalidRequest, msgHas: "deeper than the limit of 16 levels (mcphttp.Options.MaxDepth)"},
		{name: "batch of 100", version: "2025-03-26", body: batchOf(100), status: 200, results: 100},
		{name: "batch of 150", version: "2025-03-26", body: batchOf(150), status: 400, code: mcp.CodeInvalidRequest,
			msgHas: "a batch of 150 messages exceeds the limit of 100 (mcphttp.Options.MaxBatch)"},
		{name: "a configured MaxBatch accepts up to it", opts: &mcphttp.Options{MaxBatch: 3}, version: "2025-03-26", body: batchOf(3), status: 200, results: 3},
		{name: "a configured MaxBatch refuses past it", opts: &mcphttp.Options{MaxBatch: 3}, version: "2025-03-26", body: batchOf(4), status: 400,
			code: mcp.CodeInvalidRequest, msgHas: "a batch of 4 messages exceeds the limit of 3 (mcphttp.Options.MaxBatch)"},
		{name: "a deep element fails the batch", version: "2025-03-26", body: "[" + nestedArgs(1, 70) + "]", status: 400,
			code: mcp.CodeInvalidRequest, msgHas: "limit of 64 levels (mcphttp.Options.MaxDepth)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var runs atomic.Int32
			c, _ := newHTTP(t, deepServer(t, &runs), tt.opts)
			v := tt.version
			if v == "" {
				v = "2025-11-25"
			}
			c.initialize(v)
			status, msgs := c.post(tt.body)
			require.Equal(t, tt.status, status, "%+v", msgs)
			assert.Equal(t, tt.runs, runs.Load(), "runs of the tool")
			if tt.results > 0 {
				require.Len(t, msgs, tt.results)
				for _, m := range msgs {
					assert.Nil(t, m.Error)
				}
				return
			}
			require.Len(t, msgs, 1)
			if tt.code == 0 {
				assert.Equal(t, "ran", toolResult(t, msgs[0]).Text())
				return
			}
			require.NotNil(t, msgs[0].Error)
			assert.Equal(t, tt.code, msgs[0].Error.Code)
			assert.Contains(t, msgs[0].Error.Message, tt.msgHas)
			if !strings.HasPrefix(tt.body, "[") {
				assert.Equal(t, "1", string(msgs[0].ID), "the id is echoed")
			}
		})
	}
}

func TestDecodeLimitDefaults(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 64, mcphttp.DefaultMaxDepth)
	assert.Equal(t, 100, mcphttp.DefaultMaxBatch)
	// The 400 for a deep message is decided before the session is looked
	// up: it needs no session.
	c, _ := newHTTP(t, newEngineServer(t, nil), nil)
	resp, b := c.do(http.MethodPost, nestedArgs(3, 200))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(b), "limit of 64 levels")
}
