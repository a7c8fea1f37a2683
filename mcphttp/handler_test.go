package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/justinas/alice"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInitializeIssuesSessionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		asked, want string
	}{
		{"latest", "2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05", "2024-11-05"},
		{"unknown version gets the latest", "2099-01-01", string(mcp.Version20251125)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, h := newHTTP(t, newEngineServer(t, nil), nil)
			resp, body := c.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, tt.asked))
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			sid := resp.Header.Get("Mcp-Session-Id")
			require.NotEmpty(t, sid)
			assert.True(t, session.ValidID(sid))
			for _, ch := range []byte(sid) {
				assert.True(t, ch >= 0x21 && ch <= 0x7e, "visible ASCII: %q", sid)
			}
			var res struct {
				Result struct {
					ProtocolVersion string             `json:"protocolVersion"`
					ServerInfo      mcp.Implementation `json:"serverInfo"`
					Capabilities    map[string]any     `json:"capabilities"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(body, &res), "%s", body)
			assert.Equal(t, tt.want, res.Result.ProtocolVersion)
			assert.Equal(t, "mcphttp-test", res.Result.ServerInfo.Name)
			for _, cap := range []string{"tools", "resources", "prompts", "logging", "completions"} {
				assert.Contains(t, res.Result.Capabilities, cap)
			}
			assert.Equal(t, 1, h.SessionCount())

			// A second initialize makes a second session with another ID.
			resp2, _ := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
			require.Equal(t, http.StatusOK, resp2.StatusCode)
			assert.NotEqual(t, sid, resp2.Header.Get("Mcp-Session-Id"))
			assert.Equal(t, 2, h.SessionCount())
		})
	}
}

func TestSessionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		sid        string
		wantStatus int
		wantCode   int64
		wantMsg    string
		wantID     string
	}{
		{"no session", "", http.StatusBadRequest, mcp.CodeServerError, "Mcp-Session-Id", "1"},
		{"unknown session", "no-such-session", http.StatusNotFound, jsonrpc.CodeSessionNotFound, "initialize", "1"},
		// The header is refused by the SessionID middleware before the
		// body is read, as the Origin check does: the id is null.
		{"invalid session id", "bad id", http.StatusBadRequest, mcp.CodeServerError, "visible ASCII", "null"},
		{"over-long session id", strings.Repeat("a", session.MaxIDLen+1), http.StatusBadRequest, mcp.CodeServerError, "1 to 256", "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newEngineServer(t, nil), nil)
			c.sid = tt.sid
			status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			assert.Equal(t, tt.wantStatus, status)
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].Error)
			assert.Equal(t, tt.wantCode, msgs[0].Error.Code)
			assert.Contains(t, msgs[0].Error.Message, tt.wantMsg)
			assert.Equal(t, tt.wantID, string(msgs[0].ID), "the error names the request when its body was read")
		})
	}
}

func TestDeleteEndsSession(t *testing.T) {
	t.Parallel()
	c, h := newHTTP(t, newEngineServer(t, nil), nil)
	c.initialize("2025-06-18")
	resp, _ := c.do(http.MethodDelete, "")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, 0, h.SessionCount())

	status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Equal(t, http.StatusNotFound, status)
	require.Len(t, msgs, 1)
	assert.Equal(t, int64(jsonrpc.CodeSessionNotFound), msgs[0].Error.Code)

	resp, _ = c.do(http.MethodDelete, "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "a second DELETE finds no session")
}

func TestNotificationAndResponseAccepted(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newEngineServer(t, nil), nil)
	c.initialize("2025-06-18")
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
	} {
		resp, b := c.do(http.MethodPost, body)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode, body)
		assert.Empty(t, strings.TrimSpace(string(b)), body)
	}
}

func TestBatch(t *testing.T) {
	t.Parallel()
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}},{"jsonrpc":"2.0","method":"notifications/whatever"}]`
	t.Run("2025-03-26 answers with an array", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, newEngineServer(t, nil), nil)
		c.initialize("2025-03-26")
		resp, body := c.do(http.MethodPost, batch)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		var out []msg
		require.NoError(t, json.Unmarshal(body, &out), "%s", body)
		require.Len(t, out, 2, "one response per request, none for the notification")
		byID := map[string]msg{}
		for _, m := range out {
			byID[string(m.ID)] = m
		}
		assert.JSONEq(t, `{}`, string(byID["1"].Result))
		assert.Equal(t, "5", wiretest.ToolResult(t, byID["2"]).Text())
	})
	t.Run("2025-03-26 notifications only", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, newEngineServer(t, nil), nil)
		c.initialize("2025-03-26")
		resp, _ := c.do(http.MethodPost, `[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]`)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	})
	t.Run("2025-03-26 bad element gets its own error", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, newEngineServer(t, nil), nil)
		c.initialize("2025-03-26")
		status, msgs := c.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0","id":2,"method":"ping"}]`)
		require.Equal(t, http.StatusOK, status)
		require.Len(t, msgs, 2)
		codes := map[string]int64{}
		for _, m := range msgs {
			if m.Error != nil {
				codes[string(m.ID)] = m.Error.Code
			}
		}
		assert.Equal(t, map[string]int64{"2": jsonrpc.CodeInvalidRequest}, codes)
	})
	for _, v := range []string{"2025-06-18", "2025-11-25", "2024-11-05"} {
		t.Run(v+" refuses", func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newEngineServer(t, nil), nil)
			c.initialize(v)
			status, msgs := c.post(batch)
			assert.Equal(t, http.StatusBadRequest, status)
			require.Len(t, msgs, 1)
			require.NotNil(t, msgs[0].Error)
			assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), msgs[0].Error.Code)
			assert.Contains(t, msgs[0].Error.Message, "2025-03-26")
		})
	}
	t.Run("initialize in a batch", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, newEngineServer(t, nil), nil)
		status, msgs := c.post(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`)
		assert.Equal(t, http.StatusBadRequest, status)
		require.Len(t, msgs, 1)
		assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), msgs[0].Error.Code)
	})
}

func TestLoggingSetLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		level string // "" sends no setLevel
		want  []mcp.LogLevel
	}{
		{"", []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelError}},
		{"debug", []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelError}},
		{"info", []mcp.LogLevel{mcp.LevelInfo, mcp.LevelError}},
		{"warning", []mcp.LogLevel{mcp.LevelError}},
		{"error", []mcp.LogLevel{mcp.LevelError}},
		{"emergency", nil},
	}
	for _, tt := range tests {
		t.Run("level "+tt.level, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newEngineServer(t, nil), nil)
			c.initialize("2025-06-18")
			if tt.level != "" {
				res, _ := c.call(1, "logging/setLevel", fmt.Sprintf(`{"level":%q}`, tt.level))
				require.Nil(t, res.Error)
			}
			res, before := c.call(2, "tools/call", `{"name":"log"}`)
			assert.Equal(t, "logged", wiretest.ToolResult(t, res).Text())
			var got []mcp.LogLevel
			for _, m := range before {
				require.Equal(t, "notifications/message", m.Method)
				var p mcp.LogMessage
				require.NoError(t, json.Unmarshal(m.Params, &p))
				assert.Equal(t, "log", p.Logger, "the logger is the tool's name")
				got = append(got, p.Level)
				if p.Level == mcp.LevelError {
					assert.Equal(t, map[string]any{"message": "error message", "context": map[string]any{"code": float64(7)}}, p.Data)
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("invalid level", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, newEngineServer(t, nil), nil)
		c.initialize("2025-06-18")
		res, _ := c.call(1, "logging/setLevel", `{"level":"loud"}`)
		require.NotNil(t, res.Error)
		assert.Equal(t, int64(mcp.CodeInvalidParams), res.Error.Code)
		assert.Contains(t, res.Error.Message, `"loud"`)
	})
}

func TestCancelledNotificationStopsTool(t *testing.T) {
	t.Parallel()
	slow := mcptest.NewProbe()
	c, _ := newHTTP(t, newEngineServer(t, slow), nil)
	c.initialize("2025-06-18")

	type answer struct {
		status int
		msgs   []msg
	}
	done := make(chan answer, 1)
	go func() {
		status, msgs := c.post(`{"jsonrpc":"2.0","id":"job-1","method":"tools/call","params":{"name":"slow"}}`)
		done <- answer{status, msgs}
	}()
	select {
	case <-slow.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never started")
	}
	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"job-1","reason":"user abort"}}`)
	assert.Equal(t, http.StatusAccepted, status)

	select {
	case err := <-slow.Stopped:
		assert.Error(t, err, "the tool's context ended")
	case <-time.After(10 * time.Second):
		t.Fatal("the tool was not cancelled")
	}
	select {
	case a := <-done:
		assert.Equal(t, http.StatusOK, a.status)
		for _, m := range a.msgs {
			assert.False(t, m.IsResponse(), "no response is written for a cancelled request: %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled request's HTTP exchange never ended")
	}

	// The session goes on.
	res, _ := c.call(3, "tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`)
	assert.Equal(t, "3", wiretest.ToolResult(t, res).Text())
}

func TestClientDisconnectCancelsTool(t *testing.T) {
	t.Parallel()
	slow := mcptest.NewProbe()
	c, _ := newHTTP(t, newEngineServer(t, slow), nil)
	c.initialize("2025-06-18")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", c.sid)
		if resp, err := c.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-slow.Started
	cancel()
	select {
	case err := <-slow.Stopped:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("a client abort did not reach the tool")
	}
	<-done
}

func TestProgressOnlyWithToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		meta      string
		wantToken any
		wantText  string
	}{
		{"string token", `,"_meta":{"progressToken":"tok-1"}`, "tok-1", "progressed"},
		{"number token", `,"_meta":{"progressToken":42}`, float64(42), "progressed"},
		{"no token", ``, nil, "no progress: " + mcp.ErrNoProgressToken.Error()},
		{"null token", `,"_meta":{"progressToken":null}`, nil, "no progress: " + mcp.ErrNoProgressToken.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, newEngineServer(t, nil), nil)
			c.initialize("2025-06-18")
			res, before := c.call(1, "tools/call", `{"name":"progress"`+tt.meta+`}`)
			assert.Equal(t, tt.wantText, wiretest.ToolResult(t, res).Text())
			if tt.wantToken == nil {
				assert.Empty(t, before, "no progress without a token")
				return
			}
			require.Len(t, before, 3)
			for i, m := range before {
				assert.Equal(t, "notifications/progress", m.Method)
				var p struct {
					ProgressToken any     `json:"progressToken"`
					Progress      float64 `json:"progress"`
					Total         float64 `json:"total"`
				}
				require.NoError(t, json.Unmarshal(m.Params, &p))
				assert.Equal(t, tt.wantToken, p.ProgressToken)
				assert.Equal(t, float64(i+1), p.Progress)
				assert.Equal(t, float64(3), p.Total)
			}
		})
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "pages", Version: "1.0.0", Logger: newEngineServer(t, nil).Logger()})
	var want = map[string][]string{}
	for i := range 5 {
		name := fmt.Sprintf("item%d", i)
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		srv.AddResource(mcp.Resource{URI: "mem://" + name, Name: name, Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }})
		srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "t" + name + "://{x}", Name: name,
			Load: func(context.Context, *mcp.Context, map[string]string) ([]mcp.ResourceContents, error) {
				return nil, nil
			}})
		srv.AddPrompt(mcp.Prompt{Name: name, Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) { return nil, nil }})
		for _, k := range []string{"tools", "resources", "resourceTemplates", "prompts"} {
			want[k] = append(want[k], name)
		}
	}
	tests := []struct{ method, key string }{
		{"tools/list", "tools"},
		{"resources/list", "resources"},
		{"resources/templates/list", "resourceTemplates"},
		{"prompts/list", "prompts"},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			c, _ := newHTTP(t, srv, &mcphttp.Options{PageSize: 2})
			c.initialize("2025-06-18")
			var names []string
			var sizes []int
			cursor := ""
			for id := 1; ; id++ {
				params := `{}`
				if cursor != "" {
					params = fmt.Sprintf(`{"cursor":%q}`, cursor)
				}
				res, _ := c.call(id, tt.method, params)
				require.Nil(t, res.Error)
				var page map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(res.Result, &page))
				var items []struct {
					Name string `json:"name"`
				}
				require.NoError(t, json.Unmarshal(page[tt.key], &items))
				sizes = append(sizes, len(items))
				for _, it := range items {
					names = append(names, it.Name)
				}
				raw, ok := page["nextCursor"]
				if !ok {
					break
				}
				require.NoError(t, json.Unmarshal(raw, &cursor))
				require.NotEmpty(t, cursor)
				require.Less(t, id, 10, "pagination must end")
			}
			assert.Equal(t, []int{2, 2, 1}, sizes)
			assert.Equal(t, want[tt.key], names)

			for _, bad := range []string{"!!!", "bm90LWEtbnVtYmVy", "OTk5"} { // not base64, "not-a-number", "999"
				res, _ := c.call(99, tt.method, fmt.Sprintf(`{"cursor":%q}`, bad))
				require.NotNil(t, res.Error, "cursor %q", bad)
				assert.Equal(t, int64(mcp.CodeInvalidParams), res.Error.Code)
				assert.Contains(t, res.Error.Message, bad)
			}
		})
	}
}

