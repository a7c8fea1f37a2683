package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// task25 is a task as revision 2025-11-25 writes it.
type task25 struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// newTasks25 serves newTaskServer at 2025-11-25 and returns a client whose
// session was opened by user (the X-User header; "" is anonymous) with
// the elicitation capability.
func newTasks25(t *testing.T, opts *mcphttp.Options) (*httpClient, *taskTools) {
	t.Helper()
	tt := &taskTools{stopped: make(chan error, 8)}
	c, _ := newHTTP(t, newTaskServer(t, tt), opts)
	return c, tt
}

// client25 is a client of a 2025-11-25 session opened by user (the
// X-User header of every request; "" is anonymous).
type client25 struct {
	*httpClient
	user string
}

// as returns a client of the same server with a session of its own,
// opened by user.
func (c *httpClient) as(user string) *client25 {
	c.t.Helper()
	d := &client25{httpClient: &httpClient{t: c.t, url: c.url, hc: c.hc}, user: user}
	var hd []string
	if user != "" {
		hd = append(hd, "X-User", user)
	}
	d.startSession(string(mcp.Version20251125), `{"elicitation":{}}`, "t", "1.0.0", hd...)
	return d
}

// rpc sends one request of the client's session (and user) and returns
// the response.
func (c *client25) rpc(id int, method, params string) msg {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	var hd []string
	if c.user != "" {
		hd = append(hd, "X-User", c.user)
	}
	status, msgs := c.post(body, hd...)
	require.Equal(c.t, http.StatusOK, status)
	require.NotEmpty(c.t, msgs)
	return msgs[len(msgs)-1]
}

func resultOf[T any](t testing.TB, m msg) T {
	t.Helper()
	require.Nil(t, m.Error, "error response: %+v", m.Error)
	var v T
	require.NoError(t, json.Unmarshal(m.Result, &v), "%s", m.Result)
	return v
}

// startTask25 calls tool with params.task and returns the task.
func (c *client25) startTask25(tool, args, task string) task25 {
	c.t.Helper()
	m := c.rpc(1, "tools/call", `{"name":"`+tool+`","arguments":`+args+`,"task":`+task+`}`)
	r := resultOf[struct {
		Task task25 `json:"task"`
	}](c.t, m)
	require.NotEmpty(c.t, r.Task.TaskID, "%s", m.Result)
	return r.Task
}

func (c *client25) getTask25(id string) task25 {
	c.t.Helper()
	return resultOf[task25](c.t, c.rpc(2, "tasks/get", `{"taskId":"`+id+`"}`))
}

func (c *client25) waitTask25(id, status string) task25 {
	c.t.Helper()
	var w task25
	require.Eventually(c.t, func() bool { w = c.getTask25(id); return w.Status == status }, 5*time.Second, 20*time.Millisecond,
		"task %s never reached %s", id, status)
	return w
}

func TestTasks25Capabilities(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	for _, tc := range []struct {
		version   string
		tasks     string // capabilities.tasks, "" for none
		execution map[string]string
	}{
		{"2025-11-25", `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`,
			map[string]string{"plain": "", "slow": `{"taskSupport":"optional"}`, "required": `{"taskSupport":"required"}`}},
		{"2025-06-18", "", map[string]string{"plain": "", "slow": "", "required": ""}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			resp, b := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+tc.version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var init struct {
				Result struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(b, &init), "%s", b)
			if tc.tasks == "" {
				assert.NotContains(t, init.Result.Capabilities, "tasks")
			} else {
				assert.JSONEq(t, tc.tasks, string(init.Result.Capabilities["tasks"]))
			}
			d := &client25{httpClient: &httpClient{t: t, url: c.url, hc: c.hc, sid: resp.Header.Get("Mcp-Session-Id"), version: tc.version}}
			list := resultOf[struct {
				Tools []map[string]json.RawMessage `json:"tools"`
			}](t, d.rpc(1, "tools/list", `{}`))
			seen := map[string]string{}
			for _, tl := range list.Tools {
				var name string
				require.NoError(t, json.Unmarshal(tl["name"], &name))
				seen[name] = string(tl["execution"])
			}
			for name, want := range tc.execution {
				assert.Equal(t, want, seen[name], "execution of %s", name)
			}
		})
	}
}

