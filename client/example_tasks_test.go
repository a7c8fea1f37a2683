package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

func ExampleClient_StartTool() {
	// A server with a tool that may run as a task.
	srv := mcp.NewServer(mcp.Options{Name: "reports", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "report", Task: &mcp.TaskOptions{PollInterval: 50 * time.Millisecond}},
		func(_ context.Context, _ *mcp.Context, in struct {
			Topic string `json:"topic"`
		}) (string, error) {
			return "Report on " + in.Topic, nil
		})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	// The same calls at revision 2026-07-28 (the tasks extension).
	c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", nil), &client.Options{
		ProtocolVersion: mcp.Version20251125,
		OnTaskStatus:    func(i client.TaskInfo) { _ = i.Status }, // notifications/tasks/status
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	task, err := c.StartTool(ctx, "report", map[string]string{"topic": "tides"}, nil)
	if errors.Is(err, client.ErrTasksUnsupported) {
		fmt.Println("no task here; call it with CallTool")
		return
	} else if err != nil {
		fmt.Println(err)
		return
	}
	res, err := task.Wait(ctx) // polls tasks/get; task.Cancel(ctx) would stop it
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	info, _ := task.Status(ctx)
	fmt.Println(info.Status, info.Ended())
	tasks, _ := c.Tasks(ctx) // tasks/list (revision 2025-11-25)
	fmt.Println(len(tasks), "task")
	// Output:
	// Report on tides
	// completed true
	// 1 task
}
