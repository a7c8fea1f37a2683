package telemetry_test

import (
	"context"
	"strconv"

	"github.com/mcpchain/mcp"
)

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type echoArgs struct {
	Text string `json:"text"`
}

// registerFixture adds the tools, the resource and the prompt the tests
// call, as examples/everything has them (that example is a module of its
// own, whose Redis dependency this module's tests do not take on).
func registerFixture(srv *mcp.Server) {
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(ctx context.Context, c *mcp.Context, in addArgs) (string, error) {
			return strconv.FormatFloat(in.A+in.B, 'f', -1, 64), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "Echo the text back"},
		func(ctx context.Context, c *mcp.Context, in echoArgs) (string, error) {
			return in.Text, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "fail_user", Description: "Fail with a user-facing error"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "", &mcp.UserError{Message: "this is a user error"}
		})
	srv.AddResource(mcp.Resource{URI: "file:///hello.txt", Name: "hello", Description: "A greeting", MIMEType: "text/plain",
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Description: "Greet someone",
		Arguments: []mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Please greet " + args["name"] + " warmly."), nil
		}})
}
