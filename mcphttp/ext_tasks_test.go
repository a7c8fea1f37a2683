package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	mcpengine "github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tasksExt = `"extensions":{"io.modelcontextprotocol/tasks":{}}`

// taskBody is a 2026-07-28 request whose client capabilities are caps
// (an object's members).
func taskBody(id int, method, params, caps string) string {
	if params != "" {
		params += ","
	}
	b, _ := json.Marshal(id)
	return `{"jsonrpc":"2.0","id":` + string(b) + `,"method":"` + method + `","params":{` + params +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{` + caps + `}}}}`
}

// taskTools is a server with tools of every task kind. started counts the
// runs of "slow" that began; stopped receives the cause of each that ended
// early.
type taskTools struct {
	started atomic.Int32
	stopped chan error
}

func newTaskServer(t *testing.T, tt *taskTools) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "tasks", Version: "1.0.0", Authenticate: func(r *http.Request) (any, error) {
		if u := r.Header.Get("X-User"); u != "" {
			return testUser(u), nil // a subject: tasks are the user's
		}
		return nil, nil
	}})
	opt := &mcp.TaskOptions{PollInterval: 50 * time.Millisecond}
	mcp.AddTool(srv, mcp.Tool{Name: "plain"}, func(_ context.Context, _ *mcp.Context, _ struct{}) (string, error) { return "plain", nil })
	slow := func(ctx context.Context, _ *mcp.Context, in struct {
		MS int `json:"ms,omitempty"`
	}) (string, error) {
		tt.started.Add(1)
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			tt.stopped <- context.Cause(ctx)
			return "", ctx.Err()
		}
	}
	mcp.AddTool(srv, mcp.Tool{Name: "slow", Task: opt}, slow)
	mcp.AddTool(srv, mcp.Tool{Name: "shortlived", Task: &mcp.TaskOptions{TTL: 300 * time.Millisecond}}, slow)
	mcp.AddTool(srv, mcp.Tool{Name: "required", Task: &mcp.TaskOptions{Required: true, TTL: time.Minute}},
		func(_ context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			return "", errors.New("tool error")
		})
	mcp.AddTool(srv, mcp.Tool{Name: "rpcfail", Task: opt}, func(_ context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		return "", &mcp.Error{Code: mcp.CodeInternalError, Message: "broken"}
	})
	schema := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	mcp.AddTool(srv, mcp.Tool{Name: "ask2", Task: opt}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		q := mcp.InputRequest{Method: "elicitation/create", Params: &elicit.Params{Message: "ok?", RequestedSchema: schema}}
		res, err := c.Ask(ctx, map[string]mcp.InputRequest{"a": q, "b": q})
		if err != nil {
			return "", err
		}
		// The same key again: it must go out under a new one.
		again, err := c.Ask(ctx, map[string]mcp.InputRequest{"a": q})
		if err != nil {
			return "", err
		}
		return string(res["a"]) + " " + string(res["b"]) + " " + string(again["a"]), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "confirm", Task: opt}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.Create(ctx, c, &elicit.Params{Message: "sure?", RequestedSchema: schema})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "deferred", Task: &mcp.TaskOptions{Required: true, Deferred: true, PollInterval: 50 * time.Millisecond}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			res, err := c.Ask(ctx, map[string]mcp.InputRequest{"user_name": {Method: "elicitation/create",
				Params: &elicit.Params{Message: "name?", RequestedSchema: schema}}})
			if err != nil {
				return "", err
			}
			var e elicit.Result
			_ = json.Unmarshal(res["user_name"], &e)
			if err := c.StartTask(ctx); err != nil {
				return "", err
			}
			name, _ := e.Content["name"].(string)
			return "Hello, " + name, nil
		})
	return srv
}

// tasksPost posts a 2026-07-28 body with the right routing headers (Mcp-Name
// from name) plus header.
func tasksPost(t *testing.T, url, body, name string, header ...string) (*http.Response, msg) {
	t.Helper()
	var m struct {
		Method string `json:"method"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	hd := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", m.Method}
	if name != "" {
		hd = append(hd, "Mcp-Name", name)
	}
	hd = append(hd, header...)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hd); i += 2 {
		req.Header.Set(hd[i], hd[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out msg
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp, out
}

type wireTask struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         *mcp.ContentResult         `json:"result"`
	Error          *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	RequestState *string `json:"requestState"`
}

func decodeTask(t *testing.T, m msg) wireTask {
	t.Helper()
	require.Nil(t, m.Error, "error response: %+v", m.Error)
	var w wireTask
	require.NoError(t, json.Unmarshal(m.Result, &w))
	return w
}

// createTask calls tool with the opt-in and returns the task.
func createTask(t *testing.T, url, tool, args string) wireTask {
	t.Helper()
	if args == "" {
		args = "{}"
	}
	_, m := tasksPost(t, url, taskBody(1, "tools/call", `"name":"`+tool+`","arguments":`+args, tasksExt+`,"elicitation":{}`), tool)
	w := decodeTask(t, m)
	require.Equal(t, "task", w.ResultType, "tools/call result: %s", m.Result)
	require.NotEmpty(t, w.TaskID)
	return w
}

func getTask(t *testing.T, url, id string) wireTask {
	t.Helper()
	_, m := tasksPost(t, url, taskBody(2, "tasks/get", `"taskId":"`+id+`"`, tasksExt), id)
	w := decodeTask(t, m)
	assert.Equal(t, "complete", w.ResultType)
	assert.Nil(t, w.RequestState)
	return w
}

// waitStatus polls tasks/get until the task has status want.
func waitStatus(t *testing.T, url, id, want string) wireTask {
	t.Helper()
	var w wireTask
	require.Eventually(t, func() bool { w = getTask(t, url, id); return w.Status == want }, 5*time.Second, 20*time.Millisecond,
		"task %s never reached %s", id, want)
	return w
}

func ack(t *testing.T, m msg) {
	t.Helper()
	require.Nil(t, m.Error, "error response: %+v", m.Error)
	var res map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m.Result, &res))
	delete(res, "_meta")
	assert.Equal(t, map[string]json.RawMessage{"resultType": json.RawMessage(`"complete"`)}, res)
}