func TestTasks25Lifecycle(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a := c.as("ada")
	created := a.startTask25("slow", `{"ms":300}`, `{"ttl":60000}`)
	assert.Equal(t, "working", created.Status)
	require.NotNil(t, created.TTL)
	assert.Equal(t, int64(60000), *created.TTL, "a ttl shorter than the tool's is taken")
	assert.Equal(t, int64(50), created.PollInterval)
	_, err := time.Parse(time.RFC3339, created.CreatedAt)
	require.NoError(t, err)

	// tasks/result blocks until the task ends, then answers the
	// CallToolResult with the related task.
	start := time.Now()
	res := resultOf[struct {
		Content []mcp.TextContent `json:"content"`
		IsError bool              `json:"isError"`
		Meta    map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}](t, a.rpc(3, "tasks/result", `{"taskId":"`+created.TaskID+`"}`))
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "tasks/result waited for the tool")
	require.Len(t, res.Content, 1)
	assert.Equal(t, "slept", res.Content[0].Text)
	assert.False(t, res.IsError)
	assert.Equal(t, created.TaskID, res.Meta["io.modelcontextprotocol/related-task"].TaskID)

	done := a.getTask25(created.TaskID)
	assert.Equal(t, "completed", done.Status)
	assert.Equal(t, created.CreatedAt, done.CreatedAt)

	// A ttl longer than the tool's (one hour) is cut to it.
	long := a.startTask25("slow", `{}`, `{"ttl":1e12}`)
	assert.Equal(t, time.Hour.Milliseconds(), *long.TTL)
	// No ttl: the tool's.
	plain := a.startTask25("slow", `{}`, `{}`)
	assert.Equal(t, time.Hour.Milliseconds(), *plain.TTL)

	list := resultOf[struct {
		Tasks      []task25 `json:"tasks"`
		NextCursor string   `json:"nextCursor"`
	}](t, a.rpc(4, "tasks/list", `{}`))
	require.Len(t, list.Tasks, 3)
	assert.Equal(t, created.TaskID, list.Tasks[0].TaskID, "oldest first")
	assert.Empty(t, list.NextCursor)

	// Another session of the same user sees them; another user does not.
	assert.Len(t, resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, c.as("ada").rpc(5, "tasks/list", `{}`)).Tasks, 3)
	bob := c.as("bob")
	assert.Empty(t, resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, bob.rpc(5, "tasks/list", `{}`)).Tasks)
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		e := bob.rpc(6, m, `{"taskId":"`+created.TaskID+`"}`)
		require.NotNil(t, e.Error, m)
		assert.Equal(t, int64(mcp.CodeInvalidParams), e.Error.Code, m)
	}
}

func TestTasks25AnonymousSessionsAreApart(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a, b := c.as(""), c.as("")
	task := a.startTask25("slow", `{"ms":10000}`, `{}`)
	assert.Equal(t, "working", a.getTask25(task.TaskID).Status)
	e := b.rpc(2, "tasks/get", `{"taskId":"`+task.TaskID+`"}`)
	require.NotNil(t, e.Error)
	assert.Equal(t, int64(mcp.CodeInvalidParams), e.Error.Code)
	assert.Empty(t, resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, b.rpc(3, "tasks/list", `{}`)).Tasks)
	assert.Len(t, resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, a.rpc(3, "tasks/list", `{}`)).Tasks, 1)
}

