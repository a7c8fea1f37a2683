package main

import (
	"context"
	"strconv"
	"testing/fstest"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
)

// The "full" rows call the same plain tool, add, on a server that also
// registers every optional feature: an MCP App (its view and a tool only
// the view calls), skills, a task tool, a transformed tool, tagged tools
// and a tag disabled server-wide, a mounted child server, resources,
// templates and prompts, a custom route, and (once the session exists) a
// tool and a disabled tag of the measured session alone. The client is the
// minimal one of the other rows, which declares no extension. A call of a
// plain tool should cost what it costs on the minimal server: what the
// other features cost belongs to the requests that use them. The gate
// compares the two (fullClausePairs).

// newFullServer is newServer with every feature registered.
func newFullServer() *mcp.Server {
	srv := newServer()
	type text struct {
		Text string `json:"text"`
	}
	echo := func(_ context.Context, _ *mcp.Context, in text) (string, error) { return in.Text, nil }
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "Echo", Tags: []string{"public"}}, echo)
	mcp.AddTool(srv, mcp.Tool{Name: "admin", Description: "Hidden by its tag", Tags: []string{"admin"}}, echo)
	mcp.AddTool(srv, mcp.Tool{Name: "report", Description: "A task", Task: &mcp.TaskOptions{TTL: time.Minute}}, echo)
	mcp.AddTool(srv, mcp.Tool{Name: "slow", Description: "With a timeout", Timeout: time.Second}, echo)
	srv.AddTransformedTool("add", mcp.Transform{Name: "add_ten", Description: "Add ten",
		Args: map[string]mcp.ArgTransform{"b": {Value: 10, Hide: true}}})
	srv.AddAppResource(mcp.AppResource{URI: "ui://perfgate/view.html", Name: "view",
		HTML: "<!doctype html><title>view</title>"})
	mcp.AddTool(srv, mcp.Tool{Name: "view", Description: "Shown in the view",
		UI: &apps.ToolUI{ResourceURI: "ui://perfgate/view.html"}}, echo)
	mcp.AddTool(srv, mcp.Tool{Name: "refresh", Description: "Called by the view only",
		UI: &apps.ToolUI{ResourceURI: "ui://perfgate/view.html", Visibility: []apps.Visibility{apps.VisibleToApp}}}, echo)
	srv.AddSkills(fstest.MapFS{
		"greet/SKILL.md": {Data: []byte("---\nname: greet\ndescription: Greets\n---\n# Greet\n")},
		"greet/hello.md": {Data: []byte("hello")},
	})
	srv.AddResource(mcp.Resource{URI: "file:///hello.txt", Name: "hello", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello"}}, nil
		}})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "greeting://{name}", Name: "greeting",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello " + args["name"]}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Description: "Greet",
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("hello"), nil
		}})
	child := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0"})
	for i := range 3 {
		mcp.AddTool(child, mcp.Tool{Name: "t" + strconv.Itoa(i), Description: "A child's tool"}, echo)
	}
	srv.Mount("child", child, &mcp.MountOptions{Tags: []string{"child"}})
	if err := srv.Registry().Disable(mcp.Match{Tags: []string{"admin"}}); err != nil {
		panic(err)
	}
	return srv
}

// perSession gives the measured session a tool of its own and disables a
// tag for it alone, as a server that keeps per-session objects does.
func perSession(srv *mcp.Server, sid string) error {
	type none struct{}
	if err := mcp.TryAddTool(srv.SessionRegistry(sid), mcp.Tool{Name: "secret", Description: "This session's"},
		func(context.Context, *mcp.Context, none) (string, error) { return "s", nil }); err != nil {
		return err
	}
	return srv.SessionRegistry(sid).Disable(mcp.Match{Tags: []string{"child"}})
}
