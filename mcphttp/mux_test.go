package mcphttp_test

import (
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

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newMuxServer(t *testing.T, o mcp.Options) *httptest.Server {
	t.Helper()
	return newMuxServerWith(t, o, nil)
}

// newMuxServerWith is newMuxServer with handler options.
func newMuxServerWith(t *testing.T, o mcp.Options, ho *mcphttp.Options) *httptest.Server {
	t.Helper()
	o.Name, o.Version, o.Logger = "mux", "1.0.0", discardLogger()
	srv := mcp.NewServer(o)
	srv.AddRoute("GET", "/users/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "auth": mcp.AuthFromContext(r.Context())})
	}), nil)
	srv.AddRoute("post", "/hooks", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusCreated, map[string]bool{"ok": true})
	}), &mcp.RouteOptions{Public: true})
	h := mcphttp.New(srv, ho)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

func fetch(t *testing.T, method, url, token string) (*http.Response, string) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestMuxHealthAndRoutes(t *testing.T) {
	t.Parallel()
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer good" {
			return nil, fmt.Errorf("%w: bad or missing token", mcp.ErrUnauthorized)
		}
		return "good-user", nil
	}
	ts := newMuxServer(t, mcp.Options{Authenticate: auth})
	custom := newMuxServerWith(t, mcp.Options{}, &mcphttp.Options{Health: &mcphttp.HealthOptions{Path: "/healthz", Message: "fine", Status: 299}})
	off := newMuxServerWith(t, mcp.Options{}, &mcphttp.Options{Health: &mcphttp.HealthOptions{Disabled: true}})
	tests := []struct {
		name, method, url, token string
		status                   int
		body                     string
	}{
		{"health default", "GET", ts.URL + "/health", "", 200, "ok"},
		{"health HEAD", "HEAD", ts.URL + "/health", "", 200, ""},
		{"health is public", "GET", ts.URL + "/health", "", 200, "ok"},
		{"health custom", "GET", custom.URL + "/healthz", "", 299, "fine"},
		{"health custom old path", "GET", custom.URL + "/health", "", 404, "404 page not found\n"},
		{"health disabled", "GET", off.URL + "/health", "", 404, "404 page not found\n"},
		{"route needs auth", "GET", ts.URL + "/users/7", "", 401, `"error_description":"Unauthorized: the request needs valid credentials"`},
		{"route with auth and param", "GET", ts.URL + "/users/7", "good", 200, `{"auth":"good-user","id":"7"}`},
		{"public route, lower-case method", "POST", ts.URL + "/hooks", "", 201, `{"ok":true}`},
		{"route method mismatch", "PUT", ts.URL + "/hooks", "", 405, ""},
		{"MCP endpoint behind auth", "POST", ts.URL + "/mcp", "", 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := fetch(t, tt.method, tt.url, tt.token)
			require.Equal(t, tt.status, resp.StatusCode, body)
			if tt.body != "" {
				if tt.body[0] == '{' {
					require.JSONEq(t, tt.body, body)
				} else {
					require.Contains(t, body, tt.body)
				}
			}
			if tt.name == "health default" {
				require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
			}
		})
	}
}

