package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/sampling"
)

// SampleReply is a sampling handler for [Options.Client] that answers
// every request with text, from a model named "mcptest".
func SampleReply(text string) func(context.Context, *sampling.Request) (*sampling.Result, error) {
	return func(context.Context, *sampling.Request) (*sampling.Result, error) {
		return &sampling.Result{Role: mcp.RoleAssistant, Model: "mcptest",
			Content: mcp.TextContent{Text: text}, StopReason: "endTurn"}, nil
	}
}

// ElicitAccept is an elicitation handler for [Options.Client] whose user
// accepts every request with content.
func ElicitAccept(content map[string]any) func(context.Context, *elicit.Params) (*elicit.Result, error) {
	return func(context.Context, *elicit.Params) (*elicit.Result, error) {
		return &elicit.Result{Action: "accept", Content: content}, nil
	}
}

// ElicitDecline is an elicitation handler for [Options.Client] whose user
// declines every request.
func ElicitDecline() func(context.Context, *elicit.Params) (*elicit.Result, error) {
	return func(context.Context, *elicit.Params) (*elicit.Result, error) {
		return &elicit.Result{Action: "decline"}, nil
	}
}

// ElicitURLAccept is a URL-mode elicitation handler for
// [Options.Client] (client.Options.ElicitURL) whose user agrees
// to every page: open, when set, stands for their browser (it gets the
// URL before the answer goes back, so a test can call the page's route).
func ElicitURLAccept(open func(url string)) func(context.Context, *elicit.Params) (*elicit.Result, error) {
	return func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
		if open != nil {
			open(p.URL)
		}
		return &elicit.Result{Action: "accept"}, nil
	}
}

// RootsOf is a roots handler for [Options.Client] that offers uris.
func RootsOf(uris ...string) func(context.Context) ([]mcp.Root, error) {
	roots := make([]mcp.Root, len(uris))
	for i, u := range uris {
		roots[i] = mcp.Root{URI: u}
	}
	return func(context.Context) ([]mcp.Root, error) { return roots, nil }
}

// SampleSequence is a sampling handler for [Options.Client] that plays a
// model scripted by the test: it answers the first request with the first
// reply, the second with the second, and every later one with the last.
// With [ToolUseReply] it scripts a tool loop (set
// client.Options.SamplingTools too, to declare sampling.tools):
//
//	Sample: mcptest.SampleSequence(
//		mcptest.ToolUseReply("call-1", "weather", map[string]any{"city": "Paris"}),
//		mcptest.TextReply("Sunny in Paris")),
func SampleSequence(replies ...*sampling.Result) func(context.Context, *sampling.Request) (*sampling.Result, error) {
	var (
		mu sync.Mutex
		n  int
	)
	return func(context.Context, *sampling.Request) (*sampling.Result, error) {
		if len(replies) == 0 {
			return nil, errors.New("mcptest: SampleSequence has no reply")
		}
		mu.Lock()
		defer mu.Unlock()
		r := replies[min(n, len(replies)-1)]
		n++
		return r, nil
	}
}

// TextReply is a model's answer of text, from a model named "mcptest",
// for [SampleSequence].
func TextReply(text string) *sampling.Result {
	return &sampling.Result{Role: mcp.RoleAssistant, Model: "mcptest",
		Content: mcp.TextContent{Text: text}, StopReason: "endTurn"}
}

// ToolUseReply is a model's answer that asks for one tool (an
// sampling.ToolUse with this id, name and input, stop reason "toolUse"),
// for [SampleSequence]. It panics when input has no JSON form.
func ToolUseReply(id, name string, input any) *sampling.Result {
	b, err := json.Marshal(input)
	if err != nil {
		panic("mcptest: ToolUseReply: " + err.Error())
	}
	return &sampling.Result{Role: mcp.RoleAssistant, Model: "mcptest", StopReason: "toolUse",
		Blocks: []mcp.Content{sampling.ToolUse{ID: id, Name: name, Input: b}}}
}
