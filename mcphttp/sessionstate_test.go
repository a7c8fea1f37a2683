package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openIdleSessions opens n sessions on h in process (initialize, then
// notifications/initialized, as a client does), and returns their IDs.
func openIdleSessions(tb testing.TB, h *mcphttp.Handler, n int) []string {
	tb.Helper()
	ids := make([]string, 0, n)
	w := &memWriter{header: http.Header{}}
	for range n {
		w.reset()
		r, err := http.NewRequest(http.MethodPost, "/mcp", strings.NewReader(benchInit))
		require.NoError(tb, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		h.ServeHTTP(w, r)
		sid := w.Header().Get("Mcp-Session-Id")
		require.Equal(tb, http.StatusOK, w.status, w.body.String())
		w.reset()
		r, err = http.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		require.NoError(tb, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Session-Id", sid)
		h.ServeHTTP(w, r)
		require.Equal(tb, http.StatusAccepted, w.status, w.body.String())
		ids = append(ids, sid)
	}
	return ids
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// idleSessionBytes measures the heap an idle session holds: n sessions
// opened in process, the live heap before and after, divided by n.
func idleSessionBytes(tb testing.TB, n int) float64 {
	tb.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "mem", Version: "1.0.0", Logger: discardLogger()})
	h := mcphttp.New(srv, &mcphttp.Options{MaxSessions: -1})
	defer h.Close()
	before := heapInUse()
	ids := openIdleSessions(tb, h, n)
	after := heapInUse()
	require.Equal(tb, n, h.SessionCount())
	runtime.KeepAlive(ids)
	return float64(after-before) / float64(n)
}

// TestIdleSessionMemory bounds what an idle session costs: the
// per-session buffers and channels (the GET queue, the in-flight map, the
// done channel, the channel of request slots) are made only when used, so
// an idle session, with the in-memory store's entry, measured 868 bytes
// and stays under 1 KiB.
func TestIdleSessionMemory(t *testing.T) {
	per := idleSessionBytes(t, 5000)
	t.Logf("%.0f bytes per idle session", per)
	require.Less(t, per, 1024.0, "bytes per idle session")
}

// The stateless tests below check, claim by claim, what docs/deploy.md
// and docs/architecture.md ("Stateless mode") and the package doc say a 2025 client keeps and
// loses when the handler is stateless (Options.Stateless).

// statelessInit is an initialize that declares every client capability.
const statelessInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
	"capabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"remembered?","version":"1.0.0"}}}`

// newStatelessClient serves the engine's test server plus a tool that
// reports what the request knows of its client, statelessly.
func newStatelessClient(t *testing.T, opts *mcphttp.Options, slow *mcptest.Probe) (*httpClient, *mcphttp.Handler) {
	t.Helper()
	srv := newEngineServer(t, slow)
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		_, errS := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 1})
		_, errE := elicit.Create(ctx, c, &elicit.Params{Message: "?"})
		_, errR := c.Roots(ctx)
		return fmt.Sprintf("client=%q sampling=%v elicit=%v roots=%v", c.Client.Name,
			errors.Is(errS, mcp.ErrCapability), errors.Is(errE, mcp.ErrCapability), errors.Is(errR, mcp.ErrCapability)), nil
	})
	if opts == nil {
		opts = &mcphttp.Options{}
	}
	opts.Stateless = true
	c, h := newHTTP(t, srv, opts)
	c.version = "2025-11-25" // sent on every request; there is no session ID to send
	return c, h
}

// TestStatelessInitialize: initialize is answered, no session is made,
// and the capabilities promise no list changes or subscriptions (there is
// no stream to carry them).
func TestStatelessInitialize(t *testing.T) {
	c, h := newStatelessClient(t, nil, nil)
	resp, b := c.do(http.MethodPost, statelessInit)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
	require.Len(t, msgs, 1)
	assert.JSONEq(t, `{"tools":{"listChanged":false},"resources":{"subscribe":false,"listChanged":false},
		"prompts":{"listChanged":false},"logging":{},"completions":{},
		"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`, capsOf(t, msgs[0].Result))
	assert.Equal(t, 0, h.SessionCount())
}

func capsOf(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(result, &r))
	return string(r.Capabilities)
}

