package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

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
