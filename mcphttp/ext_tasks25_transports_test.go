package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/stdio"
)

// TestTasks25OverStdio: a task at 2025-11-25 over stdio, its elicitation
// asked by tasks/result as a request with the related task, the answer
// written back on stdin; the status notification comes on stdout too.
func TestTasks25OverStdio(t *testing.T) {
	t.Parallel()
	tt := &taskTools{stopped: make(chan error, 8)}
	h := mcphttp.New(newTaskServer(t, tt), nil)
	defer h.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(context.Background(), h, inR, outW, nil)
		_ = outW.Close()
	}()
	lines := make(chan msg, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m msg
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	defer func() {
		_ = inW.Close()
		require.NoError(t, <-served)
		for range lines {
		}
	}()
	send := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	// await returns the first message for which ok holds, of those
	// read so far or to come.
	var seen []msg
	await := func(what string, ok func(msg) bool) msg {
		for i, m := range seen {
			if ok(m) {
				seen = append(seen[:i], seen[i+1:]...)
				return m
			}
		}
		timeout := time.After(10 * time.Second)
		for {
			select {
			case m, open := <-lines:
				require.True(t, open, "stdout closed")
				if ok(m) {
					return m
				}
				seen = append(seen, m)
			case <-timeout:
				t.Fatalf("no %s", what)
			}
		}
	}
	response := func(id string) msg {
		return await("response "+id, func(m msg) bool { return m.IsResponse() && string(m.ID) == id })
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	init := response("0")
	assert.Contains(t, string(init.Result), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},"task":{"ttl":5000}}}`)
	created := resultOf[struct {
		Task task25 `json:"task"`
	}](t, response("1")).Task
	assert.Equal(t, int64(5000), *created.TTL)

	send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + created.TaskID + `"}}`)
	q := await("the elicitation", func(m msg) bool { return m.Method == "elicitation/create" })
	assert.Contains(t, string(q.Params), `"io.modelcontextprotocol/related-task":{"taskId":"`+created.TaskID+`"}`)
	send(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"action":"decline"}}`)
	res := resultOf[mcp.ContentResult](t, response("2"))
	assert.Equal(t, "decline", res.Content[0].(mcp.TextContent).Text)

	n := await("the status notification", func(m msg) bool {
		return m.Method == "notifications/tasks/status" && string(m.Params) != "" && resultOfParams(m).Status == "completed"
	})
	assert.Equal(t, created.TaskID, resultOfParams(n).TaskID)

	send(`{"jsonrpc":"2.0","id":3,"method":"tasks/list"}`)
	list := resultOf[struct {
		Tasks []task25 `json:"tasks"`
	}](t, response("3"))
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
	asked := make(chan *mcp.ElicitParams, 1)
	e := mcptest.NewSession(t, newTaskServer(t, tt), &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20251125, Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked <- p
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
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
