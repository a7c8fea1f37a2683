package mcphttp_test

// Hostile input: requests whose cost or reflection is far larger
// than their worth. Each row is one request with the status it must get,
// a bound on the body of the answer, and, after every row, a bound on the
// heap the server keeps. The rows on resources (batch concurrency, session
// caps, slow bodies) are in hostile_resources_test.go.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/lmittmann/tint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

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
			status: 400, maxBody: 1 << 10, code: mcp.CodeInvalidRequest, has: []string{"limit of 64 levels"}},
		{name: "4 MB of [", body: func() string { return strings.Repeat("[", 4_000_000) }, session: "11",
			status: 400, maxBody: 1 << 10},
		{name: "batch of 36,000", body: func() string { return batchOf(36_000) }, session: "03",
			status: 400, maxBody: 1 << 10, code: mcp.CodeInvalidRequest, has: []string{"a batch of 36000 messages exceeds the limit of 100"}},
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
