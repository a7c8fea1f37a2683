package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// urlForm is the form the "form" tool asks.
type urlForm struct {
	Color string `json:"color" enum:"r,g" enumTitles:"Red,Green"`
}

// newURLServer has the tools of the URL-elicitation tests: "connect" asks
// with elicit.OpenURL during the call, "needs" returns elicit.URLRequired
// until *done is set, "form" asks a typed form.
func newURLServer() (*mcp.Server, *atomic.Bool) {
	srv := quietServer(mcp.Options{})
	done := new(atomic.Bool)
	mcp.AddTool(srv, mcp.Tool{Name: "connect"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "el-1", URL: "https://example.com/connect?id=el-1", Message: "Connect your account"})
		if errors.Is(err, mcp.ErrURLElicitation) {
			return "refused: " + err.Error(), nil
		} else if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "needs"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		if done.Load() {
			return "connected", nil
		}
		return "", elicit.URLRequired(elicit.URLRequest{ID: "el-2", URL: "https://example.com/connect?id=el-2", Message: "Authorize"})
	})
	mcp.AddTool(srv, mcp.Tool{Name: "form"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		v, action, err := elicit.As[urlForm](ctx, c, "Pick a color")
		if errors.Is(err, mcp.ErrCapability) {
			return "refused: " + err.Error(), nil
		} else if err != nil {
			return "", err
		}
		return action + " " + v.Color, nil
	})
	return srv, done
}

const (
	urlConnect = `{"mode":"url","message":"Connect your account","elicitationId":"el-1","url":"https://example.com/connect?id=el-1"}`
	urlNeeds   = `{"mode":"url","message":"Authorize","elicitationId":"el-2","url":"https://example.com/connect?id=el-2"}`
)

// TestURLElicitationHTTP: at 2025-11-25 over Streamable HTTP, ElicitURL is
// an elicitation/create request in URL mode with the elicitationId;
// URLElicitationRequired is the -32042 error with data.elicitations;
// elicit.Complete reaches the asking session's GET stream (and no
// other session); a client without elicitation.url is never sent either
// and gets results that say why; a URL-only client gets no form.
func TestURLElicitationHTTP(t *testing.T) {
	t.Parallel()
	srv, _ := newURLServer()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	c, _ := newHTTP(t, srv, nil)
	c.initWith(`{"elicitation":{"form":{},"url":{}}}`, "url-client")
	other, _ := newHTTP(t, srv, nil)
	other.url = c.url
	other.initWith(`{"elicitation":{"url":{}}}`, "other")
	get := c.getStream(ctx)
	otherGet := other.getStream(ctx)

	s := c.open(ctx, http.MethodPost, toolCall(1, "connect", `{}`))
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	assert.JSONEq(t, urlConnect, string(req.Params), "URL mode with its elicitationId, no requestedSchema")
	status, _ := c.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept"}}`)
	require.Equal(t, http.StatusAccepted, status)
	res := nextData(t, s)
	require.True(t, res.IsResponse())
	assert.Equal(t, "accept", wiretest.ToolResult(t, res).Text())

	resp, before := c.call(2, "tools/call", `{"name":"needs","arguments":{}}`)
	assert.Empty(t, before)
	require.NotNil(t, resp.Error, "a -32042 error, not a result")
	assert.Equal(t, int64(mcp.CodeURLElicitationRequired), resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "Authorize")
	assert.JSONEq(t, `{"elicitations":[`+urlNeeds+`]}`, string(resp.Error.Data))

	elicit.Complete(srv, "no-such-session", "el-9")
	elicit.Complete(srv, c.sid, "el-2")
	elicit.Complete(srv, other.sid, "el-3")
	n := nextData(t, get)
	assert.Equal(t, "notifications/elicitation/complete", n.Method)
	assert.JSONEq(t, `{"elicitationId":"el-2"}`, string(n.Params), "the asking session gets its own, first")
	n = nextData(t, otherGet)
	assert.JSONEq(t, `{"elicitationId":"el-3"}`, string(n.Params))

	// URL mode only: a form is refused before anything is sent.
	resp, before = other.call(3, "tools/call", `{"name":"form","arguments":{}}`)
	assert.Empty(t, before)
	assert.Contains(t, wiretest.ToolResult(t, resp).Text(), "refused: mcp: the client did not declare that capability: form-mode elicitation needs the client to declare elicitation.form")

	// Form mode only ({} is form only): nothing in URL mode is sent.
	formOnly, _ := newHTTP(t, srv, nil)
	formOnly.initWith(`{"elicitation":{}}`, "form-only")
	resp, before = formOnly.call(4, "tools/call", `{"name":"connect","arguments":{}}`)
	assert.Empty(t, before, "no elicitation/create")
	assert.Contains(t, wiretest.ToolResult(t, resp).Text(), "refused: mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url")
	resp, before = formOnly.call(5, "tools/call", `{"name":"needs","arguments":{}}`)
	assert.Empty(t, before)
	require.Nil(t, resp.Error, "no -32042 to a client that cannot show it")
	r := wiretest.ToolResult(t, resp)
	assert.True(t, r.IsError)
	assert.Equal(t, `Tool "needs" needs the user to open a page outside the client (Authorize), but the client did not declare URL-mode elicitation (capability elicitation.url).`, r.Text())
}

