package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/mcphttp"
)

// taskFixture is a server with task tools, served by mcphttp over
// httptest, and a client connected to it at one revision.
type taskFixture struct {
	c       *client.Client
	started chan struct{} // "gated" and "quiet" began
	release chan struct{} // lets "gated" and "quiet" return
	gets    atomic.Int64  // tasks/get requests the server has answered

	mu       sync.Mutex
	statuses []client.TaskInfo // what OnTaskStatus heard
}

// heard reports whether OnTaskStatus heard status for task id.
func (f *taskFixture) heard(id, status string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.statuses {
		if s.ID == id && s.Status == status {
			return true
		}
	}
	return false
}

// newTaskFixture serves the task tools and connects a client of version
// to them, with an elicitation handler that answers "Ada".
func newTaskFixture(t *testing.T, version mcp.Version) *taskFixture {
	f := &taskFixture{started: make(chan struct{}, 1), release: make(chan struct{})}
	srv := mcp.NewServer(mcp.Options{Name: "tasks", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	fast := &mcp.TaskOptions{PollInterval: 10 * time.Millisecond}
	type topic struct {
		Topic string `json:"topic"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "report", Task: fast},
		func(_ context.Context, _ *mcp.Context, in topic) (string, error) { return "Report on " + in.Topic, nil })
	gate := func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		f.started <- struct{}{}
		select {
		case <-f.release:
			return "released", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	mcp.AddTool(srv, mcp.Tool{Name: "gated", Task: fast}, gate)
	// quiet asks to be polled once a minute: a Wait that returns sooner
	// was woken by a status notification.
	mcp.AddTool(srv, mcp.Tool{Name: "quiet", Task: &mcp.TaskOptions{PollInterval: time.Hour}}, gate)
	mcp.AddTool(srv, mcp.Tool{Name: "broken", Task: fast},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", errors.New("it broke") })
	mcp.AddTool(srv, mcp.Tool{Name: "refused", Task: fast},
		func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "", &mcp.Error{Code: mcp.CodeServerError, Message: "no quota left"}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "forever", Task: fast},
		func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
	mcp.AddTool(srv, mcp.Tool{Name: "ask", Task: fast},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "name?", RequestedSchema: map[string]any{"type": "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}}}})

			if err != nil {
				return "", err
			}
			name, _ := res.Content["name"].(string)
			return "hello " + name, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "plain"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "plain answer", nil })
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
		if bytes.Contains(body, []byte(`"method":"tasks/get"`)) {
			f.gets.Add(1)
		}
	}))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	f.c = connect(t, client.HTTP(ts.URL+"/mcp", nil), &client.Options{ProtocolVersion: version,
		Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		OnTaskStatus: func(i client.TaskInfo) {
			f.mu.Lock()
			f.statuses = append(f.statuses, i)
			f.mu.Unlock()
		}})
	require.Equal(t, version, f.c.ProtocolVersion())
	return f
}

// TestTasks runs a tool as a task at each revision with tasks: the same
// calls give the same outcomes, those CallTool gives.
func TestTasks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, ctx context.Context, v mcp.Version, f *taskFixture)
	}{
		{"completes", func(t *testing.T, ctx context.Context, _ mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "report", map[string]string{"topic": "tides"}, nil)
			require.NoError(t, err)
			assert.NotEmpty(t, task.ID())
			res, err := task.Wait(ctx)
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, "Report on tides", res.Text())
			info, err := task.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "completed", info.Status)
			assert.Equal(t, task.ID(), info.ID)
			assert.True(t, info.Ended())
			assert.Equal(t, 10*time.Millisecond, info.PollInterval)
			assert.Equal(t, engine.DefaultTaskTTL, info.TTL)
			assert.False(t, info.Created.IsZero())
		}},
		{"fails with a tool error, as CallTool does", func(t *testing.T, ctx context.Context, _ mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "broken", nil, nil)
			require.NoError(t, err)
			res, err := task.Wait(ctx)
			require.NoError(t, err)
			direct, err := f.c.CallTool(ctx, "broken", nil, nil)
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Equal(t, direct.IsError, res.IsError)
			assert.Equal(t, direct.Text(), res.Text())
			assert.Contains(t, res.Text(), "it broke")
		}},
		{"fails with a JSON-RPC error, as CallTool does", func(t *testing.T, ctx context.Context, _ mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "refused", nil, nil)
			require.NoError(t, err)
			res, err := task.Wait(ctx)
			require.Error(t, err)
			assert.Nil(t, res)
			_, direct := f.c.CallTool(ctx, "refused", nil, nil)
			require.Error(t, direct)
			var got, want *mcp.Error
			require.ErrorAs(t, err, &got)
			require.ErrorAs(t, direct, &want)
			assert.Equal(t, want.Code, got.Code)
			assert.Equal(t, want.Message, got.Message)
			assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeServerError})
		}},
		{"cancelled", func(t *testing.T, ctx context.Context, _ mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "forever", nil, nil)
			require.NoError(t, err)
			waited := make(chan error, 1)
			go func() { _, err := task.Wait(ctx); waited <- err }()
			require.NoError(t, task.Cancel(ctx))
			select {
			case err := <-waited:
				assert.ErrorIs(t, err, client.ErrTaskCancelled)
			case <-ctx.Done():
				t.Fatal("Wait did not return after Cancel")
			}
			info, err := task.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "cancelled", info.Status)
			assert.NoError(t, task.Cancel(ctx), "cancelling an ended task")
			_, err = task.Wait(ctx)
			assert.ErrorIs(t, err, client.ErrTaskCancelled)
		}},
		{"status goes from working to completed", func(t *testing.T, ctx context.Context, v mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "gated", nil, nil)
			require.NoError(t, err)
			<-f.started
			info, err := task.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "working", info.Status)
			assert.False(t, info.Ended())
			close(f.release)
			res, err := task.Wait(ctx)
			require.NoError(t, err)
			assert.Equal(t, "released", res.Text())
			info, err = task.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "completed", info.Status)
			if v == mcp.Version20251125 {
				// 2025-11-25 announces the end on the session's stream.
				require.Eventually(t, func() bool { return f.heard(task.ID(), "completed") }, 10*time.Second, 5*time.Millisecond)
			}
		}},
		{"input_required is answered by the client's handlers", func(t *testing.T, ctx context.Context, v mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "ask", nil, nil)
			require.NoError(t, err)
			res, err := task.Wait(ctx)
			require.NoError(t, err)
			assert.Equal(t, "hello Ada", res.Text())
			if v == mcp.Version20251125 {
				require.Eventually(t, func() bool { return f.heard(task.ID(), "input_required") }, 10*time.Second, 5*time.Millisecond)
			}
		}},
		{"Wait returns when its context ends", func(t *testing.T, ctx context.Context, _ mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "forever", nil, nil)
			require.NoError(t, err)
			wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			res, err := task.Wait(wctx)
			assert.Nil(t, res)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			info, err := task.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "working", info.Status, "the task runs on")
			require.NoError(t, task.Cancel(ctx))
		}},
		{"a tool that does not run as a task", func(t *testing.T, ctx context.Context, v mcp.Version, f *taskFixture) {
			task, err := f.c.StartTool(ctx, "plain", nil, nil)
			if v == mcp.Version20251125 {
				// The server refuses params.task (execution.taskSupport
				// forbidden); the tool did not run.
				require.ErrorIs(t, err, client.ErrTasksUnsupported)
				assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeMethodNotFound})
				assert.Nil(t, task)
				return
			}
			// 2026-07-28 lets the server answer as an ordinary call.
			require.NoError(t, err)
			assert.Empty(t, task.ID())
			res, err := task.Wait(ctx)
			require.NoError(t, err)
			assert.Equal(t, "plain answer", res.Text())
			info, err := task.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "completed", info.Status)
			assert.NoError(t, task.Cancel(ctx))
		}},
		{"lists tasks where the revision can", func(t *testing.T, ctx context.Context, v mcp.Version, f *taskFixture) {
			a, err := f.c.StartTool(ctx, "report", map[string]string{"topic": "a"}, nil)
			require.NoError(t, err)
			_, err = a.Wait(ctx)
			require.NoError(t, err)
			b, err := f.c.StartTool(ctx, "forever", nil, nil)
			require.NoError(t, err)
			defer func() { assert.NoError(t, b.Cancel(ctx)) }()
			tasks, err := f.c.Tasks(ctx)
			if v == mcp.Version20260728 {
				require.ErrorIs(t, err, client.ErrTasksUnsupported)
				assert.ErrorIs(t, err, client.ErrNotInRevision)
				return
			}
			require.NoError(t, err)
			require.Len(t, tasks, 2)
			assert.Equal(t, a.ID(), tasks[0].ID)
			assert.Equal(t, "completed", tasks[0].Status)
			assert.Equal(t, b.ID(), tasks[1].ID)
			assert.Equal(t, "working", tasks[1].Status)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range versions {
				t.Run(string(v), func(t *testing.T) {
					t.Parallel()
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					tt.run(t, ctx, v, newTaskFixture(t, v))
				})
			}
		})
	}
}

// TestTaskWaitWokenByStatus: at 2025-11-25 a status notification wakes
// Wait before the poll interval the server asked for (an hour, which the
// client bounds to a minute) runs out.
func TestTaskWaitWokenByStatus(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := newTaskFixture(t, mcp.Version20251125)
	task, err := f.c.StartTool(ctx, "quiet", nil, nil)
	require.NoError(t, err)
	<-f.started
	waited := make(chan error, 1)
	go func() { _, err := task.Wait(ctx); waited <- err }()
	// Once the server has answered Wait's first tasks/get (working), Wait
	// sleeps; the tool ends now.
	require.Eventually(t, func() bool { return f.gets.Load() >= 1 }, 10*time.Second, time.Millisecond)
	close(f.release)
	select {
	case err := <-waited:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("Wait was not woken by notifications/tasks/status")
	}
}

// TestTasksUnsupported: a revision without tasks gets the sentinel
// before anything is sent.
func TestTasksUnsupported(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := newTaskFixture(t, mcp.Version20250618)
	task, err := f.c.StartTool(ctx, "report", nil, nil)
	require.ErrorIs(t, err, client.ErrTasksUnsupported)
	assert.Nil(t, task)
	_, err = f.c.Tasks(ctx)
	require.ErrorIs(t, err, client.ErrTasksUnsupported)
}

// TestTaskProgress: at 2025-11-25 the call's progress callback hears the
// task's progress, reported after tools/call was answered.
func TestTaskProgress(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := mcp.NewServer(mcp.Options{Name: "tasks", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	release, heard := make(chan struct{}), make(chan struct{})
	mcp.AddTool(srv, mcp.Tool{Name: "count", Task: &mcp.TaskOptions{PollInterval: 10 * time.Millisecond}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			<-release
			for i := 1; i <= 3; i++ {
				if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3}); err != nil {
					return "", err
				}
			}
			// The task ends only once the client has heard all three:
			// progress travels on the GET stream and Wait's tasks/get on
			// POSTs, so a task seen ended first would drop the rest.
			select {
			case <-heard:
			case <-ctx.Done():
			}
			return "counted", nil
		})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	c := connect(t, client.HTTP(ts.URL+"/mcp", nil), nil)
	var (
		mu  sync.Mutex
		got []float64
	)
	task, err := c.StartTool(ctx, "count", nil, &client.CallOptions{Progress: func(p mcp.Progress) {
		mu.Lock()
		got = append(got, p.Progress)
		if len(got) == 3 {
			close(heard)
		}
		mu.Unlock()
	}})
	require.NoError(t, err)
	close(release)
	res, err := task.Wait(ctx)
	require.NoError(t, err)
	assert.Equal(t, "counted", res.Text())
	mu.Lock()
	assert.Equal(t, []float64{1, 2, 3}, got)
	mu.Unlock()
}

// TestTaskNoGoroutineLeak runs tasks to each end at both revisions and
// checks that closing the client and server leaves no goroutine behind
// (not parallel: goleak looks at the whole process).
func TestTaskNoGoroutineLeak(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			f := newTaskFixture(t, v)
			done, err := f.c.StartTool(ctx, "ask", nil, nil)
			require.NoError(t, err)
			_, err = done.Wait(ctx)
			require.NoError(t, err)
			stuck, err := f.c.StartTool(ctx, "forever", nil, nil)
			require.NoError(t, err)
			wctx, wcancel := context.WithTimeout(ctx, 30*time.Millisecond)
			_, err = stuck.Wait(wctx)
			wcancel()
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NoError(t, stuck.Cancel(ctx))
		})
	}
}

// TestCallToolFollowsTask: a client that declares the tasks extension
// itself lets a 2026-07-28 server answer a plain tools/call of a
// task-capable tool with a task; CallTool waits for it and returns the
// tool's result, never the empty one the task envelope decodes to.
func TestCallToolFollowsTask(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "tasks", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "report", Task: &mcp.TaskOptions{PollInterval: 10 * time.Millisecond}},
		func(_ context.Context, _ *mcp.Context, in struct {
			Topic string `json:"topic"`
		}) (string, error) {
			return "Report on " + in.Topic, nil
		})
	h := mcphttp.New(srv, nil)
	var gets atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"method":"tasks/get"`)) {
			gets.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	c := connect(t, client.HTTP(ts.URL+"/mcp", nil), &client.Options{ProtocolVersion: mcp.Version20260728,
		Extensions: map[string]any{mcp.TasksExtension: map[string]any{}}})

	res, err := c.CallTool(t.Context(), "report", map[string]string{"topic": "tides"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Report on tides", res.Text())
	assert.Positive(t, gets.Load(), "the server answered with a task, which CallTool polled")
}
