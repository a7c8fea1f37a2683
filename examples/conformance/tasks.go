package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
)

// addTaskTools adds the tools of the tasks-* scenarios (the tasks
// extension of revision 2026-07-28).
func addTaskTools(srv *mcp.Server) {
	optional := &mcp.TaskOptions{PollInterval: 200 * time.Millisecond}
	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Greets by name; never a task"},
		func(ctx context.Context, c *mcp.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "slow_compute", Description: "Sleeps for seconds, then answers; a task when the client opts in", Task: optional},
		func(ctx context.Context, c *mcp.Context, in struct {
			Seconds float64 `json:"seconds,omitempty"`
			Label   string  `json:"label,omitempty"`
		}) (string, error) {
			if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return "", err
			}
			return fmt.Sprintf("Computed %s after %gs", in.Label, in.Seconds), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "failing_job", Description: "Runs only as a task; after a second it reports a tool error",
		Task: &mcp.TaskOptions{Required: true, PollInterval: 200 * time.Millisecond}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return "", err
			}
			return "", errors.New("the job failed, as it always does")
		})
	mcp.AddTool(srv, mcp.Tool{Name: "protocol_error_job", Description: "Fails with a JSON-RPC error, so its task ends failed", Task: optional},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return "", err
			}
			return "", &mcp.Error{Code: mcp.CodeInternalError, Message: "protocol_error_job failed at the protocol level"}
		})
	confirm := map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}, "required": []string{"confirm"}}
	mcp.AddTool(srv, mcp.Tool{Name: "confirm_delete", Description: "Asks the user to confirm, then deletes the file", Task: optional},
		func(ctx context.Context, c *mcp.Context, in struct {
			Filename string `json:"filename,omitempty"`
		}) (string, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Delete " + in.Filename + "?", RequestedSchema: confirm})
			if err != nil {
				return "", err
			}
			if res.Action == "accept" && res.Content["confirm"] == true {
				return "Deleted " + in.Filename, nil
			}
			return "Kept " + in.Filename, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "multi_input", Description: "Asks two questions at once; answers when both are in", Task: optional},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			ask := func(msg string) mcp.InputRequest {
				return mcp.InputRequest{Method: "elicitation/create", Params: &elicit.Params{Message: msg, RequestedSchema: confirm}}
			}
			res, err := c.Ask(ctx, map[string]mcp.InputRequest{"first": ask("First question?"), "second": ask("Second question?")})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Both answered: %s and %s", res["first"], res["second"]), nil
		})
	nameSchema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}
	mcp.AddTool(srv, mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name on the request, then runs as a task that greets it",
		Task: &mcp.TaskOptions{Required: true, Deferred: true, PollInterval: 200 * time.Millisecond}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			res, err := c.Ask(ctx, map[string]mcp.InputRequest{"user_name": {Method: "elicitation/create",
				Params: &elicit.Params{Message: "What is your name?", RequestedSchema: nameSchema}}})
			if err != nil {
				return "", err
			}
			var answer elicit.Result
			if err := json.Unmarshal(res["user_name"], &answer); err != nil {
				return "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: inputResponses[\"user_name\"] is not an elicitation result"}
			}
			name, _ := answer.Content["name"].(string)
			if err := c.StartTask(ctx); err != nil {
				return "", err
			}
			if err := sleep(ctx, 300*time.Millisecond); err != nil {
				return "", err
			}
			return "Hello, " + name + "! (from the task)", nil
		})
}
