package toolsearch_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// notesServer is a small catalog: notes, mail and admin tools.
func notesServer(t testing.TB) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: quiet()})
	type noteArgs struct {
		Title string `json:"title" jsonschema:"the note's title"`
		Body  string `json:"body,omitempty" jsonschema:"what the note says"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "create_note", Description: "Write a new note in the notebook"},
		func(_ context.Context, _ *mcp.Context, in noteArgs) (string, error) {
			return "created " + in.Title, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "delete_note", Description: "Remove a note for good"},
		func(_ context.Context, _ *mcp.Context, in struct {
			ID int `json:"id" jsonschema:"the note's number"`
		}) (string, error) {
			return "deleted", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "send_email", Description: "Send a message to someone's inbox", Tags: []string{"mail"}},
		func(_ context.Context, _ *mcp.Context, in struct {
			To      string `json:"to" jsonschema:"recipient address"`
			Subject string `json:"subject"`
		}) (string, error) {
			return "sent to " + in.To, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "status", Description: "Is the service up?"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "up", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "wipe_everything", Description: "Delete every note", Tags: []string{"admin"},
		CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" }},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "wiped", nil })
	return srv
}

// connect serves srv with search installed and returns a client of it;
// header carries the caller's identity for the auth middleware.
func connect(t testing.TB, srv *mcp.Server, s *toolsearch.Search, who string) *client.Client {
	t.Helper()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.Header.Get("X-User"); u != "" {
				r = r.WithContext(mcp.WithAuth(r.Context(), u))
			}
			next.ServeHTTP(w, r)
		})
	}
	hdr := http.Header{}
	if who != "" {
		hdr.Set("X-User", who)
	}
	c, err := client.Connect(t.Context(), client.InProcess(s.Middleware(auth(h)), hdr), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

type found struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

func search(t testing.TB, c *client.Client, args map[string]any) (found, *mcp.ContentResult) {
	t.Helper()
	res, err := c.CallTool(t.Context(), toolsearch.DefaultSearchTool, args, nil)
	require.NoError(t, err)
	var f found
	if !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &f))
	}
	return f, res
}

func (f found) names() []string {
	var out []string
	for _, t := range f.Tools {
		out = append(out, t.Name)
	}
	return out
}

func names(tools []mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// The client lists the pinned tools, the search tool and the call tool;
// a search finds a hidden tool with its schema, and call_tool calls it.
func TestSurfaceSearchCall(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{"status"}})
	require.NoError(t, err)
	c := connect(t, srv, s, "")

	tools, err := c.ListTools(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"status", "search_tools", "call_tool"}, names(tools))

	f, _ := search(t, c, map[string]any{"query": "remove a note"})
	require.NotEmpty(t, f.Tools)
	assert.Equal(t, "delete_note", f.Tools[0].Name)
	assert.Contains(t, string(f.Tools[0].InputSchema), `"id"`, "the result carries the input schema")

	res, err := c.CallTool(t.Context(), "call_tool", map[string]any{"name": "create_note", "arguments": map[string]any{"title": "milk"}}, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, "created milk", res.Text())

	res, err = c.CallTool(t.Context(), "create_note", map[string]any{"title": "eggs"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "created eggs", res.Text(), "a found tool is callable directly too")

	f, _ = search(t, c, map[string]any{"pattern": "mail|inbox"})
	assert.Equal(t, []string{"send_email"}, f.names())
	f, _ = search(t, c, map[string]any{"query": "status of the service"})
	assert.NotContains(t, f.names(), "status", "a pinned tool is listed, not searched")
	assert.False(t, slices.Contains(f.names(), "search_tools") || slices.Contains(f.names(), "call_tool"))
}

// An interceptor installed inside the Search's (a middleware after its
// Middleware: telemetry, rate limits) sees a call_tool call as a
// tools/call of the tool it names, with that tool's arguments.
func TestInnerInterceptorSeesTheTool(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []string
	inner := func(next http.Handler) http.Handler {
		ic := func(next mcp.CallHandler) mcp.CallHandler {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				if c.Method == "tools/call" {
					mu.Lock()
					seen = append(seen, string(c.Params))
					mu.Unlock()
				}
				return next(ctx, c)
			}
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), ic)))
		})
	}
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	c, err := client.Connect(t.Context(), client.InProcess(s.Middleware(inner(h)), nil), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	res, err := c.CallTool(t.Context(), "call_tool", map[string]any{"name": "create_note", "arguments": map[string]any{"title": "milk"}}, nil)
	require.NoError(t, err)
	require.Equal(t, "created milk", res.Text())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 1)
	assert.JSONEq(t, `{"name":"create_note","arguments":{"title":"milk"}}`, seen[0])
}

// A task-augmented call_tool call (revision 2025-11-25's params.task)
// makes a task of the tool it names, as a direct call would: the
// request's other members reach the engine unchanged.
func TestCallToolTask(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	mcp.AddTool(srv, mcp.Tool{Name: "report", Description: "Write a long report", Task: &mcp.TaskOptions{}},
		func(_ context.Context, _ *mcp.Context, in struct {
			Topic string `json:"topic"`
		}) (string, error) {
			return "report on " + in.Topic, nil
		})
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, s, "")
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	require.NoError(t, c.Call(t.Context(), "tools/call", map[string]any{"name": "call_tool",
		"arguments": map[string]any{"name": "report", "arguments": map[string]any{"topic": "tides"}},
		"task":      map[string]any{"ttl": 60000}}, &created))
	require.NotEmpty(t, created.Task.TaskID, "the call became a task")
	var res mcp.ContentResult
	require.NoError(t, c.Call(t.Context(), "tasks/result", map[string]any{"taskId": created.Task.TaskID}, &res))
	assert.Equal(t, "report on tides", res.Text())
}

// Without the Middleware (a server set up wrong), call_tool runs nothing:
// it says what is missing, and the server logs it.
func TestCallToolWithoutMiddleware(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	_, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	res, err := c.CallTool(t.Context(), "call_tool", map[string]any{"name": "create_note", "arguments": map[string]any{"title": "x"}}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "middleware is not installed")
	assert.NotContains(t, res.Text(), "created")
}
