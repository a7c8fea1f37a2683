package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/stdio"
)

const (
	testTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	testTracestate  = "vendor=opaque"
	traceMeta       = `"traceparent":"` + testTraceparent + `","tracestate":"` + testTracestate + `"`
)

// traceServer's tool "traced" sends the client everything a tool can
// while serving a request: a log message, progress, streamed content, then
// a sampling, an elicitation and a roots request.
func traceServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "trace", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "traced"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("working")
		_ = c.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2})
		_ = c.StreamContent(ctx, mcp.Text("partial"))
		if _, err := c.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Meta: map[string]any{"own": "kept"},
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}}); err != nil {
			return "", err
		}
		if _, err := c.Elicit(ctx, &mcp.ElicitParams{Message: "ok?", RequestedSchema: map[string]any{"type": "object"}}); err != nil {
			return "", err
		}
		if _, err := c.Roots(ctx); err != nil {
			return "", err
		}
		return "done", nil
	})
	return srv
}

// clientAnswer is a client's result for each server request.
var clientAnswer = map[string]string{
	"sampling/createMessage": `{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}`,
	"elicitation/create":     `{"action":"accept","content":{}}`,
	"roots/list":             `{"roots":[{"uri":"file:///tmp"}]}`,
}

const traceCaps = `{"sampling":{},"elicitation":{},"roots":{}}`

// sent is what the server sent while serving the call: every request and
// notification, by method, with its params.
type sent map[string]json.RawMessage

// requireTraced checks that each of methods was sent with the test's
// trace context in its params' _meta (want false: without any _meta
// member of tracing).
func requireTraced(t *testing.T, got sent, want bool, methods ...string) {
	t.Helper()
	for _, m := range methods {
		params, ok := got[m]
		require.True(t, ok, "%s was not sent; got %v", m, got)
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		require.NoError(t, json.Unmarshal(params, &p), "%s", params)
		if !want {
			assert.NotContains(t, p.Meta, "traceparent", "%s: %s", m, params)
			continue
		}
		assert.Equal(t, testTraceparent, p.Meta["traceparent"], "%s: %s", m, params)
		assert.Equal(t, testTracestate, p.Meta["tracestate"], "%s: %s", m, params)
		if m == "sampling/createMessage" {
			assert.Equal(t, "kept", p.Meta["own"], "the handler's own _meta stays")
		}
	}
}

var tracedMethods = []string{"notifications/message", "notifications/progress", "notifications/tool/streamContent",
	"sampling/createMessage", "elicitation/create", "roots/list"}

// callParams is the params of a tools/call of "traced"; with trace, its
// _meta carries the test's trace context.
func callParams(trace bool) string {
	// The log level matters at 2026-07-28 only, where no level means no
	// log messages.
	meta := `"progressToken":"p1","io.modelcontextprotocol/logLevel":"debug"`
	if trace {
		meta += "," + traceMeta
	}
	return `{"name":"traced","arguments":{},"_meta":{` + meta + `}}`
}

// TestTraceContextReachesTheClient: when a request carries a W3C trace
// context in params._meta, everything the server sends the client while
// serving it carries it too, over Streamable HTTP at 2025-11-25 (server
// requests and notifications on the call's stream) and 2026-07-28 (the
// input-required result's questions), over stdio and in an embedded
// session; without one, nothing gets a traceparent.
func TestTraceContextReachesTheClient(t *testing.T) {
	t.Parallel()
	for _, trace := range []bool{true, false} {
		t.Run(fmt.Sprintf("http 2025-11-25 trace=%v", trace), func(t *testing.T) {
			t.Parallel()
			requireTraced(t, httpCall(t, callParams(trace)), trace, tracedMethods...)
		})
		t.Run(fmt.Sprintf("stdio trace=%v", trace), func(t *testing.T) {
			t.Parallel()
			// roots/list is left out: over stdio the session fetches the
			// roots after initialization, on no request's behalf, and the
			// tool's Roots reads that cache.
			requireTraced(t, stdioCall(t, callParams(trace)), trace, tracedMethods[:5]...)
		})
		t.Run(fmt.Sprintf("embedded trace=%v", trace), func(t *testing.T) {
			t.Parallel()
			requireTraced(t, embeddedCall(t, mcp.Version20251125, trace), trace,
				"notifications/message", "notifications/progress", "notifications/tool/streamContent", "sampling/createMessage")
		})
		t.Run(fmt.Sprintf("http 2026-07-28 trace=%v", trace), func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(traceServer(), nil)
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			extra := `"progressToken":"p1","io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/clientCapabilities":` + traceCaps
			if trace {
				extra += "," + traceMeta
			}
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"traced","arguments":{},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + extra + `}}}`
			resp, msgs := modernPost(t, ts, body, "Mcp-Name", "traced")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v", msgs)
			got := sent{}
			for _, m := range msgs[:len(msgs)-1] {
				got[m.Method] = m.Params
			}
			var ir struct {
				ResultType    string `json:"resultType"`
				InputRequests map[string]struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				} `json:"inputRequests"`
			}
			require.NoError(t, json.Unmarshal(msgs[len(msgs)-1].Result, &ir))
			require.Equal(t, "input_required", ir.ResultType)
			for _, q := range ir.InputRequests {
				got[q.Method] = q.Params
			}
			requireTraced(t, got, trace, "notifications/message", "notifications/progress",
				"notifications/tool/streamContent", "sampling/createMessage")
		})
		t.Run(fmt.Sprintf("embedded 2026-07-28 trace=%v", trace), func(t *testing.T) {
			t.Parallel()
			requireTraced(t, embeddedCall(t, mcp.Version20260728, trace), trace,
				"notifications/message", "notifications/progress", "notifications/tool/streamContent", "sampling/createMessage")
		})
	}
}