func TestMuxServesDiscoveryWhenOAuthEnabled(t *testing.T) {
	t.Parallel()
	ts := newMuxServerWith(t, mcp.Options{}, &mcphttp.Options{OAuth: &discovery.Options{Enabled: true,
		ProtectedResource: &discovery.ProtectedResourceMetadata{Resource: "https://api.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}}}})
	resp, body := fetch(t, "GET", ts.URL+"/.well-known/oauth-protected-resource/mcp", "")
	require.Equal(t, 200, resp.StatusCode, body)
	require.JSONEq(t, `{"resource":"https://api.example.com/mcp","authorization_servers":["https://auth.example.com"]}`, body)
}

func TestAddRouteRejectsBadInput(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "x", Version: "1.0.0", Logger: discardLogger()})
	ok := http.NotFoundHandler()
	require.PanicsWithValue(t, `mcp: AddRoute: method "TRACE" is not one of GET, POST, PUT, PATCH, DELETE, OPTIONS`, func() { srv.AddRoute("TRACE", "/x", ok, nil) })
	require.PanicsWithValue(t, `mcp: AddRoute: path "x" must start with /`, func() { srv.AddRoute("GET", "x", ok, nil) })
	require.PanicsWithValue(t, "mcp: AddRoute: nil handler", func() { srv.AddRoute("GET", "/x", nil, nil) })
}

func TestEmbeddedCanAccess(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "embedded", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "public"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "hello", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "reset", CanAccess: func(_ context.Context, auth any) bool { u, _ := auth.(string); return u == "admin" }},
		func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "reset by " + c.Session.(string), nil
		})
	tests := []struct {
		auth      any
		wantTools []string
		wantCall  bool
	}{
		{"admin", []string{"public", "reset"}, true},
		{"guest", []string{"public"}, false},
		{nil, []string{"public"}, false},
	}
	for _, tt := range tests {
		t.Run(func() string { s, _ := tt.auth.(string); return "auth=" + s }(), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := mcptest.NewSession(t, srv, &mcptest.Options{SessionAuth: tt.auth}).Client()

			tools, err := e.ListTools(ctx)
			require.NoError(t, err)
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			assert.Equal(t, tt.wantTools, names)

			res, err := e.CallTool(ctx, "reset", map[string]any{}, nil)
			if tt.wantCall {
				require.NoError(t, err)
				assert.False(t, res.IsError)
				assert.Equal(t, "reset by admin", res.Text())
				return
			}
			var je *mcp.Error
			require.ErrorAs(t, err, &je, "a hidden tool reads as unknown")
			assert.Equal(t, int64(mcp.CodeInvalidParams), je.Code)
			assert.Contains(t, je.Message, `"reset"`)
		})
	}
}

func TestEmbeddedSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newEngineServer(t, nil)
	var mu sync.Mutex
	var notes []string
	tenant := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Seen", "yes")
			next.ServeHTTP(w, r)
		})
	}
	e := mcptest.NewSession(t, srv, &mcptest.Options{SessionAuth: "ada", Middleware: []func(http.Handler) http.Handler{tenant}, Client: client.Options{OnNotification: func(method string, params json.RawMessage) {
		mu.Lock()
		notes = append(notes, method)
		mu.Unlock()
	}}}).Client()

	t.Run("call", func(t *testing.T) {
		res, err := e.CallTool(ctx, "add", map[string]int{"a": 2, "b": 40}, nil)
		require.NoError(t, err)
		assert.Equal(t, "42", res.Text())
	})
	t.Run("request without params", func(t *testing.T) {
		var out map[string]any
		require.NoError(t, e.Call(ctx, "ping", nil, &out), "a nil params value sends no params")
		assert.Empty(t, out)
	})
	t.Run("logs reach OnNotification", func(t *testing.T) {
		_, err := e.CallTool(ctx, "log", nil, &client.CallOptions{AfterNotifications: true})
		require.NoError(t, err)
		mu.Lock()
		defer mu.Unlock()
		assert.Contains(t, notes, "notifications/message")
	})
	t.Run("resources and prompts", func(t *testing.T) {
		rs, err := e.ListResources(ctx)
		require.NoError(t, err)
		require.Len(t, rs, 1)
		rr, err := e.ReadResource(ctx, rs[0].URI)
		require.NoError(t, err)
		assert.Equal(t, "hello", rr.Contents[0].Text)
		ps, err := e.ListPrompts(ctx)
		require.NoError(t, err)
		require.Len(t, ps, 1)
		pr, err := e.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
		require.NoError(t, err)
		assert.Equal(t, mcp.Text("Hello Ada"), pr.Messages[0].Content)
		tmpls, err := e.ListResourceTemplates(ctx)
		require.NoError(t, err)
		assert.Empty(t, tmpls)
	})
	t.Run("list changes reach OnNotification", func(t *testing.T) {
		mcp.AddTool(srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		assert.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, n := range notes {
				if n == "notifications/tools/list_changed" {
					return true
				}
			}
			return false
		}, 5*time.Second, 10*time.Millisecond)
	})
	t.Run("cancelled context", func(t *testing.T) {
		slow := mcptest.NewProbe()
		srv := newEngineServer(t, slow)
		e := mcptest.NewSession(t, srv, nil).Client()
		cctx, cancel := context.WithCancel(ctx)
		go func() { <-slow.Started; cancel() }()
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err := e.CallTool(cctx, "slow", nil, nil)
			if err == nil {
				assert.True(t, res.IsError, "a cancelled call does not succeed")
			}
		}()
		select {
		case err := <-slow.Stopped:
			assert.EqualError(t, err, "mcp: the client cancelled the request",
				"the caller's cancel reaches the tool, as notifications/cancelled")
		case <-time.After(10 * time.Second):
			t.Fatal("the tool never saw the cancel")
		}
		<-done
	})
}