func TestTasks25Pagination(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, &mcphttp.Options{PageSize: 2})
	a := c.as("ada")
	var ids []string
	for range 5 {
		ids = append(ids, a.startTask25("slow", `{}`, `{}`).TaskID)
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		page := resultOf[struct {
			Tasks      []task25 `json:"tasks"`
			NextCursor string   `json:"nextCursor"`
		}](t, a.rpc(1, "tasks/list", params))
		for _, tk := range page.Tasks {
			got = append(got, tk.TaskID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	assert.ElementsMatch(t, ids, got)
	e := a.rpc(2, "tasks/list", `{"cursor":"not-mine"}`)
	require.NotNil(t, e.Error)
	assert.Equal(t, int64(mcp.CodeInvalidParams), e.Error.Code)
}

func TestTasks25Errors(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a := c.as("ada")
	done := a.startTask25("slow", `{}`, `{}`)
	a.waitTask25(done.TaskID, "completed")
	older := &client25{httpClient: &httpClient{t: t, url: c.url, hc: c.hc}}
	older.initialize("2025-06-18")

	for _, tc := range []struct {
		name, method, params string
		client               *client25
		code                 int64
		text                 string
	}{
		{"unknown task", "tasks/get", `{"taskId":"nope"}`, a, mcp.CodeInvalidParams, `unknown task "nope"`},
		{"no taskId", "tasks/get", `{}`, a, mcp.CodeInvalidParams, `needs "taskId"`},
		{"taskId not a string", "tasks/result", `{"taskId":7}`, a, mcp.CodeInvalidParams, "Invalid params"},
		{"cancel an ended task", "tasks/cancel", `{"taskId":"` + done.TaskID + `"}`, a, mcp.CodeInvalidParams, "already ended (completed)"},
		{"task for a forbidden tool", "tools/call", `{"name":"plain","arguments":{},"task":{}}`, a, mcp.CodeMethodNotFound, "execution.taskSupport is forbidden"},
		{"required tool without a task", "tools/call", `{"name":"required","arguments":{}}`, a, mcp.CodeMethodNotFound, "execution.taskSupport is required"},
		{"task not an object", "tools/call", `{"name":"slow","arguments":{},"task":"soon"}`, a, mcp.CodeInvalidParams, `"task" must be an object`},
		{"ttl not a number", "tools/call", `{"name":"slow","arguments":{},"task":{"ttl":"1m"}}`, a, mcp.CodeInvalidParams, `"task" must be an object`},
		{"tasks before 2025-11-25", "tasks/list", `{}`, older, mcp.CodeMethodNotFound, "negotiated 2025-06-18"},
		{"unknown tool with a task", "tools/call", `{"name":"nope","arguments":{},"task":{}}`, a, mcp.CodeInvalidParams, "Unknown tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.client.rpc(9, tc.method, tc.params)
			require.NotNil(t, m.Error, "result: %s", m.Result)
			assert.Equal(t, tc.code, m.Error.Code)
			assert.Contains(t, m.Error.Message, tc.text)
		})
	}

	t.Run("older revisions ignore params.task", func(t *testing.T) {
		m := older.rpc(1, "tools/call", `{"name":"slow","arguments":{},"task":{"ttl":1000}}`)
		r := resultOf[mcp.ContentResult](t, m)
		require.Len(t, r.Content, 1, "an ordinary result: %s", m.Result)
		assert.Equal(t, "slept", r.Content[0].(mcp.TextContent).Text)
	})
	t.Run("task null is no task", func(t *testing.T) {
		m := a.rpc(1, "tools/call", `{"name":"plain","arguments":{},"task":null}`)
		assert.Nil(t, m.Error)
	})
}

func TestTasks25FailedAndCancelled(t *testing.T) {
	t.Parallel()
	c, tt := newTasks25(t, nil)
	a := c.as("ada")

	// An isError result: failed at 2025-11-25, and tasks/result returns it.
	tk := a.startTask25("required", `{}`, `{}`)
	w := a.waitTask25(tk.TaskID, "failed")
	assert.Contains(t, w.StatusMessage, "isError")
	r := resultOf[mcp.ContentResult](t, a.rpc(3, "tasks/result", `{"taskId":"`+tk.TaskID+`"}`))
	assert.True(t, r.IsError)

	// A JSON-RPC error: failed, its message the status message, and
	// tasks/result answers the error.
	tk = a.startTask25("rpcfail", `{}`, `{}`)
	w = a.waitTask25(tk.TaskID, "failed")
	assert.Equal(t, "broken", w.StatusMessage)
	e := a.rpc(3, "tasks/result", `{"taskId":"`+tk.TaskID+`"}`)
	require.NotNil(t, e.Error)
	assert.Equal(t, int64(mcp.CodeInternalError), e.Error.Code)
	assert.Equal(t, "broken", e.Error.Message)

	// Cancel: the answer is the cancelled task, the tool's context ends,
	// and tasks/result has no result to give.
	tk = a.startTask25("slow", `{"ms":10000}`, `{}`)
	require.Eventually(t, func() bool { return tt.started.Load() > 0 }, 5*time.Second, 10*time.Millisecond)
	cancelled := resultOf[task25](t, a.rpc(4, "tasks/cancel", `{"taskId":"`+tk.TaskID+`"}`))
	assert.Equal(t, "cancelled", cancelled.Status)
	select {
	case cause := <-tt.stopped:
		assert.ErrorContains(t, cause, "cancelled the task")
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context was not cancelled")
	}
	assert.Equal(t, "cancelled", a.getTask25(tk.TaskID).Status)
	e = a.rpc(5, "tasks/result", `{"taskId":"`+tk.TaskID+`"}`)
	require.NotNil(t, e.Error)
	assert.Contains(t, e.Error.Message, "was cancelled")
}

// TestTasks25InputRequired: a task's elicitation makes it input_required;
// tasks/result asks the client on its own stream, with the related task
// in _meta, and the answer lets the tool finish.
func TestTasks25InputRequired(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a := c.as("ada")
	tk := a.startTask25("confirm", `{}`, `{}`)
	a.waitTask25(tk.TaskID, "input_required")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := a.open(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+tk.TaskID+`"}}`, "X-User", "ada")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	var p struct {
		Message string `json:"message"`
		Meta    map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(req.Params, &p))
	assert.Equal(t, "sure?", p.Message)
	assert.Equal(t, tk.TaskID, p.Meta["io.modelcontextprotocol/related-task"].TaskID)

	status, _ := a.post(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"accept","content":{"ok":true}}}`, "X-User", "ada")
	require.Equal(t, http.StatusAccepted, status)
	last := lastData(t, s)
	r := resultOf[mcp.ContentResult](t, last)
	require.Len(t, r.Content, 1)
	assert.Equal(t, "accept", r.Content[0].(mcp.TextContent).Text)
	assert.Equal(t, "completed", a.getTask25(tk.TaskID).Status)
}

// TestTasks25InputError: a client that answers a task's question with an
// error fails the question, as it would on an ordinary call.
func TestTasks25InputError(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a := c.as("ada")
	tk := a.startTask25("confirm", `{}`, `{}`)
	a.waitTask25(tk.TaskID, "input_required")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := a.open(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+tk.TaskID+`"}}`, "X-User", "ada")
	req := nextData(t, s)
	status, _ := a.post(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32601,"message":"no elicitation here"}}`, "X-User", "ada")
	require.Equal(t, http.StatusAccepted, status)
	last := lastData(t, s)
	// The tool returned the error it got: a JSON-RPC error is the task's.
	require.NotNil(t, last.Error, "result: %s", last.Result)
	assert.Contains(t, last.Error.Message, "no elicitation here")
	assert.Equal(t, "failed", a.getTask25(tk.TaskID).Status)
}

// TestTasks25StatusNotifications: the creating session's GET stream hears
// of the task's status changes.
func TestTasks25StatusNotifications(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a := c.as("ada")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := a.open(ctx, http.MethodGet, "", "X-User", "ada")
	require.Equal(t, http.StatusOK, g.resp.StatusCode)
	tk := a.startTask25("slow", `{"ms":50}`, `{}`)
	for {
		m := nextData(t, g)
		if m.Method != "notifications/tasks/status" {
			continue
		}
		var p task25
		require.NoError(t, json.Unmarshal(m.Params, &p))
		assert.Equal(t, tk.TaskID, p.TaskID)
		assert.Equal(t, "completed", p.Status)
		assert.NotContains(t, string(m.Params), "related-task", "the status notification carries no related-task")
		return
	}
}

// TestTasks25OnRedis: with the session and task store on Redis, a task one
// replica runs is listed, read, waited for and cancelled on another.
func TestTasks25OnRedis(t *testing.T) {
	t.Parallel()
	rc := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rc.Close() })
	a, tt := newTasks25(t, &mcphttp.Options{Sessions: redisstore.New(rc, nil)})
	b, _ := newTasks25(t, &mcphttp.Options{Sessions: redisstore.New(rc, nil)})
	onA := a.as("ada")
	onB := &client25{httpClient: &httpClient{t: t, url: b.url, hc: b.hc, sid: onA.sid, version: onA.version}, user: "ada"}

	done := onA.startTask25("slow", `{"ms":100}`, `{}`)
	long := onA.startTask25("slow", `{"ms":20000}`, `{}`)
	list := resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, onB.rpc(1, "tasks/list", `{}`))
	require.Len(t, list.Tasks, 2)
	assert.Equal(t, done.TaskID, list.Tasks[0].TaskID)

	r := resultOf[mcp.ContentResult](t, onB.rpc(2, "tasks/result", `{"taskId":"`+done.TaskID+`"}`))
	assert.Equal(t, "slept", r.Content[0].(mcp.TextContent).Text)

	assert.Equal(t, "cancelled", resultOf[task25](t, onB.rpc(3, "tasks/cancel", `{"taskId":"`+long.TaskID+`"}`)).Status)
	select {
	case <-tt.stopped: // A's watcher saw the cancellation in the store
	case <-time.After(5 * time.Second):
		t.Fatal("the task on replica A was not stopped")
	}
}

// TestTasks25Deferred: a Deferred task's tool asks on the call's own
// stream before it starts the task (an ordinary server request at
// 2025-11-25); the call is then answered with the task, and tasks/result
// gives the tool's result.
func TestTasks25Deferred(t *testing.T) {
	t.Parallel()
	c, _ := newTasks25(t, nil)
	a := c.as("ada")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := a.open(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deferred","arguments":{},"task":{}}}`, "X-User", "ada")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	assert.NotContains(t, string(req.Params), "related-task", "asked before the task exists")
	status, _ := a.post(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"accept","content":{"name":"Ada"}}}`, "X-User", "ada")
	require.Equal(t, http.StatusAccepted, status)
	last := lastData(t, s)
	created := resultOf[struct {
		Task task25 `json:"task"`
	}](t, last).Task
	require.NotEmpty(t, created.TaskID, "%s", last.Result)
	r := resultOf[mcp.ContentResult](t, a.rpc(2, "tasks/result", `{"taskId":"`+created.TaskID+`"}`))
	assert.Equal(t, "Hello, Ada", r.Content[0].(mcp.TextContent).Text)
}

// TestTasks25ProgressAndLogs: a task's progress (with the call's
// progressToken) and log messages reach the creating session's GET
// stream, tied to the task by the related-task _meta.
func TestTasks25ProgressAndLogs(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "progress", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "steps", Task: &mcp.TaskOptions{}}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("halfway")
		_ = c.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2, Message: "one of two"})
		return "done", nil
	})
	h, _ := newHTTP(t, srv, nil)
	a := h.as("")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := a.open(ctx, http.MethodGet, "")
	require.Equal(t, http.StatusOK, g.resp.StatusCode)
	m := a.rpc(1, "tools/call", `{"name":"steps","arguments":{},"task":{},"_meta":{"progressToken":"p1"}}`)
	created := resultOf[struct {
		Task task25 `json:"task"`
	}](t, m).Task
	var sawProgress, sawLog bool
	for !sawProgress || !sawLog {
		n := nextData(t, g)
		var p struct {
			ProgressToken string `json:"progressToken"`
			Meta          map[string]struct {
				TaskID string `json:"taskId"`
			} `json:"_meta"`
		}
		require.NoError(t, json.Unmarshal(n.Params, &p))
		switch n.Method {
		case "notifications/progress":
			sawProgress = true
			assert.Equal(t, "p1", p.ProgressToken)
		case "notifications/message":
			sawLog = true
			assert.Contains(t, string(n.Params), "halfway")
		default:
			continue
		}
		assert.Equal(t, created.TaskID, p.Meta["io.modelcontextprotocol/related-task"].TaskID, n.Method)
	}
}

// TestTasks25OverStdio: a task at 2025-11-25 over stdio, its elicitation
// asked by tasks/result as a request with the related task, the answer
// written back on stdin; the status notification comes on stdout too.
func TestTasks25OverStdio(t *testing.T) {
	t.Parallel()
	tt := &taskTools{stopped: make(chan error, 8)}
	h := mcphttp.New(newTaskServer(t, tt), nil)
	t.Cleanup(func() { _ = h.Close() })
	p := serveStdio(t, h)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	init := p.response("0")
	assert.Contains(t, string(init.Result), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},"task":{"ttl":5000}}}`)
	created := resultOf[struct {
		Task task25 `json:"task"`
	}](t, p.response("1")).Task
	assert.Equal(t, int64(5000), *created.TTL)

	p.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + created.TaskID + `"}}`)
	q := p.await("the elicitation", func(m msg) bool { return m.Method == "elicitation/create" })
	assert.Contains(t, string(q.Params), `"io.modelcontextprotocol/related-task":{"taskId":"`+created.TaskID+`"}`)
	p.send(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"decline"}}`)
	res := resultOf[mcp.ContentResult](t, p.response("2"))
	assert.Equal(t, "decline", res.Content[0].(mcp.TextContent).Text)

	n := p.await("the status notification", func(m msg) bool {
		return m.Method == "notifications/tasks/status" && string(m.Params) != "" && resultOfParams(m).Status == "completed"
	})
	assert.Equal(t, created.TaskID, resultOfParams(n).TaskID)

	p.send(`{"jsonrpc":"2.0","id":3,"method":"tasks/list"}`)
	list := resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, p.response("3"))
	require.Len(t, list.Tasks, 1)
	assert.Equal(t, "completed", list.Tasks[0].Status)
}

func resultOfParams(m msg) task25 {
	var p task25
	_ = json.Unmarshal(m.Params, &p)
	return p
}

// TestTasks25Embedded: an embedded session at 2025-11-25 runs a task with
// Request; tasks/result asks the session's Elicit handler.
func TestTasks25Embedded(t *testing.T) {
	t.Parallel()
	tt := &taskTools{stopped: make(chan error, 8)}
	ctx := t.Context()
	asked := make(chan *elicit.Params, 1)
	e := mcptest.NewSession(t, newTaskServer(t, tt), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20251125, Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
		asked <- p
		return &elicit.Result{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}}}).Client()

	tools, err := e.ListTools(ctx)
	require.NoError(t, err)
	for _, tl := range tools {
		if tl.Name == "confirm" {
			require.NotNil(t, tl.Task, "a task tool is listed with its task support")
		}
	}

	var created struct {
		Task task25 `json:"task"`
	}
	require.NoError(t, e.Call(ctx, "tools/call", map[string]any{"name": "confirm", "arguments": map[string]any{}, "task": map[string]any{}}, &created))
	require.NotEmpty(t, created.Task.TaskID)
	var res mcp.ContentResult
	require.NoError(t, e.Call(ctx, "tasks/result", map[string]string{"taskId": created.Task.TaskID}, &res))
	assert.Equal(t, "accept", res.Text())
	p := <-asked
	assert.Equal(t, "sure?", p.Message)

	var got task25
	require.NoError(t, e.Call(ctx, "tasks/get", map[string]string{"taskId": created.Task.TaskID}, &got))
	assert.Equal(t, "completed", got.Status)

	// A required tool called the ordinary way is refused.
	_, err = e.CallTool(ctx, "required", map[string]any{}, nil)
	var je *mcp.Error
	require.ErrorAs(t, err, &je)
	assert.EqualValues(t, mcp.CodeMethodNotFound, je.Code)
}
