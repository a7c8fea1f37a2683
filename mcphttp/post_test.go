package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lmittmann/tint"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{name: "arguments 65 deep refused before the tool runs", body: nestedArgs(1, 65), status: 400, code: jsonrpc.CodeInvalidRequest,
			msgHas: "deeper than the limit of 64 levels (mcphttp.Options.MaxDepth)"},
		{name: "9,990 deep refused", body: nestedArgs(1, 9990), status: 400, code: jsonrpc.CodeInvalidRequest, msgHas: "limit of 64 levels"},
		{name: "a configured MaxDepth accepts 65", opts: &mcphttp.Options{MaxDepth: 128}, body: nestedArgs(1, 65), status: 200, runs: 1},
		{name: "a configured MaxDepth refuses past it", opts: &mcphttp.Options{MaxDepth: 16}, body: nestedArgs(1, 14), status: 400,
			code: jsonrpc.CodeInvalidRequest, msgHas: "deeper than the limit of 16 levels (mcphttp.Options.MaxDepth)"},
		{name: "batch of 100", version: "2025-03-26", body: batchOf(100), status: 200, results: 100},
		{name: "batch of 150", version: "2025-03-26", body: batchOf(150), status: 400, code: jsonrpc.CodeInvalidRequest,
			msgHas: "a batch of 150 messages exceeds the limit of 100 (mcphttp.Options.MaxBatch)"},
		{name: "a configured MaxBatch accepts up to it", opts: &mcphttp.Options{MaxBatch: 3}, version: "2025-03-26", body: batchOf(3), status: 200, results: 3},
		{name: "a configured MaxBatch refuses past it", opts: &mcphttp.Options{MaxBatch: 3}, version: "2025-03-26", body: batchOf(4), status: 400,
			code: jsonrpc.CodeInvalidRequest, msgHas: "a batch of 4 messages exceeds the limit of 3 (mcphttp.Options.MaxBatch)"},
		{name: "a deep element fails the batch", version: "2025-03-26", body: "[" + nestedArgs(1, 70) + "]", status: 400,
			code: jsonrpc.CodeInvalidRequest, msgHas: "limit of 64 levels (mcphttp.Options.MaxDepth)"},
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

// Hostile input: requests whose cost or reflection is far larger
// than their worth. Each row is one request with the status it must get,
// a bound on the body of the answer, and, after every row, a bound on the
// heap the server keeps. The rows on resources (batch concurrency, session
// caps, slow bodies) are TestHostileResources's, in limits_test.go.

// hostileHeapSlack bounds the heap the server may keep (HeapInuse after a
// GC, over what it was before the first row) after any row: the attacks
// send up to 4 MiB each, and none of it may stay.
const hostileHeapSlack = 16 << 20

// hostileInput is one row: a request and what must come back.
type hostileInput struct {
	name    string
	method  string // default POST
	body    func() string
	header  map[string]string // "Host" sets the request's Host
	session string            // "": none; "11" or "03": a session at 2025-11-25 or 2025-03-26
	status  int
	maxBody int      // bytes
	code    int64    // of the JSON-RPC error in the body; 0: not checked
	has     []string // in the body
	isError bool     // a tool result with isError
}

var (
	huge        = strings.Repeat("h", 900<<10)          // 900 KB, under the 1 MB header limit
	hugeInvalid = strings.Repeat("\xff\xfe", 2_000_000) // 4 MB of invalid UTF-8
	hugeName    = strings.Repeat("n", 1<<20)
)

func rpc(method, params string) func() string {
	return func() string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	}
}