// TestStatelessForgets: what initialize and logging/setLevel said is not
// kept, so a later request knows no client info or capabilities (every
// server-to-client request fails with ErrCapability) and logs at every
// level; subscribe is acknowledged and kept nowhere.
func TestStatelessForgets(t *testing.T) {
	c, h := newStatelessClient(t, nil, nil)
	status, _ := c.post(statelessInit)
	require.Equal(t, http.StatusOK, status)

	res, _ := c.call(2, "tools/call", `{"name":"whoami","arguments":{}}`)
	assert.Equal(t, `client="" sampling=true elicit=true roots=true`, wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)

	res, _ = c.call(3, "logging/setLevel", `{"level":"error"}`)
	require.Nil(t, res.Error, "setLevel is acknowledged")
	res, before := c.call(4, "tools/call", `{"name":"log","arguments":{}}`)
	require.Nil(t, res.Error)
	var levels []string
	for _, m := range before {
		var p struct {
			Level string `json:"level"`
		}
		require.Equal(t, "notifications/message", m.Method)
		require.NoError(t, json.Unmarshal(m.Params, &p))
		levels = append(levels, p.Level)
	}
	assert.Equal(t, []string{"debug", "info", "error"}, levels, "the level set before is forgotten")

	res, _ = c.call(5, "resources/subscribe", `{"uri":"mem://hello"}`)
	assert.Nil(t, res.Error, "subscribe is acknowledged")
	assert.Equal(t, 0, h.SessionCount())
}

// TestStatelessNoStreams: no GET stream (so no list changes, resource
// updates, broadcasts or pings reach a 2025 client), no DELETE, no
// resumption even with Resumable (no event IDs; Last-Event-ID is a GET).
func TestStatelessNoStreams(t *testing.T) {
	c, _ := newStatelessClient(t, &mcphttp.Options{Resumable: true}, nil)
	for _, tt := range []struct {
		method string
		header []string
	}{
		{http.MethodGet, []string{"Accept", "text/event-stream"}},
		{http.MethodGet, []string{"Accept", "text/event-stream", "Last-Event-ID", "0-1"}},
		{http.MethodDelete, nil},
	} {
		resp, b := c.do(tt.method, "", tt.header...)
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "%s %v", tt.method, tt.header)
		assert.Contains(t, string(b), "stateless")
	}
	resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	for _, line := range strings.Split(string(b), "\n") {
		assert.False(t, strings.HasPrefix(line, "id:"), "no event IDs to resume from: %q", line)
	}
}

// TestStatelessKeeps: what works per request: progress and logs on the
// request's own stream, batches at 2025-03-26, pagination cursors across
// requests, a client's Mcp-Session-Id ignored.
func TestStatelessKeeps(t *testing.T) {
	c, h := newStatelessClient(t, &mcphttp.Options{PageSize: 1}, nil)
	res, before := c.call(2, "tools/call", `{"name":"progress","arguments":{},"_meta":{"progressToken":"p"}}`)
	assert.Equal(t, "progressed", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
	require.Len(t, before, 3)
	assert.Equal(t, "notifications/progress", before[0].Method)

	var page struct {
		Tools      []mcp.Tool `json:"tools"`
		NextCursor string     `json:"nextCursor"`
	}
	res, _ = c.call(3, "tools/list", "")
	require.NoError(t, json.Unmarshal(res.Result, &page))
	first := page.Tools[0].Name
	require.NotEmpty(t, page.NextCursor)
	res, _ = c.call(4, "tools/list", `{"cursor":"`+page.NextCursor+`"}`)
	require.NoError(t, json.Unmarshal(res.Result, &page))
	require.Len(t, page.Tools, 1)
	assert.NotEqual(t, first, page.Tools[0].Name, "the cursor carries the position, no session does")

	resp, b := c.do(http.MethodPost, `[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}},
		{"jsonrpc":"2.0","id":6,"method":"ping"}]`, "MCP-Protocol-Version", "2025-03-26")
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	assert.Len(t, wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b), 2, "a 2025-03-26 batch is answered")

	status, msgs := c.post(`{"jsonrpc":"2.0","id":7,"method":"ping"}`, "Mcp-Session-Id", "not-a-session-this-server-made")
	assert.Equal(t, http.StatusOK, status)
	require.Len(t, msgs, 1)
	assert.Nil(t, msgs[0].Error, "a session ID is ignored")
	assert.Equal(t, 0, h.SessionCount())
}

// TestStatelessCancel: notifications/cancelled reaches no request (it
// lands on a request of its own); closing the request's connection
// cancels it.
func TestStatelessCancel(t *testing.T) {
	probe := mcptest.NewProbe()
	c, _ := newStatelessClient(t, nil, probe)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := c.hc.Do(c.request(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-probe.Started:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow tool did not start")
	}
	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	assert.Equal(t, http.StatusAccepted, status)
	select {
	case err := <-probe.Stopped:
		t.Fatalf("notifications/cancelled reached the request (%v): a stateless server cannot route it", err)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-probe.Stopped:
		assert.ErrorIs(t, err, context.Canceled, "closing the connection cancels the call")
	case <-time.After(5 * time.Second):
		t.Fatal("closing the connection did not cancel the call")
	}
	<-done
}