func TestListChangedOnGetStream(t *testing.T) {
	t.Parallel()
	srv := newEngineServer(t, nil)
	c, _ := newHTTP(t, srv, nil)
	c.initialize("2025-06-18")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	openGet := func() *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", c.sid)
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		return resp
	}
	first := openGet()

	// A second GET stream on the same session replaces the first (a
	// client reconnecting after a network failure the server has not
	// noticed): the first ends, and messages go to the second.
	resp := openGet()
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, first.Body); ended <- err }()
	select {
	case err := <-ended:
		require.NoError(t, err, "the replaced stream ends cleanly")
	case <-time.After(10 * time.Second):
		t.Fatal("the first GET stream did not end when a second replaced it")
	}

	mcp.AddTool(srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	srv.Registry().Remove(access.KindPrompt, "greet")
	buf := make([]byte, 4096)
	var got string
	deadline := time.Now().Add(10 * time.Second)
	for !(strings.Contains(got, "notifications/tools/list_changed") && strings.Contains(got, "notifications/prompts/list_changed")) {
		require.True(t, time.Now().Before(deadline), "list_changed never arrived; got %q", got)
		n, err := resp.Body.Read(buf)
		got += string(buf[:n])
		require.NoError(t, err)
	}
}

func TestJSONResponseMode(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newEngineServer(t, nil), &mcphttp.Options{JSONResponse: true})
	c.initialize("2025-06-18")
	resp, body := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"t"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	msgs := wiretest.ParseMessages(t, resp.Header.Get("Content-Type"), body)
	require.Len(t, msgs, 1, "JSON mode sends the result alone")
	assert.Contains(t, wiretest.ToolResult(t, msgs[0]).Text(), "no progress")
}

