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
	"github.com/mcpchain/mcp/internal/wiretest"
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
				assert.Equal(t, "ran", wiretest.ToolResult(t, msgs[0]).Text())
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

// TestProtocolVersionHeader: on a session, MCP-Protocol-Version must be the
// version initialize negotiated; a missing header means that version (the
// transport spec: the server relies on the negotiated version). Batches
// are allowed by the negotiated version, not by what the header claims.
func TestProtocolVersionHeader(t *testing.T) {
	t.Parallel()
	ping := `{"jsonrpc":"2.0","id":5,"method":"ping"}`
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	mismatch := func(header, session string) string {
		return fmt.Sprintf(`MCP-Protocol-Version %q does not match the session's negotiated version %q`, header, session)
	}
	tests := []struct {
		name     string
		session  string // negotiated version
		method   string // default POST
		body     string
		header   string // MCP-Protocol-Version; "" sends none
		status   int
		msgHas   string
		idEchoed bool
	}{
		{name: "matching header", session: "2025-11-25", body: ping, header: "2025-11-25", status: 200},
		{name: "missing header assumes the negotiated version", session: "2025-11-25", body: ping, status: 200},
		{name: "older header on a newer session", session: "2025-11-25", body: ping, header: "2025-03-26", status: 400,
			msgHas: mismatch("2025-03-26", "2025-11-25"), idEchoed: true},
		{name: "2024-11-05 header on a 2025-11-25 session", session: "2025-11-25", body: ping, header: "2024-11-05", status: 400,
			msgHas: mismatch("2024-11-05", "2025-11-25"), idEchoed: true},
		{name: "newer header on an older session", session: "2025-03-26", body: ping, header: "2025-06-18", status: 400,
			msgHas: mismatch("2025-06-18", "2025-03-26"), idEchoed: true},
		{name: "notification with a mismatching header", session: "2025-06-18", body: `{"jsonrpc":"2.0","method":"notifications/x"}`,
			header: "2025-11-25", status: 400, msgHas: mismatch("2025-11-25", "2025-06-18")},
		{name: "unsupported header still named as such", session: "2025-11-25", body: ping, header: "1999-01-01", status: 400,
			msgHas: `unsupported MCP-Protocol-Version "1999-01-01"`},
		{name: "batch claiming 2025-03-26 on a 2025-11-25 session", session: "2025-11-25", body: batch, header: "2025-03-26", status: 400,
			msgHas: mismatch("2025-03-26", "2025-11-25")},
		{name: "batch without header on a 2025-11-25 session", session: "2025-11-25", body: batch, status: 400,
			msgHas: "only allowed in protocol revision 2025-03-26, not 2025-11-25"},
		{name: "batch on a 2025-03-26 session", session: "2025-03-26", body: batch, header: "2025-03-26", status: 200},
		{name: "batch without header on a 2025-03-26 session", session: "2025-03-26", body: batch, status: 200},
		{name: "batch on a 2025-03-26 session with another header", session: "2025-03-26", body: batch, header: "2025-11-25", status: 400,
			msgHas: mismatch("2025-11-25", "2025-03-26")},
		{name: "GET with a mismatching header", session: "2025-11-25", method: http.MethodGet, header: "2025-06-18", status: 400,
			msgHas: mismatch("2025-06-18", "2025-11-25")},
		{name: "DELETE with a mismatching header", session: "2025-11-25", method: http.MethodDelete, header: "2025-06-18", status: 400,
			msgHas: mismatch("2025-06-18", "2025-11-25")},
		{name: "DELETE with the negotiated header", session: "2025-11-25", method: http.MethodDelete, header: "2025-11-25", status: 204},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newEngineServer(t, nil), nil)
			c.initialize(tt.session)
			c.version = tt.header
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			resp, b := c.do(method, tt.body)
			require.Equal(t, tt.status, resp.StatusCode, "%s", b)
			if tt.msgHas == "" {
				return
			}
			msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].Error)
			assert.Contains(t, msgs[0].Error.Message, tt.msgHas)
			if tt.idEchoed {
				assert.Equal(t, "5", string(msgs[0].ID))
			}
		})
	}
}

// TestAllowVersionMismatch: the option lets a supported version through
// (served as the negotiated one: a batch stays refused), never an
// unsupported one.
func TestAllowVersionMismatch(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newEngineServer(t, nil), &mcphttp.Options{AllowVersionMismatch: true})
	c.initialize("2025-11-25")
	c.version = "2025-03-26"
	status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, msgs, 1)
	assert.Nil(t, msgs[0].Error)
	status, msgs = c.post(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	assert.Equal(t, http.StatusBadRequest, status)
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0].Error.Message, "not 2025-11-25", "the negotiated version decides")
	c.version = "1999-01-01"
	status, _ = c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, http.StatusBadRequest, status)
}
