package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

// tasksServer serves the tools node/tasks-client.mjs drives.
func tasksServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "tasks-e2e", Version: "1.0.0"})
	opt := &mcp.TaskOptions{PollInterval: 50 * time.Millisecond}
	mcp.AddTool(srv, mcp.Tool{Name: "report", Description: "Writes a report", Task: opt},
		func(ctx context.Context, _ *mcp.Context, in struct {
			Topic string `json:"topic"`
		}) (string, error) {
			select {
			case <-time.After(200 * time.Millisecond):
				return "Report on " + in.Topic, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "confirm", Task: opt}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Go on?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})

		if err != nil {
			return "", err
		}
		ok, _ := res.Content["ok"].(bool)
		if res.Action != "accept" || !ok {
			return "declined", nil
		}
		return "confirmed", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "failing", Task: opt}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", errors.New("no luck")
	})
	mcp.AddTool(srv, mcp.Tool{Name: "slow", Task: opt}, func(ctx context.Context, _ *mcp.Context, in struct {
		MS int `json:"ms"`
	}) (string, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	mcp.AddTool(srv, mcp.Tool{Name: "required", Task: &mcp.TaskOptions{Required: true, PollInterval: 50 * time.Millisecond}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "done as a task", nil })
	mcp.AddTool(srv, mcp.Tool{Name: "plain"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "plain", nil })
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return ts.URL
}

type tsTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
	tsErr
}

type tsStreamMsg struct {
	Type   string       `json:"type"`
	Task   *tsTask      `json:"task"`
	Result tsToolResult `json:"result"`
	Error  tsErr        `json:"error"`
}

type tsMeta struct {
	Related struct {
		TaskID string `json:"taskId"`
	} `json:"io.modelcontextprotocol/related-task"`
}

type tsTasksOutput struct {
	Connect         *tsErr                                            `json:"connect"`
	Fatal           *tsErr                                            `json:"fatal"`
	Watchdog        string                                            `json:"watchdog"`
	ProtocolVersion string                                            `json:"protocolVersion"`
	TasksCapability json.RawMessage                                   `json:"tasksCapability"`
	Execution       map[string]*string                                `json:"execution"`
	Report          []tsStreamMsg                                     `json:"report"`
	Confirm         []tsStreamMsg                                     `json:"confirm"`
	Failing         []tsStreamMsg                                     `json:"failing"`
	Required        []tsStreamMsg                                     `json:"required"`
	Plain           []tsStreamMsg                                     `json:"plain"`
	Elicitations    []map[string]any                                  `json:"elicitations"`
	Notifications   []tsTask                                          `json:"statusNotifications"`
	Slow            struct{ Created, Cancelled, After, Again tsTask } `json:"slow"`
	List            struct {
		Tasks []tsTask `json:"tasks"`
		tsErr
	} `json:"list"`
	ReportResult struct {
		tsToolResult
		Meta tsMeta `json:"_meta"`
	} `json:"reportResult"`
	ReportTask    tsTask       `json:"reportTask"`
	Unknown       tsErr        `json:"unknown"`
	RequiredPlain tsToolResult `json:"requiredPlain"`
}

// last is the final message of a callToolStream.
func last(t *testing.T, name string, msgs []tsStreamMsg) tsStreamMsg {
	t.Helper()
	require.NotEmpty(t, msgs, "%s: no messages", name)
	return msgs[len(msgs)-1]
}