func TestCloseEndsSessions(t *testing.T) {
	t.Parallel()
	slow := mcptest.NewProbe()
	c, h := newHTTP(t, newEngineServer(t, slow), nil)
	c.initialize("2025-06-18")
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	}()
	<-slow.Started
	require.NoError(t, h.Close())
	assert.Error(t, <-slow.Stopped, "Close cancels in-flight requests")
	<-done
	status, msgs := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	require.Len(t, msgs, 1)
	assert.NotNil(t, msgs[0].Error)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

type testUser string

func (u testUser) Subject() string { return string(u) }

// newTestServer serves a small MCP server on a loopback listener, behind an
// Authenticate middleware that reads "Bearer <name>" (no header: anonymous).
func newTestServer(t *testing.T, opts *mcphttp.Options) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "status", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, c *mcp.Context, in fuzzArgs) (string, error) {
		return "ok", nil
	})
	h := mcphttp.New(srv, opts)
	auth := middleware.CheckCredentials(func(r *http.Request) (any, error) {
		v := r.Header.Get("Authorization")
		if v == "" {
			return nil, nil
		}
		name, ok := strings.CutPrefix(v, "Bearer ")
		if !ok {
			return nil, fmt.Errorf("%w: want Bearer <name>", mcp.ErrUnauthorized)
		}
		return testUser(name), nil
	}, &middleware.AuthOptions{Challenge: `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`, Logger: discardLogger()})
	ts := httptest.NewServer(alice.New(auth).Then(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts, h
}

type req struct {
	method  string
	body    string
	headers map[string]string
}

func do(t *testing.T, ts *httptest.Server, r req) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequest(r.method, ts.URL+"/mcp", body)
	require.NoError(t, err)
	if r.method == http.MethodPost {
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/json, text/event-stream")
	}
	if r.method == http.MethodGet {
		hr.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range r.headers {
		if k == "Host" {
			hr.Host = v
			continue
		}
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := ts.Client().Do(hr)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// initSession starts a session as user (empty: anonymous) and returns its ID.
func initSession(t *testing.T, ts *httptest.Server, user string) string {
	t.Helper()
	h := map[string]string{}
	if user != "" {
		h["Authorization"] = "Bearer " + user
	}
	resp, body := do(t, ts, req{method: "POST", body: initBody, headers: h})
	require.Equal(t, 200, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	return sid
}

func TestHTTPStatuses(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, nil)
	sid := initSession(t, ts, "")
	aliceSID := initSession(t, ts, "alice")
	withSID := func(extra map[string]string) map[string]string {
		m := map[string]string{"Mcp-Session-Id": sid}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	tests := []struct {
		name       string
		req        req
		status     int
		bodyHas    []string
		header     string // a response header that must be set
		headerWant string
	}{
		{"request answered", req{"POST", call, withSID(nil)}, 200, []string{`"id":7`, `"text":"ok"`}, "Content-Type", "application/json"},
		{"notification accepted", req{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSID(nil)}, 202, nil, "", ""},
		{"response accepted", req{"POST", `{"jsonrpc":"2.0","id":99,"result":{}}`, withSID(nil)}, 202, nil, "", ""},
		{"malformed JSON", req{"POST", `{"jsonrpc":`, withSID(nil)}, 400, []string{`-32700`, `not valid JSON`}, "", ""},
		{"not JSON-RPC", req{"POST", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, withSID(nil)}, 400, []string{`-32600`, `must be \"2.0\"`}, "", ""},
		{"case-variant key", req{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"}`, withSID(nil)}, 400, []string{`-32600`, `case-sensitive`}, "", ""},
		{"missing session", req{"POST", call, nil}, 400, []string{`-32000`, `missing Mcp-Session-Id`, `"id":7`}, "", ""},
		// A client may send a notification in a race with its own initialize
		// (the official Go SDK's roots/list_changed while connecting); an
		// error status would make it close for good.
		{"notification without session", req{"POST", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, nil}, 202, nil, "", ""},
		{"cancellation without session", req{"POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`, nil}, 202, nil, "", ""},
		{"malformed session id", req{"POST", call, map[string]string{"Mcp-Session-Id": "a b"}}, 400, []string{`visible ASCII`}, "", ""},
		{"unknown session", req{"POST", call, map[string]string{"Mcp-Session-Id": "nope"}}, 404, []string{`-32001`, `Session not found`}, "", ""},
		{"another caller's session", req{"POST", call, map[string]string{"Mcp-Session-Id": aliceSID, "Authorization": "Bearer mallory"}}, 403, []string{`another caller`}, "", ""},
		{"anonymous on a bound session", req{"POST", call, map[string]string{"Mcp-Session-Id": aliceSID}}, 403, []string{`another caller`}, "", ""},
		{"failed authentication", req{"POST", call, map[string]string{"Authorization": "Basic x"}}, 401, []string{`invalid_token`, `credentials were refused`}, "WWW-Authenticate", `Bearer resource_metadata=`},
		{"second initialize", req{"POST", initBody, withSID(nil)}, 400, []string{`-32600`, `already initialized`}, "", ""},
		{"unsupported protocol version", req{"POST", call, withSID(map[string]string{"MCP-Protocol-Version": "1999-01-01"})}, 400, []string{`unsupported MCP-Protocol-Version`, `2025-11-25`, `"id":7`}, "", ""},
		{"batch after 2025-03-26", req{"POST", `[` + call + `]`, withSID(nil)}, 400, []string{`-32600`, `batches are only allowed`}, "", ""},
		{"wrong content type", req{"POST", call, withSID(map[string]string{"Content-Type": "text/plain"})}, 415, []string{`Content-Type must be application/json`}, "", ""},
		{"POST accepting only JSON", req{"POST", call, withSID(map[string]string{"Accept": "application/json"})}, 406, []string{`text/event-stream`}, "", ""},
		{"GET without SSE in Accept", req{"GET", "", withSID(map[string]string{"Accept": "application/json"})}, 406, []string{`text/event-stream`}, "", ""},
		{"foreign Origin", req{"POST", call, withSID(map[string]string{"Origin": "http://evil.example.com"})}, 403, []string{`Origin`, `evil.example.com`}, "", ""},
		{"loopback Origin", req{"POST", call, withSID(map[string]string{"Origin": "http://localhost:3000"})}, 200, []string{`"id":7`}, "", ""},
		{"foreign Host on loopback", req{"POST", call, withSID(map[string]string{"Host": "evil.example.com"})}, 403, []string{`Host`, `DNS rebinding`}, "", ""},
		{"other method", req{"PUT", call, withSID(nil)}, 405, []string{`PUT`}, "Allow", "GET, POST, DELETE"},
		{"body too large", req{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 4<<20) + `"}}`, withSID(nil)}, 413, []string{`Payload Too Large`}, "", ""},
		{"DELETE unknown session", req{"DELETE", "", map[string]string{"Mcp-Session-Id": "nope"}}, 404, []string{`Session not found`}, "", ""},
		{"DELETE without session", req{"DELETE", "", nil}, 400, []string{`missing Mcp-Session-Id`}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, ts, tt.req)
			assert.Equal(t, tt.status, resp.StatusCode, body)
			for _, s := range tt.bodyHas {
				assert.Contains(t, body, s)
			}
			if tt.header != "" {
				assert.Contains(t, resp.Header.Get(tt.header), tt.headerWant)
			}
		})
	}
}

func TestHTTPBodyLimitChunked(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, &mcphttp.Options{MaxBodyBytes: 1024})
	sid := initSession(t, ts, "")
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2048) + `"}}`
	hr, err := http.NewRequest("POST", ts.URL+"/mcp", io.MultiReader(strings.NewReader(body))) // no Content-Length: chunked
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("Mcp-Session-Id", sid)
	resp, err := ts.Client().Do(hr)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, 413, resp.StatusCode, string(b))
	require.Contains(t, string(b), "exceeds 1024 bytes")
}

func TestHTTPSessionLifecycle(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, nil)
	sid := initSession(t, ts, "")
	for _, c := range sid {
		require.True(t, c >= 0x21 && c <= 0x7e, "session id %q has a character outside visible ASCII", sid)
	}
	require.GreaterOrEqual(t, len(sid), 16)
	require.Equal(t, 1, h.SessionCount())

	// A second GET stream replaces the first, which ends.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
	require.NoError(t, err)
	g.Header.Set("Accept", "text/event-stream")
	g.Header.Set("Mcp-Session-Id", sid)
	stream, err := ts.Client().Do(g)
	require.NoError(t, err)
	require.Equal(t, 200, stream.StatusCode)
	require.Equal(t, "text/event-stream", stream.Header.Get("Content-Type"))
	g2, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/mcp", nil)
	require.NoError(t, err)
	g2.Header.Set("Accept", "text/event-stream")
	g2.Header.Set("Mcp-Session-Id", sid)
	first := stream
	stream, err = ts.Client().Do(g2)
	require.NoError(t, err)
	require.Equal(t, 200, stream.StatusCode)
	_, err = io.Copy(io.Discard, first.Body)
	require.NoError(t, err, "the replaced stream ends")
	first.Body.Close()

	// DELETE ends the session, closes its stream, and the ID is then unknown.
	resp, body := do(t, ts, req{"DELETE", "", map[string]string{"Mcp-Session-Id": sid}})
	require.Equal(t, 204, resp.StatusCode, body)
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stream.Body); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the GET stream stayed open after DELETE")
	}
	stream.Body.Close()
	resp, body = do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": sid}})
	require.Equal(t, 404, resp.StatusCode, body)
	require.Equal(t, 0, h.SessionCount())
}