func newTaskHTTP(t *testing.T, opts *mcphttp.Options) (*httptest.Server, *mcphttp.Handler, *taskTools) {
	t.Helper()
	tt := &taskTools{stopped: make(chan error, 8)}
	h := mcphttp.New(newTaskServer(t, tt), opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts, h, tt
}

// TestTasksErrors: every refusal of the tasks extension, with its HTTP
// status and JSON-RPC code.
func TestTasksErrors(t *testing.T) {
	t.Parallel()
	ts, _, _ := newTaskHTTP(t, nil)
	tests := []struct {
		name, body, mcpName string
		status              int
		code                int64
		check               func(t *testing.T, m msg)
	}{
		{name: "required task without the opt-in", body: taskBody(1, "tools/call", `"name":"required"`, `"sampling":{}`), mcpName: "required",
			status: 400, code: mcp.CodeMissingClientCapability, check: func(t *testing.T, m msg) {
				assert.JSONEq(t, `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`, string(m.Error.Data))
			}},
		{name: "tasks/get without the opt-in", body: taskBody(1, "tasks/get", `"taskId":"gate-test"`, ""), mcpName: "gate-test", status: 400, code: mcp.CodeMissingClientCapability},
		{name: "tasks/update without the opt-in", body: taskBody(1, "tasks/update", `"taskId":"gate-test","inputResponses":{}`, ""), mcpName: "gate-test", status: 400, code: mcp.CodeMissingClientCapability},
		{name: "tasks/cancel without the opt-in", body: taskBody(1, "tasks/cancel", `"taskId":"gate-test"`, ""), mcpName: "gate-test", status: 400, code: mcp.CodeMissingClientCapability},
		{name: "tasks/get of an unknown task", body: taskBody(1, "tasks/get", `"taskId":"nonexistent-12345"`, tasksExt), mcpName: "nonexistent-12345", status: 200, code: mcp.CodeInvalidParams},
		{name: "tasks/cancel of an unknown task", body: taskBody(1, "tasks/cancel", `"taskId":"nonexistent-12345"`, tasksExt), mcpName: "nonexistent-12345", status: 200, code: mcp.CodeInvalidParams},
		{name: "tasks/get without taskId", body: taskBody(1, "tasks/get", "", tasksExt), mcpName: "", status: 400, code: jsonrpc.CodeHeaderMismatch},
		{name: "tasks/get with a mismatched Mcp-Name", body: taskBody(1, "tasks/get", `"taskId":"abc"`, tasksExt), mcpName: "xyz", status: 400, code: jsonrpc.CodeHeaderMismatch},
		{name: "tasks/result is removed", body: taskBody(1, "tasks/result", `"taskId":"abc"`, tasksExt), status: 404, code: mcp.CodeMethodNotFound},
		{name: "tasks/list is removed", body: taskBody(1, "tasks/list", "", tasksExt), status: 404, code: mcp.CodeMethodNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, m := tasksPost(t, ts.URL, tc.body, tc.mcpName)
			assert.Equal(t, tc.status, resp.StatusCode)
			require.NotNil(t, m.Error, "result: %s", m.Result)
			assert.Equal(t, tc.code, m.Error.Code, m.Error.Message)
			assert.JSONEq(t, `1`, string(m.ID))
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
	t.Run("tools/call with Mcp-Method tasks/get", func(t *testing.T) {
		resp, m := tasksPost(t, ts.URL, taskBody(1, "tools/call", `"name":"plain"`, tasksExt), "plain", "Mcp-Method", "tasks/get")
		assert.Equal(t, 400, resp.StatusCode)
		require.NotNil(t, m.Error)
		assert.Equal(t, int64(jsonrpc.CodeHeaderMismatch), m.Error.Code)
	})
}

// TestTasksSynchronous: calls that must not become tasks.
func TestTasksSynchronous(t *testing.T) {
	t.Parallel()
	ts, _, _ := newTaskHTTP(t, nil)
	tests := []struct{ name, body, tool string }{
		{"optional task without the opt-in", taskBody(1, "tools/call", `"name":"slow","arguments":{"ms":0}`, `"sampling":{}`), "slow"},
		{"tool without task support, with the opt-in", taskBody(1, "tools/call", `"name":"plain"`, tasksExt), "plain"},
		{"a client task param is ignored", taskBody(1, "tools/call", `"name":"plain","task":{"ttl":60000,"pollInterval":100}`, tasksExt), "plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, m := tasksPost(t, ts.URL, tc.body, tc.tool)
			assert.Equal(t, 200, resp.StatusCode)
			require.Nil(t, m.Error)
			var r map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(m.Result, &r))
			assert.JSONEq(t, `"complete"`, string(r["resultType"]))
			assert.NotContains(t, r, "taskId")
			assert.Contains(t, r, "content")
		})
	}
	t.Run("discover advertises the extension", func(t *testing.T) {
		_, m := tasksPost(t, ts.URL, taskBody(1, "server/discover", "", ""), "")
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &r))
		assert.NotContains(t, r.Capabilities, "tasks")
		assert.JSONEq(t, `{"io.modelcontextprotocol/tasks":{}}`, string(r.Capabilities["extensions"]))
	})
}

