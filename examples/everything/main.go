// Command everything is an MCP server that uses every feature of mcpchain.
// The e2e tests and the benchmarks run it.
//
//	everything                                   # stdio
//	everything -transport httpStream -port 8000  # Streamable HTTP at /mcp
//	everything -transport httpStream -stateless  # no sessions
//	everything -transport httpStream -legacy-sse # also HTTP+SSE (2024-11-05) at /sse
//
// SIGINT or SIGTERM stops it gracefully (calls in flight finish; exit
// status 0, or 1 when the 10 s grace period ended first); a second signal
// ends it at once.
//
// Over HTTP a request may carry "Authorization: Bearer <name>"; the tool
// whoami then returns {"subject": "<name>"}. Without it the caller is
// anonymous.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// User is the auth data of a caller.
type User struct {
	Name string `json:"subject"`
}

// Subject implements mcp.Subject: sessions are bound to the user.
func (u *User) Subject() string { return u.Name }

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

// newServer builds the server; tests of this package use it too.
func newServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{
		Name:         "everything",
		Version:      "1.0.0",
		Instructions: "A test server with every kind of tool, resource and prompt.",
		Authenticate: func(r *http.Request) (any, error) {
			h := r.Header.Get("Authorization")
			if h == "" {
				return nil, nil // anonymous
			}
			name, ok := strings.CutPrefix(h, "Bearer ")
			if !ok || name == "" {
				return nil, fmt.Errorf(`%w: the Authorization header must be "Bearer <name>"`, mcp.ErrUnauthorized)
			}
			return &User{Name: name}, nil
		},
	})

	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two numbers",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(ctx context.Context, c *mcp.Context, in addArgs) (string, error) {
			return strconv.FormatFloat(in.A+in.B, 'f', -1, 64), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "Echo the text back"},
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
	mcp.AddTool(srv, mcp.Tool{Name: "whoami", Description: "Return the caller's auth session as JSON"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (any, error) {
			return map[string]any{"session": c.Session, "sessionId": c.SessionID, "client": c.Client}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "sample", Description: "Ask the client's model (sampling) and return its answer"},
		func(ctx context.Context, c *mcp.Context, in sampleArgs) (string, error) {
			res, err := c.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 100,
				Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text(in.Text)}}})
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
			res, err := c.Elicit(ctx, &mcp.ElicitParams{Message: "Proceed?", RequestedSchema: map[string]any{
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
	srv.AddRoute("GET", "/hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}), &mcp.RouteOptions{Public: true})
	return srv
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

func main() {
	transport := flag.String("transport", "stdio", "stdio or httpStream")
	host := flag.String("host", "0.0.0.0", "host to listen on (httpStream)")
	port := flag.Int("port", 8000, "port to listen on (httpStream)")
	stateless := flag.Bool("stateless", false, "keep no sessions (httpStream)")
	jsonOnly := flag.Bool("json", false, "answer with application/json, never SSE (httpStream)")
	legacySSE := flag.Bool("legacy-sse", false, "also serve the deprecated HTTP+SSE transport at /sse and /messages (httpStream)")
	flag.Parse()

	// The first SIGINT or SIGTERM ends ctx, and Start then shuts down
	// gracefully: the listener closes, calls in flight finish (for at most
	// StartOptions.ShutdownTimeout, 10 s), and Wait returns once they have.
	// The signals are released at that moment, so a second one ends the
	// process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	inst, err := mcphttp.Start(ctx, newServer(), &mcphttp.StartOptions{
		TransportType: *transport, Host: *host, Port: *port,
		Handler: &mcphttp.Options{Stateless: *stateless, JSONResponse: *jsonOnly, LegacySSE: *legacySSE},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
	if err := inst.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
}