// answerer is a scripted client: the result of each server request.
type answerer func(method string, params json.RawMessage) string

func fixedAnswer(method string, _ json.RawMessage) string { return clientAnswer[method] }

// httpCall calls "traced" over Streamable HTTP at 2025-11-25, answering
// the server's requests as they come on the call's stream.
func httpCall(t *testing.T, params string) sent {
	got, _ := httpCallWith(t, traceServer(), traceCaps, params, fixedAnswer)
	return got
}

// httpCallWith sends tools/call with params to srv over Streamable HTTP
// at 2025-11-25, from a client of capabilities caps that answers with
// answer; it returns what the server sent before the response, and the
// response's result.
func httpCallWith(t *testing.T, srv *mcp.Server, caps, params string, answer answerer) (sent, json.RawMessage) {
	t.Helper()
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	post := func(body, sid string) *http.Response {
		hd := []string{"MCP-Protocol-Version", "2025-11-25"}
		if sid != "" {
			hd = append(hd, "Mcp-Session-Id", sid)
		}
		resp, err := ts.Client().Do(wiretest.NewRequest(t.Context(), http.MethodPost, ts.URL, body, hd...))
		require.NoError(t, err)
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`, "")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	resp = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	resp.Body.Close()

	resp = post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`, sid)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := sent{}
	if !strings.Contains(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Nothing was sent before the answer: a plain JSON response.
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
		require.Len(t, msgs, 1)
		require.Nil(t, msgs[0].Error)
		return got, msgs[0].Result
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m wiretest.Msg
		require.NoError(t, json.Unmarshal([]byte(data), &m))
		if m.IsResponse() {
			require.Nil(t, m.Error)
			return got, m.Result
		}
		got[m.Method] = m.Params
		if m.ID != nil {
			r := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, answer(m.Method, m.Params)), sid)
			r.Body.Close()
		}
	}
	t.Fatalf("the stream ended without the response: %v", sc.Err())
	return nil, nil
}

// stdioCall calls "traced" over stdio, answering the server's requests.
func stdioCall(t *testing.T, params string) sent {
	got, _ := stdioCallWith(t, traceServer(), traceCaps, params, fixedAnswer)
	return got
}

// stdioCallWith is httpCallWith over stdio.
func stdioCallWith(t *testing.T, srv *mcp.Server, caps, params string, answer answerer) (sent, json.RawMessage) {
	t.Helper()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(ctx, h, inR, outW, nil)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	var mu sync.Mutex
	send := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(inW, s+"\n") // fails only once the test ends
	}
	// The pipes have no buffer: read on a goroutine of its own, send on another.
	lines := make(chan []byte, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	go func() {
		send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`)
	}()
	got := sent{}
	for line := range lines {
		var m wiretest.Msg
		require.NoError(t, json.Unmarshal(line, &m))
		switch {
		case m.IsResponse() && string(m.ID) == "1":
			require.Nil(t, m.Error)
			return got, m.Result
		case m.IsResponse():
		case m.ID != nil:
			got[m.Method] = m.Params
			go send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, answer(m.Method, m.Params)))
		default:
			if !strings.HasSuffix(m.Method, "list_changed") {
				got[m.Method] = m.Params
			}
		}
	}
	t.Fatal("stdout ended without the response")
	return nil, nil
}

// embeddedCall calls "traced" in an embedded session of version.
func embeddedCall(t *testing.T, version mcp.Version, trace bool) sent {
	t.Helper()
	var mu sync.Mutex
	got := sent{}
	record := func(method string, params json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := got[method]; !ok {
			got[method] = params
		}
	}
	answer := func(method string, v any) error { return json.Unmarshal([]byte(clientAnswer[method]), v) }
	e := mcptest.NewSession(t, traceServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, OnNotification: record, Sample: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		record("sampling/createMessage", b)
		var r mcp.CreateMessageResult
		return &r, answer("sampling/createMessage", &r)
	},
		// An embedded client's elicitation and roots handlers do not
		// see _meta; the HTTP and stdio cases check those requests.
		Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			var r mcp.ElicitResult
			return &r, answer("elicitation/create", &r)
		},
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///tmp"}}, nil
		}}}).Client()
	var params map[string]any
	require.NoError(t, json.NewDecoder(bytes.NewReader([]byte(callParams(trace)))).Decode(&params))
	// The call's own _meta (its progress token, log level and trace
	// context); AfterNotifications: OnNotification has seen what the
	// server sent before the answer.
	meta, _ := params["_meta"].(map[string]any)
	res, err := e.CallTool(t.Context(), "traced", params["arguments"], &client.CallOptions{Meta: meta, AfterNotifications: true})
	require.NoError(t, err)
	require.Equal(t, "done", res.Text())
	mu.Lock()
	defer mu.Unlock()
	return got
}

// TestTraceContextReachesATasksQuestions: a task's questions (its
// inputRequests in tasks/get) carry the trace context of the request that
// made the task.
func TestTraceContextReachesATasksQuestions(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(newTaskServer(t, &taskTools{stopped: make(chan error, 8)}), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},"_meta":{` + traceMeta +
		`,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{` + tasksExt + `,"elicitation":{}}}}}`
	_, m := tasksPost(t, ts.URL, body, "confirm")
	w := decodeTask(t, m)
	require.Equal(t, "task", w.ResultType, "%s", m.Result)
	w = waitStatus(t, ts.URL, w.TaskID, "input_required")
	require.Len(t, w.InputRequests, 1)
	for _, q := range w.InputRequests {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		require.NoError(t, json.Unmarshal(q, &r))
		requireTraced(t, sent{r.Method: r.Params}, true, "elicitation/create")
	}
}