// TestTaskLifecycle: a task is created durable with the flat wire fields,
// reads working, and settles completed (also for a tool error) or failed
// (for a JSON-RPC error).
func TestTaskLifecycle(t *testing.T) {
	t.Parallel()
	ts, _, _ := newTaskHTTP(t, nil)
	w := createTask(t, ts.URL, "slow", `{"ms":300}`)
	assert.Equal(t, "working", w.Status)
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`, w.CreatedAt)
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`, w.LastUpdatedAt)
	require.NotNil(t, w.TTLMs)
	assert.Equal(t, int64(time.Hour/time.Millisecond), *w.TTLMs)
	assert.Equal(t, int64(50), w.PollIntervalMs)
	assert.Nil(t, w.RequestState)
	assert.Equal(t, "working", getTask(t, ts.URL, w.TaskID).Status, "durable before the reply")
	done := waitStatus(t, ts.URL, w.TaskID, "completed")
	require.NotNil(t, done.Result)
	assert.Equal(t, "slept", done.Result.Content[0].(mcp.TextContent).Text)
	assert.Nil(t, done.Error)

	tests := []struct {
		tool, status string
		check        func(t *testing.T, w wireTask)
	}{
		{"required", "completed", func(t *testing.T, w wireTask) {
			require.NotNil(t, w.Result)
			assert.True(t, w.Result.IsError)
			assert.Equal(t, int64(60000), *w.TTLMs)
		}},
		{"rpcfail", "failed", func(t *testing.T, w wireTask) {
			assert.Nil(t, w.Result)
			require.NotNil(t, w.Error)
			assert.Equal(t, int64(mcp.CodeInternalError), w.Error.Code)
			assert.Equal(t, "broken", w.Error.Message)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			w := createTask(t, ts.URL, tc.tool, "")
			tc.check(t, waitStatus(t, ts.URL, w.TaskID, tc.status))
		})
	}
}

