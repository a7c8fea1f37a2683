package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// visibilityServer has a tagged tool, a tool that says which session
// calls it, and unlock, which registers the tool "secret" for the
// caller's session alone (and returns the error when it cannot).
func visibilityServer() *mcp.Server {
	srv := quietServer(mcp.Options{})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Tags: []string{"basic"}}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "echo", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		err := mcp.TryAddTool(srv.SessionRegistry(c.SessionID), mcp.Tool{Name: "secret"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "secret", nil
		})
		if err != nil {
			return "", err
		}
		return "unlocked", nil
	})
	return srv
}

// listedTools is the names of a tools/list result.
func listedTools(t *testing.T, m msg) []string {
	t.Helper()
	require.Nil(t, m.Error)
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &res))
	names := make([]string, len(res.Tools))
	for i, tl := range res.Tools {
		names[i] = tl.Name
	}
	return names
}

// nextMethods reads n messages of a stream of frames (or what comes
// within wait) and returns their methods.
func nextMethods(frames <-chan msg, n int, wait time.Duration) []string {
	var out []string
	for _, m := range readFrames(frames, n, wait) {
		out = append(out, m.Method)
	}
	return out
}

// TestSessionToolOverHTTP checks, at revision 2025-11-25, that a tool a
// session registered for itself is listed and callable in that session
// only, and that only its GET stream hears of it.
func TestSessionToolOverHTTP(t *testing.T) {
	t.Parallel()
	srv := visibilityServer()
	a, _ := newHTTP(t, srv, nil)
	b := &httpClient{t: t, url: a.url, hc: a.hc}
	a.initialize(string(mcp.Version20251125))
	b.initialize(string(mcp.Version20251125))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ga, gb := sseFrames(a.getStream(ctx).rd), sseFrames(b.getStream(ctx).rd)

	res, _ := a.call(1, "tools/call", `{"name":"unlock","arguments":{}}`)
	require.Nil(t, res.Error)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"unlocked"}]}`, string(res.Result))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(ga, 1, 5*time.Second))
	// A global change after it: b's first notification is that one.
	srv.Registry().Remove(mcp.KindPrompt, "none")
	assert.Equal(t, []string{"notifications/prompts/list_changed"}, nextMethods(gb, 1, 5*time.Second))
	assert.Equal(t, []string{"notifications/prompts/list_changed"}, nextMethods(ga, 1, 5*time.Second))

	la, _ := a.call(2, "tools/list", "")
	assert.Equal(t, []string{"echo", "unlock", "secret"}, listedTools(t, la))
	lb, _ := b.call(2, "tools/list", "")
	assert.Equal(t, []string{"echo", "unlock"}, listedTools(t, lb))
	sec, _ := b.call(3, "tools/call", `{"name":"secret","arguments":{}}`)
	require.NotNil(t, sec.Error)
	assert.Equal(t, int64(mcp.CodeInvalidParams), sec.Error.Code)
	assert.Equal(t, `Unknown tool: "secret"`, sec.Error.Message)

	// Disabled for b alone, by tag: b is told, a is not.
	require.NoError(t, srv.SessionRegistry(b.sid).Disable(mcp.Match{Tags: []string{"basic"}}))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(gb, 1, 5*time.Second))
	ech, _ := b.call(4, "tools/call", `{"name":"echo","arguments":{}}`)
	require.NotNil(t, ech.Error)
	assert.Equal(t, `Unknown tool: "echo"`, ech.Error.Message)
	ech, _ = a.call(4, "tools/call", `{"name":"echo","arguments":{}}`)
	assert.Nil(t, ech.Error)

	// Disabled server-wide: both are told.
	require.NoError(t, srv.Registry().Disable(mcp.Match{Names: []string{"unlock"}}))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(ga, 1, 5*time.Second))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(gb, 1, 5*time.Second))
	la, _ = a.call(5, "tools/list", "")
	assert.Equal(t, []string{"echo", "secret"}, listedTools(t, la))

	// Once a's session ended (DELETE), nothing can be kept for it.
	resp, _ := a.do(http.MethodDelete, "")
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.ErrorIs(t, srv.SessionRegistry(a.sid).Disable(mcp.Match{}), mcp.ErrNoSession)
	assert.NoError(t, srv.SessionRegistry(b.sid).Disable(mcp.Match{}))
}

// TestSessionToolWithoutSession checks that where there is no session
// (stateless HTTP, revision 2026-07-28) a per-session registration fails
// with an error that says why.
func TestSessionToolWithoutSession(t *testing.T) {
	t.Parallel()
	const why = `Tool \"unlock\" failed: mcp: no such session: the session ID is empty (stateless HTTP and revision 2026-07-28 requests have no session)`
	t.Run("stateless", func(t *testing.T) {
		c, _ := newHTTP(t, visibilityServer(), &mcphttp.Options{Stateless: true})
		c.version = string(mcp.Version20251125)
		res, _ := c.call(1, "tools/call", `{"name":"unlock","arguments":{}}`)
		assert.JSONEq(t, `{"content":[{"type":"text","text":"`+why+`"}],"isError":true}`, string(res.Result))
	})
	t.Run("2026-07-28", func(t *testing.T) {
		c, _ := newHTTP(t, visibilityServer(), nil)
		_, msgs := modernPostURL(t, c, modernBody("tools/call", `"name":"unlock","arguments":{}`), "Mcp-Name", "unlock")
		require.Len(t, msgs, 1)
		require.Nil(t, msgs[0].Error)
		var res struct {
			Content []mcp.TextContent `json:"content"`
			IsError bool              `json:"isError"`
		}
		require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
		assert.True(t, res.IsError)
		require.Len(t, res.Content, 1)
		var want string
		require.NoError(t, json.Unmarshal([]byte(`"`+why+`"`), &want))
		assert.Equal(t, want, res.Content[0].Text)
	})
}

// modernPostURL posts a 2026-07-28 request to c's server.
func modernPostURL(t *testing.T, c *httpClient, body string, header ...string) (*http.Response, []msg) {
	t.Helper()
	var m struct {
		Method string `json:"method"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	resp, b, err := wiretest.Do(c.hc, wiretest.NewRequest(t.Context(), http.MethodPost, c.url, body,
		append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", m.Method}, header...)...))
	require.NoError(t, err)
	return resp, wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), b)
}

// TestModernListenHearsServerWideRules checks that at revision 2026-07-28,
// which has no sessions, a subscriptions/listen stream hears of
// server-wide Disable and Enable, and not of another session's own
// changes; and that its lists follow the server-wide rules.
func TestModernListenHearsServerWideRules(t *testing.T) {
	t.Parallel()
	srv := visibilityServer()
	c, _ := newHTTP(t, srv, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":"s1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta("") + `}}`
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

	require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: mcp.KindTool, Tags: []string{"basic"}}))
	got := readFrames(frames, 1, 5*time.Second)
	require.Len(t, got, 1)
	assert.Equal(t, "notifications/tools/list_changed", got[0].Method)
	assert.JSONEq(t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"s1"}}`, string(got[0].Params))
	_, msgs := modernPostURL(t, c, modernBody("tools/list", ""))
	require.Len(t, msgs, 1)
	assert.Equal(t, []string{"unlock"}, listedTools(t, msgs[0]))

	require.NoError(t, srv.Registry().Enable(mcp.Match{Kind: mcp.KindTool, Tags: []string{"basic"}}))
	assert.Equal(t, []string{"notifications/tools/list_changed"}, nextMethods(frames, 1, 5*time.Second))
}
