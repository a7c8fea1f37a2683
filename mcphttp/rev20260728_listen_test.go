package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRev20260728ListenHearsServerWideRules checks that at revision 2026-07-28,
// which has no sessions, a subscriptions/listen stream hears of
// server-wide Disable and Enable, and not of another session's own
// changes; and that its lists follow the server-wide rules.
func TestRev20260728ListenHearsServerWideRules(t *testing.T) {
	t.Parallel()
	srv := visibilityServer()
	c, _ := newHTTP(t, srv, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":"s1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + rev20260728Meta("") + `}}`
	resp, err := c.hc.Do(wiretest.NewRequest(ctx, http.MethodPost, c.url, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"))
	require.NoError(t, err)
	defer resp.Body.Close()
	frames := sseFrames(resp.Body)
	require.Equal(t, []string{"notifications/subscriptions/acknowledged"}, nextMethods(frames, 1, 5*time.Second))

	// A 2025 session's own tool is not the listener's business.
	old := &httpClient{t: t, url: c.url, hc: c.hc}
	old.initialize(string(mcp.Version20251125))
	res, _ := old.call(1, "tools/call", `{"name":"unlock","arguments":{}}`)
	require.Nil(t, res.Error)
	assert.Empty(t, nextMethods(frames, 1, 300*time.Millisecond))

	require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: access.KindTool, Tags: []string{"basic"}}))
	got := readFrames(frames, 1, 5*time.Second)
	require.Len(t, got, 1)
	assert.Equal(t, "notifications/tools/list_changed", got[0].Method)
	assert.JSONEq(t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s1"}}`, string(got[0].Params))
	_, msgs := rev20260728PostURL(t, c, rev20260728Body("tools/list", ""))
	require.Len(t, msgs, 1)
	assert.Equal(t, []string{"unlock"}, listedTools(t, msgs[0]))

	require.NoError(t, srv.Registry().Enable(mcp.Match{Kind: access.KindTool, Tags: []string{"basic"}}))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(frames, 1, 5*time.Second))
}

func TestRev20260728Listen(t *testing.T) {
	ts, h := newRev20260728Server(t, nil, nil)
	srv := h.Server()
	tests := []struct {
		name    string
		filter  string
		change  func()
		want    string // the method of the notification after the ack; "" none
		wantURI string
	}{
		{"tools", `{"toolsListChanged":true}`, func() { srv.Registry().Remove(access.KindTool, "add") }, "notifications/tools/list_changed", ""},
		{"prompts only: no tool changes", `{"promptsListChanged":true}`, func() { srv.Registry().Remove(access.KindTool, "fail") }, "", ""},
		{"prompts", `{"promptsListChanged":true}`, func() { srv.Registry().Remove(access.KindPrompt, "greet") }, "notifications/prompts/list_changed", ""},
		{"a resource", `{"resourceSubscriptions":["mem://hello"]}`, func() { srv.ResourceUpdated("mem://other"); srv.ResourceUpdated("mem://hello") }, "notifications/resources/updated", "mem://hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			body := `{"jsonrpc":"2.0","id":"s1","method":"subscriptions/listen","params":{"notifications":` + tt.filter + `,` + rev20260728Meta("") + `}}`
			req := wiretest.NewRequest(ctx, http.MethodPost, ts.URL, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
			frames := sseFrames(resp.Body)
			ack := readFrames(frames, 1, 2*time.Second)
			require.Len(t, ack, 1)
			assert.Equal(t, "notifications/subscriptions/acknowledged", ack[0].Method)
			assert.JSONEq(t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s1"},"notifications":`+tt.filter+`}`, string(ack[0].Params))
			tt.change()
			wait := 2 * time.Second
			if tt.want == "" {
				wait = 300 * time.Millisecond
			}
			got := readFrames(frames, 1, wait)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, got[0].Method)
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
				URI  string                     `json:"uri"`
			}
			require.NoError(t, json.Unmarshal(got[0].Params, &p))
			assert.JSONEq(t, `"s1"`, string(p.Meta["io.modelcontextprotocol/subscriptionId"]))
			assert.Equal(t, tt.wantURI, p.URI)
		})
	}
	t.Run("no filter", func(t *testing.T) {
		resp, msgs := rev20260728Post(t, ts, rev20260728Body("subscriptions/listen", ""))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		require.Len(t, msgs, 1)
		require.NotNil(t, msgs[0].Error)
		assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code)
		assert.Contains(t, msgs[0].Error.Message, `subscriptions/listen needs "notifications"`)
	})
}

func TestRev20260728ListenLimit(t *testing.T) {
	ts, _ := newRev20260728Server(t, &mcphttp.Options{MaxSessions: 1}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + rev20260728Meta("") + `}}`
	hd := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"}
	resp, err := ts.Client().Do(wiretest.NewRequest(ctx, http.MethodPost, ts.URL, body, hd...))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Len(t, readFrames(sseFrames(resp.Body), 1, 2*time.Second), 1, "the first stream is acknowledged")

	resp2, msgs := rev20260728Post(t, ts, body)
	assert.Equal(t, http.StatusServiceUnavailable, resp2.StatusCode)
	assert.Equal(t, "5", resp2.Header.Get("Retry-After"))
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0].Error.Message, "mcphttp.Options.MaxSessions")
}