// TestTaskInput: a task's questions make it input_required; tasks/update
// answers them (unknown keys ignored, a partial answer keeps the status),
// keys stay unique over the task's life, and the task completes with the
// answers.
func TestTaskInput(t *testing.T) {
	t.Parallel()
	ts, _, _ := newTaskHTTP(t, nil)
	w := createTask(t, ts.URL, "ask2", "")
	id := w.TaskID
	w = waitStatus(t, ts.URL, id, "input_required")
	require.Len(t, w.InputRequests, 2)
	assert.JSONEq(t, `{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`,
		string(w.InputRequests["a"]))
	update := func(responses string) msg {
		_, m := tasksPost(t, ts.URL, taskBody(3, "tasks/update", `"taskId":"`+id+`","inputResponses":`+responses, tasksExt), id)
		return m
	}
	ack(t, update(`{"unknown-key":{"ignored":true}}`))
	assert.Len(t, getTask(t, ts.URL, id).InputRequests, 2)

	m := update(`null`)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(mcp.CodeInvalidParams), m.Error.Code)
	m = update(`{"a":12345}`)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(mcp.CodeInvalidParams), m.Error.Code)

	ack(t, update(`{"a":{"action":"accept","content":{"ok":true}}}`))
	w = getTask(t, ts.URL, id)
	assert.Equal(t, "input_required", w.Status)
	assert.Len(t, w.InputRequests, 1)
	assert.Contains(t, w.InputRequests, "b")

	ack(t, update(`{"b":{"action":"decline"}}`))
	w = waitStatus(t, ts.URL, id, "input_required")
	require.Len(t, w.InputRequests, 1)
	assert.Contains(t, w.InputRequests, "a-2", "a key asked again goes out under a new one")
	ack(t, update(`{"a-2":{"action":"cancel"}}`))
	w = waitStatus(t, ts.URL, id, "completed")
	assert.Equal(t, `{"action":"accept","content":{"ok":true}} {"action":"decline"} {"action":"cancel"}`, w.Result.Content[0].(mcp.TextContent).Text)
	ack(t, update(`{"a":{"action":"accept"}}`)) // an ended task: acknowledged, nothing changes
}

// TestTaskCancel: tasks/cancel acknowledges, cancels the tool's context,
// settles the task cancelled, and is idempotent.
func TestTaskCancel(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	ts, h, tt := newTaskHTTP(t, &mcphttp.Options{Sessions: store})
	w := createTask(t, ts.URL, "slow", `{"ms":60000}`)
	cancel := func() msg {
		_, m := tasksPost(t, ts.URL, taskBody(4, "tasks/cancel", `"taskId":"`+w.TaskID+`"`, tasksExt), w.TaskID)
		return m
	}
	ack(t, cancel())
	select {
	case cause := <-tt.stopped:
		assert.ErrorContains(t, cause, "cancelled the task")
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context was not cancelled")
	}
	got := getTask(t, ts.URL, w.TaskID)
	assert.Equal(t, "cancelled", got.Status)
	assert.Nil(t, got.Result)
	ack(t, cancel())
	// Close waits for the task's goroutine, which settles the task once
	// the tool returned: after it the tool's end has been written, or not.
	require.NoError(t, h.Close())
	end, err := store.GetTask(context.Background(), w.TaskID)
	require.NoError(t, err)
	assert.Equal(t, session.TaskCancelled, end.Status, "the tool's end does not overwrite the cancellation")
}

// TestTaskShutdown: closing the handler cancels a running task, waits for
// it, and leaves it failed; no goroutine outlives Close (goleak).
func TestTaskShutdown(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	ts, h, tt := newTaskHTTP(t, &mcphttp.Options{Sessions: store})
	w := createTask(t, ts.URL, "slow", `{"ms":60000}`)
	require.Eventually(t, func() bool { return tt.started.Load() == 1 }, 5*time.Second, 10*time.Millisecond)
	closed := make(chan struct{})
	go func() { _ = h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: the task was not cancelled")
	}
	assert.ErrorContains(t, <-tt.stopped, "shut down")
	got, err := store.GetTask(context.Background(), w.TaskID)
	require.NoError(t, err)
	assert.Equal(t, session.TaskFailed, got.Status)
	assert.Contains(t, string(got.Error), "shut down")
	_, m := tasksPost(t, ts.URL, taskBody(1, "tools/call", `"name":"slow","arguments":{"ms":1}`, tasksExt), "slow")
	require.NotNil(t, m.Error, "no task starts after Close")
}

