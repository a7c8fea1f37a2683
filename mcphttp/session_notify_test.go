package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type notes struct {
	mu  sync.Mutex
	got []string
}

func (n *notes) add(method string, params json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, method+" "+string(params))
}

func (n *notes) has(s string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, g := range n.got {
		if g == s {
			return true
		}
	}
	return false
}

func TestSubscriptionsAndListChanges(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "notify", Version: "1.0.0", Logger: discardLogger()})
	load := func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "x"}}, nil
	}
	srv.AddResource(mcp.Resource{URI: "file:///a", Name: "a", Load: load})
	srv.AddResource(mcp.Resource{URI: "file:///b", Name: "b", Load: load})
	srv.AddResource(mcp.Resource{URI: "file:///c", Name: "c", Load: load})
	ctx := context.Background()
	var subscribed, other notes
	s1 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: subscribed.add}}).Client()
	s2 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: other.add}}).Client()

	require.NoError(t, s1.Call(ctx, "resources/subscribe", map[string]string{"uri": "file:///a"}, nil))
	srv.ResourceUpdated("file:///a")
	srv.ResourceUpdated("file:///b")
	updatedA := `notifications/resources/updated {"uri":"file:///a"}`
	require.Eventually(t, func() bool { return subscribed.has(updatedA) }, 5*time.Second, 10*time.Millisecond)

	// A change after start reaches every session.
	mcp.AddTool(srv, mcp.Tool{Name: "late", Description: "added after start"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "late", nil
	})
	srv.Registry().Remove(access.KindPrompt, "none")
	srv.Registry().Remove(access.KindResource, "file:///b")
	for _, n := range []*notes{&subscribed, &other} {
		require.Eventually(t, func() bool {
			return n.has("notifications/tools/list_changed ") && n.has("notifications/prompts/list_changed ") &&
				n.has("notifications/resources/list_changed ")
		}, 5*time.Second, 10*time.Millisecond)
	}
	tools, err := s2.ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, tools, 1)

	// Only subscribers get updates, and only for what they subscribed to.
	require.False(t, other.has(updatedA), "a session that did not subscribe got an update")
	require.False(t, subscribed.has(`notifications/resources/updated {"uri":"file:///b"}`))
	require.NoError(t, s1.Call(ctx, "resources/subscribe", map[string]string{"uri": "file:///c"}, nil))
	require.NoError(t, s1.Call(ctx, "resources/unsubscribe", map[string]string{"uri": "file:///a"}, nil))
	srv.ResourceUpdated("file:///a")
	srv.ResourceUpdated("file:///a")
	// An update of c, still subscribed, goes after them on the same
	// stream: once it is in, an update of a sent in error would be too.
	srv.ResourceUpdated("file:///c")
	require.Eventually(t, func() bool { return subscribed.has(`notifications/resources/updated {"uri":"file:///c"}`) }, 5*time.Second, 10*time.Millisecond)
	subscribed.mu.Lock()
	n := 0
	for _, g := range subscribed.got {
		if g == updatedA {
			n++
		}
	}
	subscribed.mu.Unlock()
	require.Equal(t, 1, n, "updates arrived after unsubscribe")
}

func TestLogToClientsHonoursEachSessionsLevel(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "logs", Version: "1.0.0", Logger: discardLogger()})
	ctx := context.Background()
	var quiet, chatty notes
	s1 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: quiet.add}}).Client()
	s2 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: chatty.add}}).Client()
	require.NoError(t, s1.Call(ctx, "logging/setLevel", map[string]string{"level": "error"}, nil))
	require.NoError(t, s2.Call(ctx, "logging/setLevel", map[string]string{"level": "debug"}, nil))

	srv.LogToClients(mcp.LevelInfo, "cache warmed", map[string]int{"entries": 3})
	srv.LogToClients(mcp.LevelError, "upstream down", nil)
	info := `notifications/message {"level":"info","logger":"logs","data":{"context":{"entries":3},"message":"cache warmed"}}`
	errLine := `notifications/message {"level":"error","logger":"logs","data":{"message":"upstream down"}}`
	require.Eventually(t, func() bool { return chatty.has(info) && chatty.has(errLine) && quiet.has(errLine) },
		5*time.Second, 10*time.Millisecond)
	require.False(t, quiet.has(info), "an info message passed a session whose level is error")
}

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
	srv.Registry().Remove(access.KindPrompt, "none")
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
		_, msgs := rev20260728PostURL(t, c, rev20260728Body("tools/call", `"name":"unlock","arguments":{}`), "Mcp-Name", "unlock")
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

// rev20260728PostURL posts a 2026-07-28 request to c's server.
func rev20260728PostURL(t *testing.T, c *httpClient, body string, header ...string) (*http.Response, []msg) {
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
