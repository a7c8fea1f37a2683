package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

func ExampleNewServer() {
	srv := mcp.NewServer(mcp.Options{
		Name:         "calc",
		Version:      "1.2.0",
		Instructions: "Use add to add numbers.",
		Logger:       slog.New(slog.DiscardHandler),
	})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(ctx context.Context, c *mcp.Context, in struct {
			A float64 `json:"a"`
			B float64 `json:"b"`
		}) (float64, error) {
			return in.A + in.B, nil
		})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	tools, _ := session.ListTools(ctx)
	for _, t := range tools {
		fmt.Printf("%s: %s\n", t.Name, t.Description)
	}

	// A version that is not semantic is a programmer error: NewServer panics.
	defer func() { fmt.Println(recover()) }()
	mcp.NewServer(mcp.Options{Name: "calc", Version: "1.0"})
	// Output:
	// add: Add two numbers
	// mcp: NewServer: Options.Version "1.0" is not a semantic version (want MAJOR.MINOR.PATCH, such as 1.0.0)
}

func ExampleAddTool() {
	srv := mcp.NewServer(mcp.Options{Name: "hello", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})

	type greetArgs struct {
		Name  string `json:"name" jsonschema:"who to greet"`
		Style string `json:"style,omitempty" enum:"plain,loud" default:"plain"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Say hello"},
		func(ctx context.Context, c *mcp.Context, in greetArgs) (string, error) {
			msg := "Hello, " + in.Name + "!"
			if in.Style == "loud" {
				msg = strings.ToUpper(msg)
			}
			return msg, nil
		})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	res, _ := session.CallTool(ctx, "greet", map[string]any{"name": "Ada"}, nil)
	fmt.Println(res.Text())
	res, _ = session.CallTool(ctx, "greet", map[string]any{"name": "Ada", "style": "loud"}, nil)
	fmt.Println(res.Text())
	res, _ = session.CallTool(ctx, "greet", map[string]any{"name": "Ada", "style": "shy"}, nil)
	fmt.Println(res.IsError)
	// Output:
	// Hello, Ada!
	// HELLO, ADA!
	// true
}

func ExampleServer_AddResource() {
	srv := mcp.NewServer(mcp.Options{Name: "docs", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddResource(mcp.Resource{
		URI:      "docs://readme",
		Name:     "readme",
		MIMEType: "text/markdown",
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "# Read me"}}, nil
		},
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	res, _ := session.ReadResource(ctx, "docs://readme")
	c := res.Contents[0]
	fmt.Println(c.URI, c.MIMEType, c.Text)
	// Output: docs://readme text/markdown # Read me
}

func ExampleServer_AddResourceTemplate() {
	srv := mcp.NewServer(mcp.Options{Name: "files", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddResourceTemplate(mcp.ResourceTemplate{
		URITemplate: "file:///{+path}",
		Name:        "file",
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "contents of " + args["path"]}}, nil
		},
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	res, _ := session.ReadResource(ctx, "file:///src/main.go")
	fmt.Println(res.Contents[0].Text)
	_, err = session.ReadResource(ctx, "http://example.com")
	fmt.Println(err)
	// Output:
	// contents of src/main.go
	// mcp client: "files" answered resources/read with mcp error -32602: Resource not found: "http://example.com"
}

func ExampleServer_AddPrompt() {
	srv := mcp.NewServer(mcp.Options{Name: "prompts", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddPrompt(mcp.Prompt{
		Name:        "review",
		Description: "Review a piece of code",
		Arguments:   []mcp.PromptArgument{{Name: "code", Required: true}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Please review:\n" + args["code"]), nil
		},
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	session, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	res, _ := session.GetPrompt(ctx, "review", map[string]string{"code": "x := 1"})
	fmt.Println(res.Description)
	fmt.Println(res.Messages[0].Role, res.Messages[0].Content.(mcp.TextContent).Text)
	_, err = session.GetPrompt(ctx, "review", nil)
	fmt.Println(err)
	// Output:
	// Review a piece of code
	// user Please review:
	// x := 1
	// mcp client: "prompts" answered prompts/get with mcp error -32602: Prompt "review" requires argument "code"
}

func ExampleAddTypedPrompt() {
	srv := mcp.NewServer(mcp.Options{Name: "prompts", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	type reviewArgs struct {
		Code string `json:"code" jsonschema:"the code to review"`
		Lang string `json:"lang,omitempty" enum:"go,rust"`
	}
	mcp.AddTypedPrompt(srv, mcp.Prompt{Name: "review", Description: "Review code"},
		func(ctx context.Context, c *mcp.Context, in reviewArgs) (*mcp.PromptResult, error) {
			return mcp.UserText("Please review this " + in.Lang + ":\n" + in.Code), nil
		})

	for _, a := range srv.ListPrompts(context.Background(), nil)[0].Arguments {
		fmt.Printf("%s required=%v %q %v\n", a.Name, a.Required, a.Description, a.Enum)
	}
	// Output:
	// code required=true "the code to review" []
	// lang required=false "" [go rust]
}

func ExampleRegistry_AddRawTool() {
	srv := mcp.NewServer(mcp.Options{Name: "dynamic", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	// Tool names read from a configuration at run time: a bad one is an
	// error to report, not a panic that stops a live server.
	for _, name := range []string{"lookup", "my tool", "lookup"} {
		err := srv.Registry().AddRawTool(mcp.Tool{Name: name},
			func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
				return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("ok")}}, nil
			})
		fmt.Println(err, errors.Is(err, mcp.ErrInvalidToolName), errors.Is(err, mcp.ErrAlreadyRegistered))
	}
	// Output:
	// <nil> false false
	// tool "my tool": a tool name must be 1 to 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot true false
	// tool "lookup" is already registered false true
}

// A tool's CanAccess combines the ready-made checks of package access
// with a check of the application's own, which reads the request's
// context.
func ExampleTool_canAccess() {
	type tenantKey struct{}
	srv := mcp.NewServer(mcp.Options{Name: "tenants", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	// The application's middleware put the tenant in the request context;
	// the check reads it from there.
	onlyAcme := func(ctx context.Context, auth any) bool { return ctx.Value(tenantKey{}) == "acme" }
	mcp.AddTool(srv, mcp.Tool{Name: "acme_report", CanAccess: access.All(access.Authenticated, onlyAcme)},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "numbers", nil })

	for _, tenant := range []string{"acme", "globex"} {
		ctx := context.WithValue(context.Background(), tenantKey{}, tenant)
		fmt.Println(tenant, len(srv.ListTools(ctx, "alice")))
	}
	// Output:
	// acme 1
	// globex 0
}