// TestTaskReplicas: two handlers on one Redis: a task made on A is read,
// answered and cancelled through B, and A's tool sees it.
func TestTaskReplicas(t *testing.T) {
	t.Parallel()
	rc := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rc.Close() })
	a, _, tt := newTaskHTTP(t, &mcphttp.Options{Sessions: redisstore.New(rc, nil)})
	b, _, _ := newTaskHTTP(t, &mcphttp.Options{Sessions: redisstore.New(rc, nil)})

	w := createTask(t, a.URL, "ask2", "")
	w = waitStatus(t, b.URL, w.TaskID, "input_required")
	for _, key := range []string{"a", "b", "a-2"} {
		if key == "a-2" {
			waitStatus(t, b.URL, w.TaskID, "input_required")
		}
		_, m := tasksPost(t, b.URL, taskBody(3, "tasks/update", `"taskId":"`+w.TaskID+`","inputResponses":{"`+key+`":{"action":"accept","content":{"ok":true}}}`, tasksExt), w.TaskID)
		ack(t, m)
	}
	done := waitStatus(t, b.URL, w.TaskID, "completed")
	assert.Contains(t, done.Result.Content[0].(mcp.TextContent).Text, `{"action":"accept","content":{"ok":true}}`)

	w = createTask(t, a.URL, "slow", `{"ms":60000}`)
	_, m := tasksPost(t, b.URL, taskBody(4, "tasks/cancel", `"taskId":"`+w.TaskID+`"`, tasksExt), w.TaskID)
	ack(t, m)
	select {
	case cause := <-tt.stopped:
		assert.ErrorContains(t, cause, "cancelled the task", "A's watcher saw B's cancel in the store")
	case <-time.After(5 * time.Second):
		t.Fatal("the cancel on B did not reach the tool on A")
	}
	assert.Equal(t, "cancelled", getTask(t, a.URL, w.TaskID).Status)
}

// fakeMRTR stands for the 2026-07-28 request peer: on round 1 (no answers
// yet) it ends the round with errRound; on round 2 it answers from the
// request's inputResponses.
type fakeMRTR struct {
	mcpengine.Peer
	answers map[string]json.RawMessage
	asked   atomic.Int32
}

var errRound = &mcp.Error{Code: -32099, Message: "fake: input required"}

func (f *fakeMRTR) Inputs(_ context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	f.asked.Add(1)
	if f.answers == nil {
		return nil, errRound
	}
	out := map[string]json.RawMessage{}
	for k := range reqs {
		out[k] = f.answers[k]
	}
	return out, nil
}

// TestTaskDeferred: a Deferred task's tool asks on the request's own peer
// (an InputPeer: the MRTR peer once merged) before it calls StartTask;
// ending the round there answers the request without a task, answering
// lets the tool start the task, whose result has the answer.
func TestTaskDeferred(t *testing.T) {
	t.Parallel()
	ts, h, _ := newTaskHTTP(t, nil)
	var round atomic.Pointer[fakeMRTR]
	mcphttp.SetTaskPrePeer(h, func(p mcpengine.Peer) mcpengine.Peer { f := round.Load(); f.Peer = p; return f })

	r1 := &fakeMRTR{}
	round.Store(r1)
	_, m := tasksPost(t, ts.URL, taskBody(1, "tools/call", `"name":"deferred"`, tasksExt+`,"elicitation":{}`), "deferred")
	assert.Equal(t, int32(1), r1.asked.Load())
	var r map[string]json.RawMessage
	if m.Error == nil {
		require.NoError(t, json.Unmarshal(m.Result, &r))
		assert.NotContains(t, r, "taskId", "round 1 makes no task")
	} else {
		assert.Equal(t, errRound.Code, m.Error.Code)
	}

	r2 := &fakeMRTR{answers: map[string]json.RawMessage{"user_name": json.RawMessage(`{"action":"accept","content":{"name":"Alice"}}`)}}
	round.Store(r2)
	w := createTask(t, ts.URL, "deferred", "")
	assert.Equal(t, int32(1), r2.asked.Load())
	done := waitStatus(t, ts.URL, w.TaskID, "completed")
	assert.Equal(t, "Hello, Alice", done.Result.Content[0].(mcp.TextContent).Text)

	t.Run("required without the opt-in", func(t *testing.T) {
		resp, m := tasksPost(t, ts.URL, taskBody(1, "tools/call", `"name":"deferred"`, `"elicitation":{}`), "deferred")
		assert.Equal(t, 400, resp.StatusCode)
		require.NotNil(t, m.Error)
		assert.Equal(t, int64(mcp.CodeMissingClientCapability), m.Error.Code)
	})
}