func TestEmbeddedPagination(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "many", Version: "1.0.0", Logger: discardLogger()})
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		mcp.AddTool(srv, mcp.Tool{Name: n}, func(context.Context, *mcp.Context, struct{}) (string, error) { return n, nil })
	}
	ctx := context.Background()
	e := mcptest.NewSession(t, srv, &mcptest.Options{Handler: &mcphttp.Options{PageSize: 2}}).Client()
	tools, err := e.ListTools(ctx)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, names, "ListTools follows nextCursor")
}

func TestEmbeddedComplete(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "complete", Version: "1.0.0", Logger: discardLogger()})
	srv.AddPrompt(mcp.Prompt{Name: "review", Arguments: []mcp.PromptArgument{
		{Name: "language", Enum: []string{"go", "golang", "python"}},
		{Name: "file", Complete: func(_ context.Context, value string, args map[string]string) ([]string, error) {
			return []string{args["language"] + ":" + value + ".go"}, nil
		}},
	}, Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText("review"), nil
	}})
	ctx := context.Background()
	e := mcptest.NewSession(t, srv, nil).Client()
	ref := mcp.CompletionRef{Type: "ref/prompt", Name: "review"}
	tests := []struct {
		name      string
		ref       mcp.CompletionRef
		arg, val  string
		args      map[string]string
		want      *mcp.CompletionResult
		wantError string
	}{
		{name: "enum", ref: ref, arg: "language", val: "go",
			want: &mcp.CompletionResult{Values: []string{"go", "golang"}, Total: 2}},
		{name: "no match is an empty list", ref: ref, arg: "language", val: "rust",
			want: &mcp.CompletionResult{Values: []string{}}},
		{name: "complete func with context arguments", ref: ref, arg: "file", val: "main", args: map[string]string{"language": "go"},
			want: &mcp.CompletionResult{Values: []string{"go:main.go"}, Total: 1}},
		{name: "unknown argument", ref: ref, arg: "nope", wantError: `has no argument "nope"`},
		{name: "unknown prompt", ref: mcp.CompletionRef{Type: "ref/prompt", Name: "nope"}, arg: "x", wantError: `Unknown prompt: "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := e.Complete(ctx, tt.ref, tt.arg, tt.val, tt.args)
			if tt.wantError != "" {
				var je *mcp.Error
				require.ErrorAs(t, err, &je)
				assert.Contains(t, je.Message, tt.wantError)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestEmbeddedHeader: client.InProcess's header reaches the middleware on every
// request, as stdio.Options.Header does.
func TestEmbeddedHeader(t *testing.T) {
	t.Parallel()
	type key struct{}
	srv := mcp.NewServer(mcp.Options{Name: "hdr", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "tenant"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		s, _ := ctx.Value(key{}).(string)
		return s, nil
	})
	tenant := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key{}, r.Header.Get("X-Tenant"))))
		})
	}
	ctx := context.Background()
	e := mcptest.NewSession(t, srv, &mcptest.Options{Header: http.Header{"X-Tenant": {"acme"}}, Middleware: []func(http.Handler) http.Handler{tenant}}).Client()
	res, err := e.CallTool(ctx, "tenant", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "acme", res.Text())
}

// newRev20260728EmbedServer is a server whose tools show what a request saw:
// its session, version and client; one reports progress and logs, one has
// an x-mcp-header argument (a routing header only HTTP has), one waits
// until cancelled.
func newRev20260728EmbedServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "embedded-2026-07-28", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "seen"}, func(_ context.Context, c *mcp.Context, _ struct{}) (any, error) {
		return map[string]any{"sessionId": c.SessionID, "version": c.ProtocolVersion, "client": c.Client.Name}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "progress"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("working")
		for i := 1; i <= 2; i++ {
			_ = c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2})
		}
		return "done", nil
	})
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"region": {Type: "string", Extra: map[string]any{"x-mcp-header": "Region"}},
	}}
	srv.AddRawTool(mcp.Tool{Name: "where", InputSchema: schema},
		func(_ context.Context, _ *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			return &mcp.ContentResult{Content: []mcp.Content{mcp.Text(string(args))}}, nil
		})
	return srv
}

func TestEmbedRev20260728(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var notes []string
	ctx := context.Background()
	e := mcptest.NewSession(t, newRev20260728EmbedServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728, Info: mcp.Implementation{Name: "agent", Version: "2.0.0"}, OnNotification: func(method string, params json.RawMessage) {
		mu.Lock()
		notes = append(notes, method+" "+string(params))
		mu.Unlock()
	}}}).Client()

	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"no session, the revision and client from _meta", func(t *testing.T) {
			got, err := client.CallToolAs[map[string]string](ctx, e, "seen", map[string]any{})
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"sessionId": "", "version": string(mcp.Version20260728), "client": "agent"}, got)
		}},
		{"lists carry the revision's fields", func(t *testing.T) {
			var raw map[string]json.RawMessage
			require.NoError(t, e.Call(ctx, "tools/list", nil, &raw))
			assert.JSONEq(t, `"complete"`, string(raw["resultType"]))
			assert.JSONEq(t, `0`, string(raw["ttlMs"]))
			assert.Contains(t, string(raw["_meta"]), "io.modelcontextprotocol/serverInfo")
		}},
		{"no routing headers needed in process", func(t *testing.T) {
			res, err := e.CallTool(ctx, "where", map[string]any{"region": "eu"}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.JSONEq(t, `{"region":"eu"}`, res.Text())
		}},
		{"removed methods are unknown", func(t *testing.T) {
			for _, m := range []string{"ping", "initialize", "logging/setLevel"} {
				err := e.Call(ctx, m, map[string]any{}, nil)
				var me *mcp.Error
				require.True(t, errors.As(err, &me), "%s: %v", m, err)
				assert.Equal(t, int64(mcp.CodeMethodNotFound), int64(me.Code), "%s: %v", m, err)
			}
		}},
		{"an unsupported version in _meta is -32022", func(t *testing.T) {
			err := e.Call(ctx, "tools/list", map[string]any{"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion": "v999.0.0"}}, nil)
			var me *mcp.Error
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Equal(t, int64(jsonrpc.CodeUnsupportedProtocolVersion), int64(me.Code), "%v", err)
		}},
		{"progress on the request, logs only with _meta's logLevel", func(t *testing.T) {
			// Progress asks for reports (a token in _meta); AfterNotifications
			// returns once OnNotification has seen what came before the answer.
			var reports atomic.Int32
			opts := &client.CallOptions{Progress: func(mcp.Progress) { reports.Add(1) }, AfterNotifications: true}
			res, err := e.CallTool(ctx, "progress", map[string]any{}, opts)
			require.NoError(t, err)
			assert.Equal(t, "done", res.Text())
			opts.Meta = map[string]any{"io.modelcontextprotocol/logLevel": "info"}
			res, err = e.CallTool(ctx, "progress", map[string]any{}, opts)
			require.NoError(t, err)
			assert.Equal(t, "done", res.Text())
			assert.EqualValues(t, 4, reports.Load(), "two reports a call reach CallOptions.Progress")
			mu.Lock()
			defer mu.Unlock()
			var progress, logs int
			for _, n := range notes {
				switch {
				case len(n) > 22 && n[:22] == "notifications/progress":
					progress++
				case len(n) > 21 && n[:21] == "notifications/message":
					logs++
				}
			}
			assert.Equal(t, 4, progress, "%q", notes)
			assert.Equal(t, 1, logs, "one log, from the call with a logLevel: %q", notes)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

func TestNewMuxUnderPrefix(t *testing.T) {
	t.Parallel()
	srv := quietServerWithTools(mcp.Options{})
	srv.AddRoute("GET", "/users/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
	}), nil)
	h := mcphttp.New(srv, nil)
	parent := http.NewServeMux()
	parent.Handle("/api/", http.StripPrefix("/api", mcphttp.NewMux(h, nil)))
	parent.HandleFunc("GET /other", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "parent") })
	ts := httptest.NewServer(parent)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	c := &httpClient{t: t, url: ts.URL + "/api/mcp", hc: ts.Client()}
	c.initWith(`{}`, "prefixed")
	res, _ := c.call(2, "tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`)
	assert.Equal(t, "3", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)

	tests := []struct{ path, want string }{
		{"/api/health", "ok"},
		{"/api/users/7", `{"id":"7"}`},
		{"/other", "parent"},
	}
	for _, tt := range tests {
		resp, body := fetch(t, http.MethodGet, ts.URL+tt.path, "")
		assert.Equal(t, http.StatusOK, resp.StatusCode, tt.path)
		assert.Equal(t, tt.want, strings.TrimSpace(body), tt.path)
	}
	resp, _ := fetch(t, http.MethodGet, ts.URL+"/api/nothing", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestNewMuxServesLateRoutes: a route added after NewMux is served (with
// the same auth rules), not silently dropped; one whose pattern conflicts
// with a mounted one is refused and logged.
func TestNewMuxServesLateRoutes(t *testing.T) {
	t.Parallel()
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer good" {
			return nil, mcp.ErrUnauthorized
		}
		return "good-user", nil
	}
	logs := &wiretest.SyncBuffer{}
	srv := mcp.NewServer(mcp.Options{Name: "late", Version: "1.0.0", Logger: jsonLogger(logs), Authenticate: auth})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	resp, _ := fetch(t, http.MethodGet, ts.URL+"/late", "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "not there yet")
	srv.AddRoute("GET", "/late", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "late "+fmt.Sprint(mcp.AuthFromContext(r.Context())))
	}), nil)
	srv.AddRoute("POST", "/late-public", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}), &mcp.RouteOptions{Public: true})
	srv.AddRoute("GET", "/health", http.NotFoundHandler(), nil)

	tests := []struct {
		name, method, path, token string
		status                    int
		body                      string
	}{
		{"late route", "GET", "/late", "good", 200, "late good-user"},
		{"late route needs auth", "GET", "/late", "", 401, ""},
		{"late public route", "POST", "/late-public", "", 201, ""},
		{"late route, wrong method", "PUT", "/late-public", "", 405, ""},
		{"conflicting late route refused: health still answers", "GET", "/health", "", 200, "ok"},
		{"still unknown", "GET", "/nothing", "", 404, ""},
	}
	for _, tt := range tests {
		resp, body := fetch(t, tt.method, ts.URL+tt.path, tt.token)
		assert.Equal(t, tt.status, resp.StatusCode, tt.name)
		if tt.body != "" {
			assert.Equal(t, tt.body, body, tt.name)
		}
	}
	assert.Contains(t, logs.String(), "a custom route added after NewMux is not served")
	assert.Contains(t, logs.String(), "GET /health")
}
