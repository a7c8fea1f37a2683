package sampling_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// A tool that lets the client's model use the server's own "weather" tool
// to answer (sampling with tools, revision 2025-11-25). RunLoop
// runs the loop: it asks the model, runs the tools it asks for, sends the
// results back, and asks again until the model answers. The embedded
// client here plays the model: a tool use first, then text.
func ExampleRunLoop() {
	srv := mcp.NewServer(mcp.Options{Name: "travel", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "weather", Description: "Current weather of a city"},
		func(ctx context.Context, c *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "18°C in " + in.City, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "plan", Description: "Plan a day out"},
		func(ctx context.Context, c *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			out, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 500,
				Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("Plan a day in " + in.City)}},

				ToolChoice: &sampling.ToolChoice{Mode: sampling.ToolChoiceAuto}},
				sampling.Loop{Tools: srv, Names: []string{"weather"}, MaxRounds: 4})

			if errors.Is(err, mcp.ErrCapability) {
				return "", &mcp.UserError{Message: "this tool needs a client whose model can use tools (sampling.tools)"}
			}
			if err != nil {
				return "", err
			}
			fmt.Println("rounds:", out.Rounds, "messages:", len(out.Messages))
			return out.Result.Content.(mcp.TextContent).Text, nil
		})

	// The client: its model asks for the weather, then answers with it.
	model := func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
		last := p.Messages[len(p.Messages)-1].ContentBlocks()
		if r, ok := last[0].(sampling.ToolResult); ok {
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "demo", StopReason: "endTurn",
				Content: mcp.Text("Picnic: " + r.Content[0].(mcp.TextContent).Text)}, nil
		}
		use := sampling.ToolUse{ID: "call-1", Name: p.Tools[0].Name, Input: json.RawMessage(`{"city":"Lyon"}`)}
		return &sampling.Result{Role: mcp.RoleAssistant, Model: "demo", StopReason: "toolUse",
			Blocks: []mcp.Content{use}}, nil
	}
	h := mcphttp.New(srv, nil)
	defer h.Close()
	e, err := client.Connect(context.Background(), client.InProcess(h, nil), &client.Options{Sample: model, SamplingTools: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	res, err := e.CallTool(context.Background(), "plan", map[string]string{"city": "Lyon"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// rounds: 2 messages: 4
	// Picnic: 18°C in Lyon
}

// What the client declared about sampling, and what a model's answer
// asks for: SamplingCapability.Tools says the client takes tools, and
// Result.ToolUses lists the tools the model wants run.
func ExampleResult_ToolUses() {
	var caps mcp.ClientCapabilities
	_ = json.Unmarshal([]byte(`{"sampling":{"tools":{}}}`), &caps)
	fmt.Println("sampling.tools:", caps.Sampling != nil && caps.Sampling.Tools != nil)

	var res sampling.Result
	_ = json.Unmarshal([]byte(`{"role":"assistant","model":"m","stopReason":"toolUse","content":[
		{"type":"text","text":"Let me check."},
		{"type":"tool_use","id":"a","name":"weather","input":{"city":"Oslo"}}]}`), &res)
	for _, u := range res.ToolUses() {
		fmt.Println(u.ID, u.Name, string(u.Input))
	}
	fmt.Println(len(res.ContentBlocks()), "blocks")

	// The answer goes back as tool results, the only content of a user message.
	reply := sampling.Message{Role: mcp.RoleUser, Blocks: []mcp.Content{
		sampling.ToolResult{ToolUseID: "a", Content: []mcp.Content{mcp.Text("-2°C")}}}}
	b, _ := json.Marshal(reply)
	fmt.Println(string(b))
	// Output:
	// sampling.tools: true
	// a weather {"city":"Oslo"}
	// 2 blocks
	// {"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[{"type":"text","text":"-2°C"}]}]}
}

// A tool asks the client's model through Create; it needs the
// client's sampling capability and a way back to the client.
func ExampleCreate() {
	srv := mcp.NewServer(mcp.Options{Name: "writer", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "summarize"}, func(ctx context.Context, c *mcp.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		res, err := sampling.Create(ctx, c, &sampling.Request{
			Messages: []sampling.Message{
				{Role: mcp.RoleUser, Content: mcp.Text("Summarize: " + in.Text)},
				{Role: mcp.RoleAssistant, Content: mcp.Text("Summary:")},
			},
			MaxTokens:        200,
			ModelPreferences: &sampling.ModelPreferences{Hints: []sampling.ModelHint{{Name: "small"}}, SpeedPriority: 1},
		})
		switch {
		case errors.Is(err, mcp.ErrInputRequired):
			return "", err // 2026-07-28: the request ends here and runs again with the answer
		case errors.Is(err, mcp.ErrCapability), errors.Is(err, mcp.ErrNoPeer):
			return in.Text[:min(len(in.Text), 12)] + "…", nil // no model to ask: a plain cut
		case err != nil:
			return "", err
		}
		return fmt.Sprint(res.Content), nil
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), nil) // declares no sampling capability
	defer s.Close()
	res, _ := s.CallTool(ctx, "summarize", map[string]string{"text": "A long report on the weather."}, nil)
	fmt.Println(res.Text())
	// Output:
	// A long repor…
}
