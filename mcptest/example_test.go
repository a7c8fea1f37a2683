package mcptest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
)

type greetArgs struct {
	Name string `json:"name"`
}

type greeting struct {
	Text string `json:"text"`
}

// greeter is the server under test: it greets the caller by name.
func greeter(auth mcp.AuthFunc) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "greeter", Version: "1.0.0", Authenticate: auth})
	mcp.AddTool(srv, mcp.Tool{Name: "greet"}, func(_ context.Context, c *mcp.Context, in greetArgs) (greeting, error) {
		return greeting{Text: "Hello, " + in.Name + "!"}, nil
	})
	return srv
}

// A test of a server's tool, through the same handler chain as HTTP and
// stdio. The helpers fail the test on a protocol error; a tool's own
// failure is a result with IsError set.
func ExampleNewSession() {
	// In a _test.go file of your package:
	testGreet := func(t *testing.T) {
		s := mcptest.NewSession(t, greeter(nil), nil)
		res := s.CallTool("greet", map[string]string{"name": "Ada"}, nil)
		if res.IsError {
			t.Fatalf("greet failed: %s", res.Text())
		}
		// Structured output, decoded.
		if got := mcptest.CallToolAs[greeting](s, "greet", map[string]string{"name": "Ada"}); got.Text != "Hello, Ada!" {
			t.Errorf("greet = %q", got.Text)
		}
	}
	_ = testGreet // func TestGreet(t *testing.T)
}

// A server with authentication gets the caller's credentials in Header,
// exactly as over HTTP; test a refusal with the session's Client, whose
// methods return errors.
func ExampleOptions_header() {
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer ada-token" {
			return nil, mcp.ErrUnauthorized
		}
		return "ada", nil
	}
	testAuth := func(t *testing.T) {
		s := mcptest.NewSession(t, greeter(auth), &mcptest.Options{
			Header: http.Header{"Authorization": {"Bearer ada-token"}}})
		s.CallTool("greet", map[string]string{"name": "Ada"}, nil)

		// The protocol error of an unknown tool, as an error.
		_, err := s.Client().CallTool(t.Context(), "nope", nil, nil)
		var rpcErr *mcp.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
			t.Errorf("unknown tool: %v", err)
		}
	}
	_ = testAuth // func TestAuth(t *testing.T)
}

// Resources, prompts, completions and the notifications a tool sent, each
// in a line; the helpers fail the test on a protocol error.
func ExampleSession_Notifications() {
	srv := greeter(nil)
	srv.AddResource(mcp.Resource{URI: "mem://motd", Name: "motd", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "welcome", Arguments: []mcp.PromptArgument{{Name: "name", Required: true, Enum: []string{"Ada", "Alan"}}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Welcome, " + args["name"]), nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "chatty"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Info("working")
		return "done", nil
	})
	testAll := func(t *testing.T) {
		s := mcptest.NewSession(t, srv, nil)
		if got := s.ReadResource("mem://motd").Contents[0].Text; got != "hello" {
			t.Errorf("motd = %q", got)
		}
		if got := s.GetPrompt("welcome", map[string]string{"name": "Ada"}).Messages; len(got) != 1 {
			t.Errorf("welcome has %d messages", len(got))
		}
		if got := s.Complete(mcp.CompletionRef{Type: "ref/prompt", Name: "welcome"}, "name", "A", nil).Values; len(got) != 2 {
			t.Errorf("completions: %v", got)
		}
		s.CallTool("chatty", nil, nil)
		if n := s.WaitNotification("notifications/message", time.Second); len(n.Params) == 0 {
			t.Error("the log message has no params")
		}
	}
	_ = testAll // func TestAll(t *testing.T)
}

// A tool that asks its client (sampling, elicitation, roots) is tested
// with fixed answers in Options.Client, at any revision.
func ExampleOptions_client() {
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "title"}, func(ctx context.Context, c *mcp.Context, in struct {
		Note string `json:"note"`
	}) (string, error) {
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 20,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "Title for: " + in.Note}}}})
		if err != nil {
			return "", err
		}
		return res.Content.(mcp.TextContent).Text, nil
	})
	testTitle := func(t *testing.T) {
		s := mcptest.NewSession(t, srv, &mcptest.Options{
			Client: client.Options{Sample: mcptest.SampleReply("Groceries")}})
		if got := s.CallTool("title", map[string]string{"note": "milk, eggs"}, nil).Text(); got != "Groceries" {
			t.Errorf("title = %q", got)
		}
	}
	_ = testTitle // func TestTitle(t *testing.T)
}

// A tool that reports progress and logs, tested without raw JSON-RPC:
// CallToolProgress sends a progress token and returns the call's
// reports; Logs holds the log messages, complete when the call returns.
func ExampleSession_CallToolProgress() {
	srv := mcp.NewServer(mcp.Options{Name: "importer", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "import"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		for i := 1; i <= 3; i++ {
			_ = c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 3})
		}
		c.Log.Info("imported", "rows", 3)
		return "done", nil
	})
	testImport := func(t *testing.T) {
		s := mcptest.NewSession(t, srv, nil)
		s.SetLogLevel(mcp.LevelInfo) // the client's choice; nothing is sent below it
		res, reports := s.CallToolProgress("import", nil)
		if res.Text() != "done" || len(reports) != 3 || reports[2].Progress != 3 {
			t.Errorf("import: %q, progress %v", res.Text(), reports)
		}
		if logs := s.Logs(); len(logs) != 1 || logs[0].Level != mcp.LevelInfo {
			t.Errorf("logs: %v", logs)
		}
	}
	_ = testImport // func TestImport(t *testing.T)
}