// TestTypeScriptTasks drives the tasks of revision 2025-11-25 with the
// official TypeScript SDK (1.32) client's client.experimental.tasks:
// callToolStream (task creation, polling, tasks/result, an elicitation
// asked through tasks/result), getTask, getTaskResult, listTasks and
// cancelTask, against a server whose tools declare mcp.Tool.Task.
func TestTypeScriptTasks(t *testing.T) {
	t.Parallel()
	url := tasksServer(t)
	run := runNode(t, 70*time.Second, "tasks-client.mjs", url)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("tasks-client.mjs stderr:\n%s\nstdout:\n%s", run.stderr, run.stdout)
		}
	})
	var out tsTasksOutput
	require.NoError(t, json.Unmarshal(run.stdout, &out), "tasks-client.mjs must print one JSON object")
	require.Nil(t, out.Connect)
	require.Nil(t, out.Fatal)
	require.Empty(t, out.Watchdog)
	require.Equal(t, 0, run.exitCode)

	assert.Equal(t, "2025-11-25", out.ProtocolVersion)
	assert.JSONEq(t, `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`, string(out.TasksCapability))
	support := func(name string) string {
		if v := out.Execution[name]; v != nil {
			return *v
		}
		return ""
	}
	assert.Equal(t, "optional", support("report"))
	assert.Equal(t, "required", support("required"))
	assert.Equal(t, "", support("plain"), "a tool without Task has no execution member")

	// report: created, polled, completed, its result fetched.
	require.NotEmpty(t, out.Report)
	assert.Equal(t, "taskCreated", out.Report[0].Type)
	require.NotNil(t, out.Report[0].Task)
	assert.Equal(t, "working", out.Report[0].Task.Status)
	assert.Equal(t, int64(50), out.Report[0].Task.PollInterval)
	res := last(t, "report", out.Report)
	require.Equal(t, "result", res.Type, "%+v", res.Error)
	require.Len(t, res.Result.Content, 1)
	assert.Equal(t, "Report on tides", res.Result.Content[0].Text)

	// confirm: input_required, then tasks/result asks the elicitation,
	// with the related task, and returns the result.
	res = last(t, "confirm", out.Confirm)
	require.Equal(t, "result", res.Type, "%+v", res.Error)
	require.Len(t, res.Result.Content, 1)
	assert.Equal(t, "confirmed", res.Result.Content[0].Text)
	require.Len(t, out.Elicitations, 1)
	assert.Equal(t, "Go on?", out.Elicitations[0]["message"])
	meta, _ := out.Elicitations[0]["_meta"].(map[string]any)
	related, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any)
	assert.Equal(t, out.Confirm[0].Task.TaskID, related["taskId"])

	// failing: an isError result is a failed task at 2025-11-25.
	res = last(t, "failing", out.Failing)
	assert.Equal(t, "error", res.Type)
	assert.Contains(t, res.Error.Error, "failed")

	// required: runs as a task; an ordinary call is refused with -32601.
	res = last(t, "required", out.Required)
	require.Equal(t, "result", res.Type, "%+v", res.Error)
	assert.Equal(t, "done as a task", res.Result.Content[0].Text)
	assert.Equal(t, "-32601", string(out.RequiredPlain.Code), "%+v", out.RequiredPlain)
	// plain: an ordinary call through callToolStream.
	res = last(t, "plain", out.Plain)
	require.Equal(t, "result", res.Type, "%+v", res.Error)
	assert.Equal(t, "plain", res.Result.Content[0].Text)

	// slow: cancelled; cancelling again is -32602.
	assert.Equal(t, "working", out.Slow.Created.Status)
	require.NotNil(t, out.Slow.Created.TTL)
	assert.Equal(t, int64(60000), *out.Slow.Created.TTL)
	assert.False(t, out.Slow.Cancelled.failed(), "%+v", out.Slow.Cancelled)
	assert.Equal(t, "cancelled", out.Slow.Cancelled.Status)
	assert.Equal(t, "cancelled", out.Slow.After.Status)
	assert.Equal(t, "-32602", string(out.Slow.Again.Code), "%+v", out.Slow.Again)

	// listTasks: every task this client made (the same session).
	require.False(t, out.List.failed(), "%+v", out.List.tsErr)
	ids := map[string]string{}
	for _, tk := range out.List.Tasks {
		ids[tk.TaskID] = tk.Status
	}
	assert.Equal(t, "completed", ids[out.Report[0].Task.TaskID])
	assert.Equal(t, "cancelled", ids[out.Slow.Created.TaskID])
	assert.Equal(t, "failed", ids[out.Failing[0].Task.TaskID])
	assert.Len(t, out.List.Tasks, 4, "report, confirm, failing, slow (required comes after the list)")

	// getTaskResult of a completed task, again: the same result, with the
	// related task.
	require.False(t, out.ReportResult.failed(), "%+v", out.ReportResult.tsErr)
	assert.Equal(t, "Report on tides", out.ReportResult.Content[0].Text)
	assert.Equal(t, out.Report[0].Task.TaskID, out.ReportResult.Meta.Related.TaskID)
	assert.Equal(t, "completed", out.ReportTask.Status)
	assert.Equal(t, "-32602", string(out.Unknown.Code), "%+v", out.Unknown)
}
