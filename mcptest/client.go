package mcptest

import (
	"context"

	"github.com/mcpchain/mcp"
)

// SampleReply is a sampling handler for [Options.Client] that answers
// every request with text, from a model named "mcptest".
func SampleReply(text string) func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "mcptest",
			Content: mcp.TextContent{Text: text}, StopReason: "endTurn"}, nil
	}
}

// ElicitAccept is an elicitation handler for [Options.Client] whose user
// accepts every request with content.
func ElicitAccept(content map[string]any) func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}
}

// ElicitDecline is an elicitation handler for [Options.Client] whose user
// declines every request.
func ElicitDecline() func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
}

// ElicitURLAccept is a URL-mode elicitation handler for
// [Options.Client] (mcphttp.ClientHandlers.ElicitURL) whose user agrees
// to every page: open, when set, stands for their browser (it gets the
// URL before the answer goes back, so a test can call the page's route).
func ElicitURLAccept(open func(url string)) func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if open != nil {
			open(p.URL)
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
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