// TestTaskElicitAndOwner: elicit.Create in a task is one input request
// under a key of the task's own; a task is visible only to the caller that
// made it.
func TestTaskElicitAndOwner(t *testing.T) {
	t.Parallel()
	ts, _, _ := newTaskHTTP(t, nil)
	_, m := tasksPost(t, ts.URL, taskBody(1, "tools/call", `"name":"confirm"`, tasksExt+`,"elicitation":{}`), "confirm", "X-User", "alice")
	w := decodeTask(t, m)
	require.Equal(t, "task", w.ResultType)
	get := func(user string) msg {
		_, m := tasksPost(t, ts.URL, taskBody(2, "tasks/get", `"taskId":"`+w.TaskID+`"`, tasksExt), w.TaskID, "X-User", user)
		return m
	}
	require.Eventually(t, func() bool { return decodeTask(t, get("alice")).Status == "input_required" }, 5*time.Second, 20*time.Millisecond)
	assert.Contains(t, decodeTask(t, get("alice")).InputRequests, "elicitation-1")
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		_, m := tasksPost(t, ts.URL, taskBody(3, method, `"taskId":"`+w.TaskID+`"`, tasksExt), w.TaskID, "X-User", "mallory")
		require.NotNil(t, m.Error, method)
		assert.Equal(t, int64(mcp.CodeInvalidParams), m.Error.Code, "another caller's task reads as unknown")
	}
	_, m = tasksPost(t, ts.URL, taskBody(4, "tasks/update", `"taskId":"`+w.TaskID+`","inputResponses":{"elicitation-1":{"action":"accept","content":{"ok":true}}}`, tasksExt), w.TaskID, "X-User", "alice")
	ack(t, m)
	require.Eventually(t, func() bool { return decodeTask(t, get("alice")).Status == "completed" }, 5*time.Second, 20*time.Millisecond)
	assert.Equal(t, "accept", decodeTask(t, get("alice")).Result.Content[0].(mcp.TextContent).Text)
}

// TestTaskInstanceShutdown: an Instance made by Start with a running task
// stops at once on Shutdown (the task is not an HTTP request in flight:
// it is cancelled, not waited for), and Wait returns nil.
func TestTaskInstanceShutdown(t *testing.T) {
	t.Parallel()
	tt := &taskTools{stopped: make(chan error, 8)}
	inst, err := mcphttp.Start(context.Background(), newTaskServer(t, tt), &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1})
	require.NoError(t, err)
	url := "http://" + inst.Addr() + "/mcp"
	w := createTask(t, url, "slow", `{"ms":60000}`)
	require.Equal(t, "working", w.Status)
	require.Eventually(t, func() bool { return tt.started.Load() == 1 }, 5*time.Second, 10*time.Millisecond)
	begin := time.Now()
	require.NoError(t, inst.Shutdown(context.Background()))
	require.NoError(t, inst.Wait())
	assert.Less(t, time.Since(begin), 5*time.Second)
	assert.ErrorContains(t, <-tt.stopped, "shut down")
}

// TestTaskOutlivesTTL: a task still running when its TTL ends is gone from
// the store, and its tool is cancelled.
func TestTaskOutlivesTTL(t *testing.T) {
	t.Parallel()
	ts, _, tt := newTaskHTTP(t, nil)
	w := createTask(t, ts.URL, "shortlived", `{"ms":60000}`)
	assert.Equal(t, int64(300), *w.TTLMs)
	select {
	case <-tt.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("a task past its TTL was not cancelled")
	}
	_, m := tasksPost(t, ts.URL, taskBody(2, "tasks/get", `"taskId":"`+w.TaskID+`"`, tasksExt), w.TaskID)
	require.NotNil(t, m.Error)
	assert.Equal(t, int64(mcp.CodeInvalidParams), m.Error.Code)
}

