package mcphttp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
)

// A tool with Task runs as a task for a 2025-11-25 client that asks for one
// (params.task), here an in-process client: tools/call answers at once with
// the task, and tasks/result waits for the tool, asking the client its
// question on the way (with the related task in _meta).
func ExampleOptions_tasks() {
	srv := mcp.NewServer(mcp.Options{Name: "reports", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "report", Description: "Writes a long report", Task: &mcp.TaskOptions{}},
		func(ctx context.Context, c *mcp.Context, in struct {
			Topic string `json:"topic"`
		}) (string, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Include drafts?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"drafts": map[string]any{"type": "boolean"}}}})

			if err != nil {
				return "", err
			}
			if drafts, _ := res.Content["drafts"].(bool); drafts {
				return "Report on " + in.Topic + ", drafts included", nil
			}
			return "Report on " + in.Topic, nil
		})

	ctx := context.Background()
	h := mcphttp.New(srv, &mcphttp.Options{MaxTasksPerClient: 4}) // live tasks per caller
	defer h.Close()
	e, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{
		ProtocolVersion: mcp.Version20251125,
		Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			fmt.Println("asked:", p.Message)
			return &elicit.Result{Action: "accept", Content: map[string]any{"drafts": true}}, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()

	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	if err := e.Call(ctx, "tools/call", map[string]any{
		"name": "report", "arguments": map[string]any{"topic": "tides"}, "task": map[string]any{"ttl": 60000},
	}, &created); err != nil {
		log.Fatal(err)
	}
	fmt.Println("task:", created.Task.Status)

	var res mcp.ContentResult
	if err := e.Call(ctx, "tasks/result", map[string]string{"taskId": created.Task.TaskID}, &res); err != nil {
		log.Fatal(err)
	}
	fmt.Println("result:", res.Text())
	// Output:
	// task: working
	// asked: Include drafts?
	// result: Report on tides, drafts included
}
