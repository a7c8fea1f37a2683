package mcphttp_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestURLElicitationInTask: a task whose tool returns
// URLElicitationRequired puts the elicitation on the task
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
		return "", mcp.URLElicitationRequired(mcp.URLElicitation{ID: "t1", URL: "https://example.com/link?id=t1", Message: "Link"})
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