// TestTaskLeftBehind: a task that is not terminal and whose heartbeat is
// old (its replica was killed) is settled failed by the next tasks/get on
// any replica; a fresh one is left alone.
func TestTaskLeftBehind(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	ts, _, _ := newTaskHTTP(t, &mcphttp.Options{Sessions: store})
	now := time.Now().UTC()
	for _, tc := range []struct {
		name, status string
		beat         time.Time
	}{
		{"stale heartbeat", "failed", now.Add(-time.Minute)},
		{"fresh heartbeat", "working", now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := session.NewID()
			require.NoError(t, store.CreateTask(t.Context(), &session.Task{ID: id, Status: session.TaskWorking,
				Created: now.Add(-2 * time.Minute), Updated: tc.beat, Heartbeat: tc.beat, TTL: time.Hour}))
			w := getTask(t, ts.URL, id)
			assert.Equal(t, tc.status, w.Status)
			if tc.status == "failed" {
				require.NotNil(t, w.Error)
				assert.Contains(t, w.Error.Message, "stopped before it ended")
			}
		})
	}
}

// TestTaskHeartbeat: the replica running a task refreshes its heartbeat,
// so a long task is never taken for one left behind.
func TestTaskHeartbeat(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	ts, _, _ := newTaskHTTP(t, &mcphttp.Options{Sessions: store})
	w := createTask(t, ts.URL, "slow", `{"ms":60000}`)
	first, err := store.GetTask(t.Context(), w.TaskID)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		cur, err := store.GetTask(t.Context(), w.TaskID)
		return err == nil && cur.Heartbeat.After(first.Heartbeat)
	}, 5*time.Second, 50*time.Millisecond, "the heartbeat was not refreshed")
	assert.Equal(t, "working", getTask(t, ts.URL, w.TaskID).Status)
}

// TestURLElicitationInTask: a task whose tool returns
// elicit.URLRequired puts the elicitation on the task
// (input_required); once tasks/update accepts it the tool runs again,
// which asks again while the page is not done and completes once it is.
func TestURLElicitationInTask(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{})
	var visited atomic.Bool
	var runs atomic.Int32
	mcp.AddTool(srv, mcp.Tool{Name: "link", Task: &mcp.TaskOptions{}}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		runs.Add(1)
		if visited.Load() {
			return "linked", nil
		}
		return "", elicit.URLRequired(elicit.URLRequest{ID: "t1", URL: "https://example.com/link?id=t1", Message: "Link"})
	})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	_, m := tasksPost(t, ts.URL, taskBody(1, "tools/call", `"name":"link","arguments":{}`, tasksExt+`,"elicitation":{"url":{}}`), "link")
	w := decodeTask(t, m)
	require.Equal(t, "task", w.ResultType, "%s", m.Result)
	id := w.TaskID
	update := func(key, action string) {
		_, m := tasksPost(t, ts.URL, taskBody(3, "tasks/update", `"taskId":"`+id+`","inputResponses":{"`+key+`":{"action":"`+action+`"}}`, tasksExt), id)
		ack(t, m)
	}

	w = waitStatus(t, ts.URL, id, "input_required")
	require.Contains(t, w.InputRequests, "elicitation-url-t1")
	assert.JSONEq(t, `{"method":"elicitation/create","params":{"mode":"url","message":"Link","url":"https://example.com/link?id=t1"}}`, string(w.InputRequests["elicitation-url-t1"]))
	update("elicitation-url-t1", "accept") // accepted, but the page is not done: asked again
	require.Eventually(t, func() bool { return getTask(t, ts.URL, id).InputRequests["elicitation-url-t1-2"] != nil }, 5*time.Second, 20*time.Millisecond)
	assert.Equal(t, int32(2), runs.Load(), "the tool ran again after the accept")
	visited.Store(true)
	update("elicitation-url-t1-2", "accept")
	w = waitStatus(t, ts.URL, id, "completed")
	assert.Equal(t, "linked", w.Result.Content[0].(mcp.TextContent).Text)
}
