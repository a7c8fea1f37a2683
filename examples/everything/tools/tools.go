// Package tools holds the fixtures of examples/everything (its tools,
// resources and prompts) so that other examples serve the same set:
// examples/oauth puts them behind an OAuth provider.
//
//	srv := mcp.NewServer(mcp.Options{Name: "demo", Version: "1.0.0"})
//	tools.Register(srv, nil)
package tools

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/media"
	"github.com/mcpchain/mcp/sampling"
)

//go:embed icon.svg
var assets embed.FS

// Icon is the everything example's icon, a 16x16 SVG compiled in and sent
// as a data: URI: the server's (examples/everything) and the echo tool's.
var Icon = func() mcp.Icon {
	ic, err := media.IconFromFS(assets, "icon.svg")
	if err != nil {
		panic(err)
	}
	ic.Sizes = []string{"any"}
	return ic
}()

// Names are the tools Register adds, in registration order.
var Names = []string{"add", "echo", "slow", "progress", "fail_user", "fail_internal", "whoami", "sample", "elicit", "roots"}

// Options change what Register adds. The zero value (or nil) is the
// everything example's set.
type Options struct {
	// Whoami is the body of the whoami tool. Default: [Whoami], the
	// caller's auth data as the server's authentication returned it.
	Whoami mcp.ToolFunc[struct{}, any]
	// WhoamiDescription describes the whoami tool. Default: "Return the
	// caller's auth session as JSON".
	WhoamiDescription string
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type slowArgs struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

type sampleArgs struct {
	Text string `json:"text" jsonschema:"what to ask the client's model"`
}

// Whoami is the default whoami tool: the caller's auth data (Context.Session),
// the MCP session ID and the client's name and version.
func Whoami(ctx context.Context, c *mcp.Context, _ struct{}) (any, error) {
	return map[string]any{"session": c.Session, "sessionId": c.SessionID, "client": c.Client}, nil
}

// Register adds the everything example's tools (see [Names]), the
// resource file:///hello.txt, the template greeting://{name} and the
// prompt greet to srv. opts may be nil.
func Register(srv *mcp.Server, opts *Options) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Whoami == nil {
		o.Whoami = Whoami
	}
	if o.WhoamiDescription == "" {
		o.WhoamiDescription = "Return the caller's auth session as JSON"
	}

	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two numbers",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(ctx context.Context, c *mcp.Context, in addArgs) (string, error) {
			return strconv.FormatFloat(in.A+in.B, 'f', -1, 64), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "Echo the text back", Icons: []mcp.Icon{Icon}},
		func(ctx context.Context, c *mcp.Context, in echoArgs) (string, error) {
			return in.Text, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "slow", Description: "Sleep for ms milliseconds (1 s limit); honours cancellation", Timeout: time.Second},
		func(ctx context.Context, c *mcp.Context, in slowArgs) (string, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return fmt.Sprintf("slept %d ms", in.MS), nil
			case <-ctx.Done():
				return "", context.Cause(ctx)
			}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "progress", Description: "Report three progress steps, stream two chunks, log, and return done"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			c.Log.Info("progress started", map[string]any{"steps": 3})
			for i := 1; i <= 3; i++ {
				_ = c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
				if i <= 2 {
					_ = c.StreamContent(ctx, mcp.Text(fmt.Sprintf("chunk %d", i)))
				}
			}
			c.Log.Debug("progress finished")
			return "done", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "fail_user", Description: "Fail with a user-facing error"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "", &mcp.UserError{Message: "this is a user error"}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "fail_internal", Description: "Panic"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			panic("fail_internal was asked to panic")
		})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami", Description: o.WhoamiDescription}, o.Whoami)
	mcp.AddTool(srv, mcp.Tool{Name: "sample", Description: "Ask the client's model (sampling) and return its answer"},
		func(ctx context.Context, c *mcp.Context, in sampleArgs) (string, error) {
			res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 100,
				Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text(in.Text)}}})
			if err != nil {
				return "", err
			}
			if t, ok := res.Content.(mcp.TextContent); ok {
				return t.Text, nil
			}
			return "", fmt.Errorf("the client answered with %s content", res.Content.ContentType())
		})
	mcp.AddTool(srv, mcp.Tool{Name: "elicit", Description: "Ask the user a yes/no question (elicitation)"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (any, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Proceed?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}})

			if err != nil {
				return nil, err
			}
			return res, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "roots", Description: "Return the client's roots"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (any, error) {
			roots, err := c.Roots(ctx)
			if err != nil {
				return nil, err
			}
			return map[string]any{"roots": roots}, nil
		})

	srv.AddResource(mcp.Resource{URI: "file:///hello.txt", Name: "hello", Description: "A greeting", MIMEType: "text/plain",
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello"}}, nil
		}})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "greeting://{name}", Name: "greeting",
		Description: "A greeting for name", MIMEType: "text/plain",
		Arguments: []mcp.TemplateArgument{{Name: "name", Description: "who to greet", Required: true,
			Complete: completeNames}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "Hello, " + args["name"] + "!"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Description: "Greet someone",
		Arguments: []mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true, Complete: completeNames}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Please greet " + args["name"] + " warmly."), nil
		}})
}

var names = []string{"Ada", "Alan", "Barbara", "Grace", "Linus"}

func completeNames(_ context.Context, value string, _ map[string]string) ([]string, error) {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(value)) {
			out = append(out, n)
		}
	}
	return out, nil
}
