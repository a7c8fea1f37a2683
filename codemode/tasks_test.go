package codemode_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// taskServer has tools that run as tasks: job must (it reports progress
// and returns structured content), maybe may, later must and starts its
// task itself (Deferred), and plain may not.
func taskServer(t testing.TB) *mcp.Server {
	t.Helper()
	srv := testServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "job", Task: &mcp.TaskOptions{Required: true}},
		func(ctx context.Context, c *mcp.Context, in struct {
			N int `json:"n"`
		}) (map[string]int, error) {
			// Without a progress token there is no one to tell.
			_ = c.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2, Message: "job working"})
			return map[string]int{"done": in.N}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "maybe", Task: &mcp.TaskOptions{}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "maybe done", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "later", Task: &mcp.TaskOptions{Required: true, Deferred: true}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			if err := c.StartTask(ctx); err != nil {
				return "", err
			}
			return "later done", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "broken", Task: &mcp.TaskOptions{Required: true}},
		func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "", mcp.UserErrorf("the job failed")
		})
	return srv
}

// subject is auth data that names its caller (mcp.Subject).
type subject string

func (s subject) Subject() string { return string(s) }

// taskClient connects to srv behind the Runner, speaking version, as
// the user "alice" (a task needs a caller with a subject at 2026-07-28),
// declaring the tasks extension when optIn.
func taskClient(t *testing.T, srv *mcp.Server, r *codemode.Runner, version mcp.Version, optIn bool) *client.Client {
	t.Helper()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			next.ServeHTTP(w, req.WithContext(mcp.WithAuth(req.Context(), subject("alice"))))
		})
	}
	opts := &client.Options{Logger: quiet(), ProtocolVersion: version}
	if optIn {
		opts.Extensions = map[string]any{mcp.TasksExtension: map[string]any{}}
	}
	c, err := client.Connect(t.Context(), client.InProcess(auth(r.Middleware(h)), nil), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// A script's call of a tool that runs only as a task waits for the
// tool's result, through call and try_call alike, at every revision and
// whether or not the client declared the tasks extension; a tool that
// may run as a task runs as an ordinary call (the script wants its
// result, not a task to poll); the tool's progress reaches the client on
// the script call's progress token; its failure is the script's error.
func TestScriptAwaitsTasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		version mcp.Version
		optIn   bool
	}{
		{"2025-06-18", mcp.Version20250618, false},
		{"2025-11-25", mcp.Version20251125, false},
		{"2026-07-28", mcp.Version20260728, false},
		{"2026-07-28 with tasks", mcp.Version20260728, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := taskServer(t)
			r, err := codemode.New(srv, nil)
			require.NoError(t, err)
			c := taskClient(t, srv, r, tc.version, tc.optIn)
			require.Equal(t, tc.version, c.ProtocolVersion())
			var mu sync.Mutex
			var progress []string
			res, err := c.CallTool(t.Context(), codemode.DefaultTool, map[string]any{"script": `
result = [call("job", {"n": 2}), try_call("job", {"n": 3}), call("maybe"), call("later"), try_call("broken")]
`}, &client.CallOptions{Progress: func(p mcp.Progress) {
				mu.Lock()
				progress = append(progress, p.Message)
				mu.Unlock()
			}})
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			assert.JSONEq(t, `{"result":[{"done":2},{"ok":true,"value":{"done":3}},"maybe done","later done",
				{"ok":false,"error":"broken: the job failed"}]}`, structured(t, res))
			mu.Lock()
			assert.Equal(t, []string{"job working", "job working"}, progress)
			mu.Unlock()

			res = run(t, c, `call("broken")`)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), "error at line 1: broken: the job failed")
		})
	}
}

// The script's time limit bounds a task it waits for: the task's tool
// is cancelled with the script, and the script ends with its limit.
func TestScriptTaskTimeout(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	stopped := make(chan struct{})
	mcp.AddTool(srv, mcp.Tool{Name: "forever", Task: &mcp.TaskOptions{Required: true}},
		func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			<-ctx.Done()
			close(stopped)
			return "", ctx.Err()
		})
	r, err := codemode.New(srv, &codemode.Options{Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	c := taskClient(t, srv, r, mcp.Version20251125, false)
	res := run(t, c, `call("forever")`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "the script ran longer than its time limit")
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the task's tool was not cancelled with the script")
	}
}

// Outside a script, a tool that runs only as a task still refuses an
// ordinary call: a script's way in is no way around it for a client.
func TestTaskRequiredOutsideScripts(t *testing.T) {
	t.Parallel()
	srv := taskServer(t)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		c := taskClient(t, srv, r, v, false)
		_, err := c.CallTool(t.Context(), "job", map[string]any{"n": 1}, nil)
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), "runs only as a task", v)
	}
}

// Through toolsearch's call_tool, a script's call of a tool that runs
// only as a task is awaited as well.
func TestScriptAwaitsTaskThroughCallTool(t *testing.T) {
	t.Parallel()
	srv := taskServer(t)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, r, s, "")
	res := run(t, c, `result = call("call_tool", {"name": "job", "arguments": {"n": 4}})`)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `{"result":{"done":4}}`, structured(t, res))
	_, err = c.CallTool(t.Context(), toolsearch.DefaultCallTool, map[string]any{"name": "job", "arguments": map[string]any{"n": 4}}, nil)
	require.Error(t, err, "a client's own call_tool of it is an ordinary call, refused")
	assert.Contains(t, err.Error(), "runs only as a task")
}