// TestURLElicitationFormWire: a typed form goes out as a flat
// requestedSchema with a titled enum and no mode (older clients), and the
// answer comes back decoded.
func TestURLElicitationFormWire(t *testing.T) {
	t.Parallel()
	srv, _ := newURLServer()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _ := newHTTP(t, srv, nil)
	c.initWith(`{"elicitation":{}}`, "form-client")
	s := c.open(ctx, http.MethodPost, toolCall(1, "form", `{}`))
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	assert.JSONEq(t, `{"message":"Pick a color","requestedSchema":{"type":"object","properties":{
		"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}},"required":["color"]}}`, string(req.Params))
	status, _ := c.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept","content":{"color":"g"}}}`)
	require.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, "accept g", wiretest.ToolResult(t, nextData(t, s)).Text())
}

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
		if _, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 5, Meta: map[string]any{"own": "kept"},
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}}); err != nil {
			return "", err
		}
		if _, err := elicit.Create(ctx, c, &elicit.Params{Message: "ok?", RequestedSchema: map[string]any{"type": "object"}}); err != nil {
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
			resp, msgs := rev20260728Post(t, ts, body, "Mcp-Name", "traced")
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
	p := serveStdio(t, h)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`)
	got := sent{}
	for m := range p.lines {
		switch {
		case m.IsResponse() && string(m.ID) == "1":
			require.Nil(t, m.Error)
			return got, m.Result
		case m.IsResponse():
		case m.ID != nil:
			got[m.Method] = m.Params
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, answer(m.Method, m.Params)))
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
	e := mcptest.NewSession(t, traceServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, OnNotification: record, Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		record("sampling/createMessage", b)
		var r sampling.Result
		return &r, answer("sampling/createMessage", &r)
	},
		// An embedded client's elicitation and roots handlers do not
		// see _meta; the HTTP and stdio cases check those requests.
		Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			var r elicit.Result
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

// loopServer's tool "plan" runs a tool loop offering its tool "weather".
func loopServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "loop", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "weather"}, func(_ context.Context, _ *mcp.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "18°C in " + in.City, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "plan"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		out, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 50,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("Weather in Paris?")}}},
			sampling.Loop{Tools: srv, Names: []string{"weather"}})
		if err != nil {
			return "", err
		}
		return out.Result.Content.(mcp.TextContent).Text, nil
	})
	return srv
}

// scriptedModel answers a sampling request as a model with tools does:
// a tool use of "weather" first, then, once the request carries its
// result, text that quotes it. It checks the request's tools as it goes.
func scriptedModel(t *testing.T) answerer {
	return func(method string, params json.RawMessage) string {
		require.Equal(t, "sampling/createMessage", method)
		var p struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(params, &p))
		require.Len(t, p.Tools, 1)
		assert.Equal(t, "weather", p.Tools[0].Name)
		assert.Equal(t, "object", p.Tools[0].InputSchema["type"])
		last := p.Messages[len(p.Messages)-1]
		if !strings.Contains(string(last.Content), `"tool_result"`) {
			return `{"role":"assistant","model":"m","stopReason":"toolUse","content":[{"type":"tool_use","id":"c1","name":"weather","input":{"city":"Paris"}}]}`
		}
		var results []struct {
			ToolUseID string `json:"toolUseId"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal(last.Content, &results), "%s", last.Content)
		require.Len(t, results, 1)
		assert.Equal(t, "c1", results[0].ToolUseID)
		return `{"role":"assistant","model":"m","stopReason":"endTurn","content":{"type":"text","text":"model saw: ` + results[0].Content[0].Text + `"}}`
	}
}