func TestHTTPStatelessMode(t *testing.T) {
	t.Parallel()
	ts, _ := newTestServer(t, &mcphttp.Options{Stateless: true})
	resp, body := do(t, ts, req{"POST", initBody, nil})
	require.Equal(t, 200, resp.StatusCode, body)
	require.Empty(t, resp.Header.Get("Mcp-Session-Id"), "a stateless server issues no session")
	resp, body = do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, nil})
	require.Equal(t, 200, resp.StatusCode, body)
	require.Contains(t, body, `"text":"ok"`)
	for _, m := range []string{"GET", "DELETE"} {
		resp, body = do(t, ts, req{m, "", nil})
		require.Equal(t, 405, resp.StatusCode, body)
		require.Equal(t, "POST", resp.Header.Get("Allow"))
		require.Contains(t, body, "stateless")
	}
}

func TestHTTPIdleSessionsExpire(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, &mcphttp.Options{SessionIdleTimeout: 200 * time.Millisecond})
	sid := initSession(t, ts, "")
	require.Eventually(t, func() bool { return h.SessionCount() == 0 }, 5*time.Second, 50*time.Millisecond)
	resp, body := do(t, ts, req{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": sid}})
	require.Equal(t, 404, resp.StatusCode, body)
}

func TestHTTPClosedHandler(t *testing.T) {
	t.Parallel()
	ts, h := newTestServer(t, nil)
	require.NoError(t, h.Close())
	resp, body := do(t, ts, req{"POST", initBody, nil})
	require.Equal(t, 503, resp.StatusCode, body)
	require.Contains(t, body, "shutting down")
}