func hostileRows() []hostileInput {
	return []hostileInput{
		{name: "900 KB Host", header: map[string]string{"Host": huge}, body: rpc("ping", `{}`), session: "11",
			status: 403, maxBody: 1 << 10, has: []string{"Host", "…"}},
		{name: "900 KB Origin", header: map[string]string{"Origin": "http://" + huge}, body: rpc("ping", `{}`), session: "11",
			status: 403, maxBody: 1 << 10, has: []string{"Origin", "…"}},
		{name: "900 KB Content-Type", header: map[string]string{"Content-Type": "text/" + huge}, body: rpc("ping", `{}`), session: "11",
			status: 415, maxBody: 1 << 10, has: []string{"Content-Type", "…"}},
		{name: "900 KB Accept", header: map[string]string{"Accept": "text/" + huge}, body: rpc("ping", `{}`), session: "11",
			status: 406, maxBody: 1 << 10},
		{name: "900 KB session ID", header: map[string]string{"Mcp-Session-Id": huge}, body: rpc("ping", `{}`),
			status: 400, maxBody: 1 << 10, has: []string{"Mcp-Session-Id"}},
		{name: "unknown session ID", header: map[string]string{"Mcp-Session-Id": "x" + strings.Repeat("y", 255)}, body: rpc("ping", `{}`),
			status: 404, maxBody: 1 << 10},
		{name: "900 KB protocol version", header: map[string]string{"MCP-Protocol-Version": huge}, body: rpc("ping", `{}`), session: "11",
			status: 400, maxBody: 1 << 10, has: []string{"unsupported MCP-Protocol-Version", "…"}},
		{name: "protocol version not the negotiated one", header: map[string]string{"MCP-Protocol-Version": "2025-03-26"}, body: rpc("ping", `{}`), session: "11",
			status: 400, maxBody: 1 << 10, has: []string{`\"2025-03-26\" does not match the session's negotiated version \"2025-11-25\"`}},
		{name: "900 KB HTTP method", method: strings.Repeat("X", 900<<10), body: rpc("ping", `{}`), session: "11",
			status: 405, maxBody: 1 << 10, has: []string{"…"}},
		{name: "4 MB invalid UTF-8 tool name", body: rpc("tools/call", `{"name":"`+hugeInvalid+`"}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"Unknown tool", `\\ufffd`, "…"}},
		{name: "1 MB invalid UTF-8 method name", body: func() string { return `{"jsonrpc":"2.0","id":7,"method":"` + hugeInvalid[:1<<20] + `"}` }, session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeMethodNotFound, has: []string{"…"}},
		{name: "1 MB prompt name", body: rpc("prompts/get", `{"name":"`+hugeName+`"}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"Unknown prompt", "…"}},
		{name: "1 MB resource URI", body: rpc("resources/read", `{"uri":"mem://`+hugeName+`"}`), session: "11",
			status: 200, maxBody: 2 << 10, code: mcp.CodeInvalidParams, has: []string{"Resource not found", "…"}},
		{name: "1 MB template URI to complete", body: rpc("completion/complete", `{"ref":{"type":"ref/resource","uri":"`+hugeName+`"},"argument":{"name":"x","value":""}}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"Unknown resource template", "…"}},
		{name: "1 MB prompt argument to complete", body: rpc("completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"`+hugeName+`","value":""}}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"has no argument", "…"}},
		{name: "1 MB reference type", body: rpc("completion/complete", `{"ref":{"type":"`+hugeName+`"},"argument":{"name":"x","value":""}}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"Unknown reference type", "…"}},
		{name: "1 MB prompt enum value", body: rpc("prompts/get", `{"name":"mood","arguments":{"mood":"`+hugeName+`"}}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"must be one of", "…"}},
		{name: "1 MB log level", body: rpc("logging/setLevel", `{"level":"`+hugeName+`"}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"not a log level", "…"}},
		{name: "1 MB cursor", body: rpc("tools/list", `{"cursor":"`+hugeName+`"}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"cursor", "…"}},
		{name: "10,000 unexpected arguments of 300 bytes", body: func() string {
			var b strings.Builder
			b.WriteString(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2`)
			for i := range 10_000 {
				fmt.Fprintf(&b, `,"%05d%s":1`, i, strings.Repeat("x", 300))
			}
			b.WriteString(`}}}`)
			return b.String()
		}, session: "11", status: 200, maxBody: 2 << 10, isError: true, has: []string{"is not accepted", "9996 more", "…"}},
		{name: "3 MB argument of the wrong type", body: rpc("tools/call", `{"name":"add","arguments":{"a":"`+strings.Repeat("v", 3<<20)+`","b":2}}`), session: "11",
			status: 200, maxBody: 2 << 10, isError: true, has: []string{`argument \"a\"`, "…"}},
		{name: "300 KB unexpected argument name", body: rpc("tools/call", `{"name":"add","arguments":{"a":1,"b":2,"A`+strings.Repeat("x", 300<<10)+`":1}}`), session: "11",
			status: 200, maxBody: 2 << 10, isError: true, has: []string{"is not accepted", "…"}},
		{name: "argument a case variant of a schema property", body: rpc("tools/call", `{"name":"add","arguments":{"a":1,"b":2,"A":5}}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{`argument \"A\" of tool \"add\" is not \"a\"`}},
		{name: "case-variant params member", body: rpc("tools/call", `{"name":"add","Name":"echo","arguments":{"a":1,"b":2}}`), session: "11",
			status: 200, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{`\"Name\"`}},
		{name: "duplicate member with a 1 MB name", body: rpc("tools/call", `{"name":"add","arguments":{"`+strings.Repeat("d", 1<<20)+`":1,"`+strings.Repeat("d", 1<<20)+`":2}}`), session: "11",
			status: 400, maxBody: 1 << 10, code: mcp.CodeInvalidParams, has: []string{"duplicate member", "…"}},
		{name: "arguments 9,990 deep", body: rpc("tools/call", `{"name":"add","arguments":{"a":`+strings.Repeat("[", 9990)+strings.Repeat("]", 9990)+`}}`), session: "11",
			status: 400, maxBody: 1 << 10, code: jsonrpc.CodeInvalidRequest, has: []string{"limit of 64 levels"}},
		{name: "4 MB of [", body: func() string { return strings.Repeat("[", 4_000_000) }, session: "11",
			status: 400, maxBody: 1 << 10},
		{name: "batch of 36,000", body: func() string { return batchOf(36_000) }, session: "03",
			status: 400, maxBody: 1 << 10, code: jsonrpc.CodeInvalidRequest, has: []string{"a batch of 36000 messages exceeds the limit of 100"}},
		{name: "body over 4 MiB", body: rpc("ping", `{"x":"`+strings.Repeat("b", 5<<20)+`"}`), session: "11",
			status: 413, maxBody: 1 << 10},
		{name: "response with a 3 MB unknown id", body: func() string {
			return `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 3<<20) + `","result":{}}`
		}, session: "11", status: 202, maxBody: 0},
		{name: "malformed cancellation with 3 MB params", body: func() string {
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"` + strings.Repeat("r", 3<<20) + `"}}`
		}, session: "11", status: 202, maxBody: 0},
	}
}

// hostileServer serves the engine's test server (plus a prompt with an
// enum argument) on a loopback listener; everything it logs goes to logs.
func hostileServer(t *testing.T, logs io.Writer) *httptest.Server {
	t.Helper()
	logger := slog.New(tint.NewTextHandler(logs, &tint.Options{NoColor: true, Level: slog.LevelDebug}))
	srv := mcp.NewServer(mcp.Options{Name: "hostile", Version: "1.0.0", Logger: logger})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name"}},
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("hi"), nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "mood", Arguments: []mcp.PromptArgument{{Name: "mood", Enum: []string{"happy", "sad"}}},
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("hi"), nil
		}})
	h := mcphttp.New(srv, &mcphttp.Options{Logger: logger})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestHostileInputs runs the rows one after another (not in parallel: the
// heap bound is measured between them).
func TestHostileInputs(t *testing.T) {
	var logs wiretest.SyncBuffer
	ts := hostileServer(t, &logs)
	sessions := map[string]*httpClient{}
	for key, v := range map[string]string{"11": "2025-11-25", "03": "2025-03-26"} {
		c := &httpClient{t: t, url: ts.URL, hc: ts.Client()}
		c.initialize(v)
		sessions[key] = c
	}
	rows := hostileRows()
	base := heapInuse() // with the table's own bodies
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			method := row.method
			if method == "" {
				method = http.MethodPost
			}
			req, err := http.NewRequest(method, ts.URL, strings.NewReader(row.body()))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c := sessions[row.session]; c != nil {
				req.Header.Set("Mcp-Session-Id", c.sid)
			}
			for k, v := range row.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
			_ = resp.Body.Close()
			require.NoError(t, err)
			assert.Equal(t, row.status, resp.StatusCode, "%.300s", body)
			assert.LessOrEqual(t, len(body), row.maxBody, "the answer is bounded; it begins %.300s", body)
			for _, s := range row.has {
				assert.Contains(t, string(body), s)
			}
			if row.code != 0 || row.isError {
				msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), body)
				require.Len(t, msgs, 1)
				if row.code != 0 {
					require.NotNil(t, msgs[0].Error, "%s", body)
					assert.Equal(t, row.code, msgs[0].Error.Code)
				} else {
					assert.True(t, wiretest.ToolResult(t, msgs[0]).IsError, "%s", body)
				}
			}
			req = nil
			body = nil
			inuse := heapInuse()
			assert.Less(t, inuse, base+hostileHeapSlack,
				"heap in use after the row: %d MiB, before the rows: %d MiB, allowed: %d MiB more", inuse>>20, base>>20, hostileHeapSlack>>20)
		})
	}
	// Nothing a client sent makes a log line long.
	for _, line := range strings.Split(logs.String(), "\n") {
		assert.Less(t, len(line), 2<<10, "a log line of %d bytes: %.300s", len(line), line)
	}
}

// TestLogsShowClientValues: a client's value in a log line is capped, and
// nothing after a U+FFFD or an invalid byte disappears (tint, the default
// handler, stops at the first one).
func TestLogsShowClientValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"response id with U+FFFD", `{"jsonrpc":"2.0","id":"visible` + "\uFFFD" + `HIDDEN","result":{}}`, []string{"matches no request", `visible\\ufffdHIDDEN`}},
		{"response id with an invalid byte", `{"jsonrpc":"2.0","id":"visible` + "\xff" + `HIDDEN","result":{}}`, []string{"matches no request", `visible\\xffHIDDEN`}},
		{"response id of 3 MB", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 3<<20) + `","result":{}}`, []string{"matches no request", "…"}},
		{"malformed cancellation", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"visible` + "\uFFFD" + `HIDDEN"}}`, []string{"malformed notifications/cancelled", `visible\\ufffdHIDDEN`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs wiretest.SyncBuffer
			ts := hostileServer(t, &logs)
			c := &httpClient{t: t, url: ts.URL, hc: ts.Client()}
			c.initialize("2025-11-25")
			status, _ := c.post(tt.body)
			require.Equal(t, http.StatusAccepted, status)
			out := logs.String()
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
			for _, line := range strings.Split(out, "\n") {
				assert.Less(t, len(line), 1<<10, "%.300s", line)
			}
		})
	}
}

// TestRefusedBodyNamesTheRequest: a POST refused before its whole body
// was read (413 over the size limit, 408 too slow) answers with the
// request's id when the part that arrived names it. Clients such as the
// official Go SDK end their whole connection on an error status whose
// JSON-RPC error has a null id, and fail only the one call otherwise.
func TestRefusedBodyNamesTheRequest(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, &mcphttp.Options{MaxBodyBytes: 1024, BodyReadTimeout: 300 * time.Millisecond})
	sid := initSession(t, ts, "")
	big := strings.Repeat("a", 4096)
	goOrder := `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"add","arguments":{"s":"` + big + `"}}}`
	tsOrder := `{"method":"tools/call","params":{"name":"add","arguments":{"s":"` + big + `"}},"jsonrpc":"2.0","id":41}`
	for _, tt := range []struct {
		name    string
		body    string
		chunked bool
		expect  bool // Expect: 100-continue
		wantID  string
	}{
		{"Content-Length over the limit", goOrder, false, false, `41`},
		{"chunked past the limit", goOrder, true, false, `41`},
		{"string id", strings.Replace(goOrder, `41`, `"r-7"`, 1), false, false, `"r-7"`},
		{"id after the cut", tsOrder, false, false, `null`},
		{"waits for 100 Continue", goOrder, false, true, `null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // no Content-Length
			}
			hr, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", body)
			require.NoError(t, err)
			hr.Header.Set("Content-Type", "application/json")
			hr.Header.Set("Accept", "application/json, text/event-stream")
			hr.Header.Set("Mcp-Session-Id", sid)
			if tt.expect {
				hr.Header.Set("Expect", "100-continue")
			}
			resp, err := ts.Client().Do(hr)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "%s", b)
			var msg struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(b, &msg), "%s", b)
			assert.Equal(t, tt.wantID, string(msg.ID))
			assert.Equal(t, -32600, msg.Error.Code)
			assert.Contains(t, msg.Error.Message, "exceeds 1024 bytes")
		})
	}

	t.Run("a body that stops arriving", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		require.NoError(t, err)
		defer conn.Close()
		part := `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{`
		_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: 500\r\n\r\n%s",
			strings.TrimPrefix(ts.URL, "http://"), sid, part)
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		answer, err := io.ReadAll(conn)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(answer), "HTTP/1.1 408 "), "%q", answer)
		assert.Contains(t, string(answer), `"id":"slow-1"`)
		assert.Contains(t, string(answer), "BodyReadTimeout")
	})
}