const toolsCaps = `{"sampling":{"tools":{}}}`

// TestSamplingLoopOverTheWire runs the tool loop with a scripted client
// over Streamable HTTP (2025-11-25: server requests on the call's stream;
// 2026-07-28: input-required rounds) and stdio, and checks the refusal of
// a client whose sampling capability lacks tools.
func TestSamplingLoopOverTheWire(t *testing.T) {
	t.Parallel()
	text := func(t *testing.T, res json.RawMessage) string {
		var r mcp.ContentResult
		require.NoError(t, json.Unmarshal(res, &r))
		return r.Text()
	}
	const want = "model saw: 18°C in Paris"
	for _, tr := range []struct {
		name string
		call func(*testing.T, *mcp.Server, string, string, answerer) (sent, json.RawMessage)
	}{{"http 2025-11-25", httpCallWith}, {"stdio", stdioCallWith}} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			_, res := tr.call(t, loopServer(), toolsCaps, `{"name":"plan","arguments":{}}`, scriptedModel(t))
			assert.Equal(t, want, text(t, res))
		})
		t.Run(tr.name+" without sampling.tools", func(t *testing.T) {
			t.Parallel()
			got, res := tr.call(t, loopServer(), `{"sampling":{}}`, `{"name":"plan","arguments":{}}`, fixedAnswer)
			assert.NotContains(t, got, "sampling/createMessage", "nothing is asked")
			assert.Contains(t, text(t, res), "sampling.tools")
		})
	}
	t.Run("http 2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(loopServer(), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		model := scriptedModel(t)
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + toolsCaps + `}`
		extra := ""
		for round := 1; ; round++ {
			require.LessOrEqual(t, round, 3, "two sampling rounds, then the result")
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{},` + meta + extra + `}}`
			resp, msgs := rev20260728Post(t, ts, body, "Mcp-Name", "plan")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v", msgs)
			var ir struct {
				ResultType    string `json:"resultType"`
				InputRequests map[string]struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				} `json:"inputRequests"`
				RequestState string `json:"requestState"`
			}
			res := msgs[len(msgs)-1].Result
			require.NoError(t, json.Unmarshal(res, &ir))
			if ir.ResultType != "input_required" {
				assert.Equal(t, want, text(t, res))
				assert.Equal(t, 3, round)
				return
			}
			require.Len(t, ir.InputRequests, 1)
			q, ok := ir.InputRequests["sampling-"+string(rune('0'+round))]
			require.True(t, ok, "round %d asks sampling-%d: %s", round, round, res)
			answers := map[string]json.RawMessage{"sampling-" + string(rune('0'+round)): json.RawMessage(model(q.Method, q.Params))}
			b, err := json.Marshal(answers)
			require.NoError(t, err)
			extra = `,"inputResponses":` + string(b) + `,"requestState":"` + ir.RequestState + `"`
		}
	})
	t.Run("http 2026-07-28 without sampling.tools", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(loopServer(), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}`
		resp, msgs := rev20260728Post(t, ts, body, "Mcp-Name", "plan")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		r := wiretest.ToolResult(t, msgs[len(msgs)-1])
		assert.True(t, r.IsError)
		assert.Contains(t, r.Text(), "sampling.tools")
	})
}
