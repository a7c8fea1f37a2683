package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/sampling"
)

// peerServer is an MCP server no one here wrote, as a client transport.
type peerServer struct {
	name  string
	start func(t *testing.T) client.Transport
}

// tsRefServer runs e2e/node/ref-server.mjs (the official TypeScript SDK
// 1.32, low-level Server API) over stdio or Streamable HTTP.
func tsRefServer(http bool) func(t *testing.T) client.Transport {
	return func(t *testing.T) client.Transport {
		dir, bin := nodePaths(t)
		script := filepath.Join(dir, "ref-server.mjs")
		if !http {
			cmd := exec.Command(filepath.Join(bin, "node"), script)
			cmd.Stderr = &syncBuffer{}
			return client.Command(cmd)
		}
		port := freePort(t)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		cmd := exec.Command(filepath.Join(bin, "node"), script, "--http", addr)
		cmd.Stdout, cmd.Stderr = &syncBuffer{}, &syncBuffer{}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
		require.Eventually(t, func() bool {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				c.Close()
			}
			return err == nil
		}, 20*time.Second, 50*time.Millisecond, "ref-server.mjs listens")
		return client.HTTP("http://"+addr+"/mcp", nil)
	}
}

// goSDKServer is a server on the official Go SDK v1.8.0 with the same
// fixtures as ref-server.mjs, over Streamable HTTP or in-memory stdio.
func goSDKServer(overHTTP bool) func(t *testing.T) client.Transport {
	return func(t *testing.T) client.Transport {
		srv := gosdk.NewServer(&gosdk.Implementation{Name: "go-sdk-peer", Version: "1.0.0"}, nil)
		type ab struct {
			A float64 `json:"a"`
			B float64 `json:"b"`
		}
		text := func(s string) *gosdk.CallToolResult {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: s}}}
		}
		gosdk.AddTool(srv, &gosdk.Tool{Name: "add", Description: "Add two numbers"},
			func(_ context.Context, _ *gosdk.CallToolRequest, in ab) (*gosdk.CallToolResult, any, error) {
				return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
			})
		gosdk.AddTool(srv, &gosdk.Tool{Name: "progress", Description: "Progress"},
			func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
				if tok := req.Params.GetProgressToken(); tok != nil {
					for i := 1; i <= 3; i++ {
						_ = req.Session.NotifyProgress(ctx, &gosdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3})
					}
				}
				return text("done"), nil, nil
			})
		gosdk.AddTool(srv, &gosdk.Tool{Name: "slow", Description: "Sleep, honors cancellation"},
			func(ctx context.Context, _ *gosdk.CallToolRequest, in struct {
				MS float64 `json:"ms"`
			}) (*gosdk.CallToolResult, any, error) {
				select {
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
					return text("slept"), nil, nil
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			})
		gosdk.AddTool(srv, &gosdk.Tool{Name: "sample", Description: "sampling round trip"},
			func(ctx context.Context, req *gosdk.CallToolRequest, in struct {
				Text string `json:"text"`
			}) (*gosdk.CallToolResult, any, error) {
				r, err := req.Session.CreateMessage(ctx, &gosdk.CreateMessageParams{MaxTokens: 100,
					Messages: []*gosdk.SamplingMessage{{Role: "user", Content: &gosdk.TextContent{Text: in.Text}}}})
				if err != nil {
					return nil, nil, err
				}
				return text(r.Content.(*gosdk.TextContent).Text), nil, nil
			})
		gosdk.AddTool(srv, &gosdk.Tool{Name: "elicit", Description: "elicitation round trip"},
			func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
				r, err := req.Session.Elicit(ctx, &gosdk.ElicitParams{Message: "Answer?", RequestedSchema: json.RawMessage(
					`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)})

				if err != nil {
					return nil, nil, err
				}
				b, _ := json.Marshal(r)
				return text(string(b)), nil, nil
			})
		gosdk.AddTool(srv, &gosdk.Tool{Name: "roots", Description: "roots round trip"},
			func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
				r, err := req.Session.ListRoots(ctx, nil)
				if err != nil {
					return nil, nil, err
				}
				b, _ := json.Marshal(r.Roots)
				return text(string(b)), nil, nil
			})
		srv.AddResource(&gosdk.Resource{URI: "file:///hello.txt", Name: "hello", MIMEType: "text/plain"},
			func(context.Context, *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
				return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: "file:///hello.txt", MIMEType: "text/plain", Text: "hello"}}}, nil
			})
		srv.AddPrompt(&gosdk.Prompt{Name: "greet", Arguments: []*gosdk.PromptArgument{{Name: "name", Required: true}}},
			func(_ context.Context, req *gosdk.GetPromptRequest) (*gosdk.GetPromptResult, error) {
				return &gosdk.GetPromptResult{Messages: []*gosdk.PromptMessage{{Role: "user",
					Content: &gosdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}}}}, nil
			})
		if overHTTP {
			ts := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv }, nil))
			t.Cleanup(ts.Close)
			return client.HTTP(ts.URL, nil)
		}
		// stdio framing over pipes, as a spawned go-sdk server would speak.
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		ss, err := srv.Connect(ctx, &gosdk.IOTransport{Reader: inR, Writer: outW}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cancel(); _ = ss.Close() })
		return client.Stdio(pipeRW{outR, inW})
	}
}

// pipeRW is the client's end of two pipes.
type pipeRW struct {
	io.Reader
	io.WriteCloser
}

// TestGoClientAgainstPeers: package client against servers no one here
// wrote, over each transport they offer: lists, a call, progress, a
// resource, a prompt, a sampling, an elicitation and a roots round, and a
// call cancelled by its context.
func TestGoClientAgainstPeers(t *testing.T) {
	t.Parallel()
	peers := []peerServer{
		{"ts-sdk-1.32 stdio", tsRefServer(false)},
		{"ts-sdk-1.32 http", tsRefServer(true)},
		{"go-sdk-1.8.0 http", goSDKServer(true)},
		{"go-sdk-1.8.0 stdio", goSDKServer(false)},
	}
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := client.Connect(ctx, p.start(t), &client.Options{
				Info: mcp.Implementation{Name: "mcpchain-e2e", Version: "1.0.0"},
				Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
					return &sampling.Result{Role: mcp.RoleAssistant, Model: "test",
						Content: mcp.TextContent{Text: "model says: " + p.Messages[0].Content.(mcp.TextContent).Text}}, nil
				},
				Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
					return &elicit.Result{Action: "accept", Content: map[string]any{"answer": "42"}}, nil
				},
				Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///work", Name: "work"}}, nil },
			})
			require.NoError(t, err)
			defer func() { assert.NoError(t, c.Close()) }()

			tools, err := c.ListTools(ctx)
			require.NoError(t, err)
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			assert.Subset(t, names, []string{"add", "progress", "slow", "sample", "elicit", "roots"})

			res, err := c.CallTool(ctx, "add", map[string]float64{"a": 2, "b": 3}, nil)
			require.NoError(t, err)
			assert.Equal(t, "5", res.Text())

			var steps []float64
			res, err = c.CallTool(ctx, "progress", nil, &client.CallOptions{Progress: func(p mcp.Progress) { steps = append(steps, p.Progress) }})
			require.NoError(t, err)
			assert.Equal(t, "done", res.Text())
			assert.Equal(t, []float64{1, 2, 3}, steps)

			res, err = c.CallTool(ctx, "sample", map[string]string{"text": "hi"}, nil)
			require.NoError(t, err)
			assert.Equal(t, "model says: hi", res.Text())
			res, err = c.CallTool(ctx, "elicit", nil, nil)
			require.NoError(t, err)
			assert.Contains(t, res.Text(), `"answer":"42"`)
			res, err = c.CallTool(ctx, "roots", nil, nil)
			require.NoError(t, err)
			assert.Contains(t, res.Text(), "file:///work")

			rr, err := c.ReadResource(ctx, "file:///hello.txt")
			require.NoError(t, err)
			assert.Equal(t, "hello", rr.Contents[0].Text)
			pr, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
			require.NoError(t, err)
			assert.Equal(t, "Hello, Ada!", pr.Messages[0].Content.(mcp.TextContent).Text)

			cctx, ccancel := context.WithTimeout(ctx, 300*time.Millisecond)
			start := time.Now()
			_, err = c.CallTool(cctx, "slow", map[string]int{"ms": 900}, nil)
			ccancel()
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Less(t, time.Since(start), 800*time.Millisecond)
			require.NoError(t, c.Ping(ctx), "the session goes on after a cancelled call")
			t.Logf("%s: %d tools, %s", p.name, len(tools), fmt.Sprint(names))
		})
	}
}
