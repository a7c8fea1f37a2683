package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/session"
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
		{"unknown session", "no-such-session", http.StatusNotFound, mcp.CodeSessionNotFound, "initialize", "1"},
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
	assert.Equal(t, int64(mcp.CodeSessionNotFound), msgs[0].Error.Code)

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
		assert.Equal(t, map[string]int64{"2": mcp.CodeInvalidRequest}, codes)
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
			assert.Equal(t, int64(mcp.CodeInvalidRequest), msgs[0].Error.Code)
			assert.Contains(t, msgs[0].Error.Message, "2025-03-26")
		})
	}
	t.Run("initialize in a batch", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, newEngineServer(t, nil), nil)
		status, msgs := c.post(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`)
		assert.Equal(t, http.StatusBadRequest, status)
		require.Len(t, msgs, 1)
		assert.Equal(t, int64(mcp.CodeInvalidRequest), msgs[0].Error.Code)
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
	srv.Registry().Remove(mcp.KindPrompt, "greet")
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
