package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
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

// A peer is an MCP server nobody here wrote, with the tool set of
// e2e/node/peer-common.mjs, started for one test over one transport.
type peer struct {
	name  string
	start map[string]func(t *testing.T) client.Transport // by transport name
	// versions are the protocol revisions the client asks for, by
	// transport name; none is mcp.Version20251125, the client's default.
	versions map[string]mcp.Version
	// rev20260728 are the transports over which the server speaks revision
	// 2026-07-28.
	rev20260728 []string
}

// nodePeer runs e2e/node/<script> (a peer on a Node SDK) over stdio as a
// spawned command, or over HTTP at 127.0.0.1 (port 0 unless the script
// needs one picked for it), its process group killed at the end of the test.
func nodePeer(script string, pickPort bool) map[string]func(t *testing.T) client.Transport {
	return map[string]func(t *testing.T) client.Transport{
		"stdio": func(t *testing.T) client.Transport { return client.Command(spawnNodePeer(t, script)) },
		"http": func(t *testing.T) client.Transport {
			return client.HTTP(startNodePeerHTTP(t, script, pickPort), nil)
		},
	}
}

// spawnNodePeer is the command that runs e2e/node/<script> with args, in
// a process group of its own killed at the end of the test; its stderr is
// logged when the test failed.
func spawnNodePeer(t *testing.T, script string, args ...string) *exec.Cmd {
	dir, bin := nodePaths(t)
	cmd := exec.Command(filepath.Join(bin, "node"), append([]string{filepath.Join(dir, script)}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", script, stderr)
		}
	})
	return cmd
}

// startNodePeerHTTP starts e2e/node/<script> --http 127.0.0.1:PORT with
// args and returns the URL it says it listens at.
func startNodePeerHTTP(t *testing.T, script string, pickPort bool, args ...string) string {
	port := 0
	if pickPort {
		port = freePort(t)
	}
	cmd := spawnNodePeer(t, script, append([]string{"--http", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, args...)...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	url, read := make(chan string, 1), make(chan struct{})
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-read // stdout read to its end before Wait closes it
		_ = cmd.Wait()
	})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				select {
				case url <- u:
				default:
				}
			}
		}
	}()
	select {
	case u := <-url:
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it listens", script)
		return ""
	}
}

// goSDKPeer is the tool set on the official Go SDK v1.8.0, in the test's
// process: over Streamable HTTP (stateful), or over the stdio framing on
// pipes, as a spawned go-sdk server would speak it.
func goSDKPeer() map[string]func(t *testing.T) client.Transport {
	newServer := func() *gosdk.Server { return newGoSDKPeerServer(nil) }
	return map[string]func(t *testing.T) client.Transport{
		"stdio": func(t *testing.T) client.Transport { return goSDKStdio(t, newServer(), nil) },
		"http": func(t *testing.T) client.Transport {
			srv := newServer()
			ts := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv }, nil))
			t.Cleanup(ts.Close)
			return client.HTTP(ts.URL, nil)
		},
	}
}

// goSDKStdio serves srv over the stdio framing on pipes, as a spawned
// go-sdk server would speak it; wrap, if not nil, wraps the client's
// writing end (to count what the client sends).
func goSDKStdio(t *testing.T, srv *gosdk.Server, wrap func(io.WriteCloser) io.WriteCloser) client.Transport {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.Connect(ctx, &gosdk.IOTransport{Reader: inR, Writer: outW}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); _ = ss.Close() })
	var w io.WriteCloser = inW
	if wrap != nil {
		w = wrap(inW)
	}
	return client.Stdio(pipeRW{outR, w})
}

// newGoSDKPeerServer is the peer tool set on the go-sdk, with opts (nil
// for the defaults).
func newGoSDKPeerServer(opts *gosdk.ServerOptions) *gosdk.Server {
	var cancelled atomic.Int64
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "peer-go-sdk", Version: "1.0.0"}, opts)
	text := func(s string) *gosdk.CallToolResult {
		return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: s}}}
	}
	gosdk.AddTool(srv, &gosdk.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *gosdk.CallToolRequest, in struct {
			A float64 `json:"a"`
			B float64 `json:"b"`
		}) (*gosdk.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "progress", Description: "Three progress notifications"},
		func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 3; i++ {
					if err := req.Session.NotifyProgress(ctx, &gosdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3}); err != nil {
						return nil, nil, err
					}
				}
			}
			return text("done"), nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "slow", Description: "Sleep ms, counts cancellations"},
		func(ctx context.Context, _ *gosdk.CallToolRequest, in struct {
			MS float64 `json:"ms"`
		}) (*gosdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				cancelled.Add(1)
				return nil, nil, ctx.Err()
			}
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "cancelled", Description: "Cancelled slow calls"},
		func(context.Context, *gosdk.CallToolRequest, struct{}) (*gosdk.CallToolResult, any, error) {
			return text(strconv.FormatInt(cancelled.Load(), 10)), nil, nil
		})
	// At 2026-07-28 the server cannot send requests: sample and
	// elicit ask through input-required results instead.
	rev20260728 := func(req *gosdk.CallToolRequest) bool {
		ip := req.Session.InitializeParams()
		return ip != nil && mcp.Version(ip.ProtocolVersion).Compare(mcp.Version20260728) >= 0
	}
	gosdk.AddTool(srv, &gosdk.Tool{Name: "sample", Description: "Sampling round"},
		func(ctx context.Context, req *gosdk.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*gosdk.CallToolResult, any, error) {
			params := &gosdk.CreateMessageParams{MaxTokens: 100,
				Messages: []*gosdk.SamplingMessage{{Role: "user", Content: &gosdk.TextContent{Text: in.Text}}}}
			var content gosdk.Content
			// The go-sdk reads a sampling answer in inputResponses
			// as the with-tools form: a list of content blocks.
			if r, ok := req.Params.InputResponses["sample"].(*gosdk.CreateMessageWithToolsResult); ok && len(r.Content) > 0 {
				content = r.Content[0]
			} else if rev20260728(req) {
				return &gosdk.CallToolResult{InputRequests: gosdk.InputRequestMap{"sample": params}}, nil, nil
			} else {
				r, err := req.Session.CreateMessage(ctx, params)
				if err != nil {
					return nil, nil, err
				}
				content = r.Content
			}
			if tc, ok := content.(*gosdk.TextContent); ok {
				return text(tc.Text), nil, nil
			}
			b, _ := json.Marshal(content)
			return text(string(b)), nil, nil
		})
	gosdk.AddTool(srv, &gosdk.Tool{Name: "elicit", Description: "Elicitation round"},
		func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			params := &gosdk.ElicitParams{Mode: "form", Message: "Answer?", RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)}
			r, _ := req.Params.InputResponses["answer"].(*gosdk.ElicitResult)
			if r == nil && rev20260728(req) {
				return &gosdk.CallToolResult{InputRequests: gosdk.InputRequestMap{"answer": params}}, nil, nil
			}
			if r == nil {
				var err error
				if r, err = req.Session.Elicit(ctx, params); err != nil {
					return nil, nil, err
				}
			}
			b, _ := json.Marshal(r)
			return text(string(b)), nil, nil
		})
	srv.AddResource(&gosdk.Resource{URI: "file:///hello.txt", Name: "hello", MIMEType: "text/plain"},
		func(context.Context, *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: "file:///hello.txt", MIMEType: "text/plain", Text: "hello"}}}, nil
		})
	srv.AddResourceTemplate(&gosdk.ResourceTemplate{URITemplate: "greeting://{name}", Name: "greeting", MIMEType: "text/plain"},
		func(_ context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			name := strings.TrimPrefix(req.Params.URI, "greeting://")
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello, " + name + "!"}}}, nil
		})
	srv.AddPrompt(&gosdk.Prompt{Name: "greet", Description: "Greet someone", Arguments: []*gosdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *gosdk.GetPromptRequest) (*gosdk.GetPromptResult, error) {
			return &gosdk.GetPromptResult{Messages: []*gosdk.PromptMessage{{Role: "user",
				Content: &gosdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}}}}, nil
		})
	return srv
}

// peers are the servers TestGoClientPeers runs against, each over stdio
// and HTTP.
var peers = []peer{
	// The v2 HTTP entry serves 2025-era requests statelessly, where the
	// answer to a server's request (sampling, elicitation) and
	// notifications/cancelled reach a new server instance: the client
	// speaks 2026-07-28 to it, the revision the entry is built for.
	{"ts-sdk-v2-2.4.0", nodePeer("peer-v2.mjs", false), map[string]mcp.Version{"http": mcp.Version20260728}, []string{"stdio", "http"}},
	{"ts-sdk-v1-1.32.2", nodePeer("peer-v1.mjs", false), nil, nil},
	// The go-sdk's stateful HTTP handler answers a 2026-07-28 request
	// with -32022 naming the 2025 revisions.
	{"go-sdk-1.8.0", goSDKPeer(), nil, []string{"stdio"}},
	{"fastmcp-ts-4.20.16", nodePeer("peer-fastmcp.mjs", true), nil, nil},
	// mcp-go's HTTP entry serves 2025-era requests in a session whose
	// notifications go out on any of its streams
	// (TestGoClientMCPGoStatefulHTTP): the client speaks 2026-07-28 to
	// it, where each request has its own stream.
	{"mcp-go-1.2.1", mcpGoPeer(), map[string]mcp.Version{"http": mcp.Version20260728}, []string{"stdio", "http"}},
}

// TestGoClientPeers runs package client against each peer over each
// transport (subtests peer/transport), with the same assertions: tools
// listed and called, resources listed and read, templates listed and
// read, prompts listed and got, progress seen by the call's callback, a
// call cancelled by its context that the server's tool sees aborted, a
// sampling round answered by Options.Sample and a form elicitation
// answered by Options.Elicit.
func TestGoClientPeers(t *testing.T) {
	t.Parallel()
	runPeers(t, func(p peer, transport string) mcp.Version { return p.versions[transport] })
}

// TestGoClientPeers20260728 is TestGoClientPeers with the client at
// revision 2026-07-28: the v2 server, mcp-go, and the go-sdk over stdio
// speak it (sampling and elicitation as input-required results); the v1 and
// fastmcp servers answer the server/discover probe as servers of the 2025
// era (-32601, or HTTP 400), the go-sdk's HTTP handler with -32022
// naming 2025 revisions, and the client falls back to initialize.
func TestGoClientPeers20260728(t *testing.T) {
	t.Parallel()
	runPeers(t, func(peer, string) mcp.Version { return mcp.Version20260728 })
}

// runPeers runs testPeer on every peer over stdio and HTTP, at the
// revision version names.
func runPeers(t *testing.T, version func(p peer, transport string) mcp.Version) {
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			for _, transport := range []string{"stdio", "http"} {
				t.Run(transport, func(t *testing.T) {
					t.Parallel()
					v := version(p, transport)
					want := mcp.Version20251125
					if v == mcp.Version20260728 && slices.Contains(p.rev20260728, transport) {
						want = v
					}
					testPeer(t, p.start[transport](t), v, want)
				})
			}
		})
	}
}

// testPeer is TestGoClientPeers on one peer over one transport; each
// behaviour is a subtest of its own.
// The client asks for version and must end up at want. With behaviours
// given, only those run.
func testPeer(t *testing.T, tr client.Transport, version, want mcp.Version, behaviours ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, tr, &client.Options{
		Info:            mcp.Implementation{Name: "mcpchain-e2e", Version: "1.0.0"},
		ProtocolVersion: version,
		Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "test",
				Content: mcp.TextContent{Text: "model says: " + p.Messages[0].Content.(mcp.TextContent).Text}}, nil
		},
		Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			if p.Message != "Answer?" {
				return &elicit.Result{Action: "decline"}, nil
			}
			return &elicit.Result{Action: "accept", Content: map[string]any{"answer": "42"}}, nil
		},
	})
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	require.Equal(t, want, c.ProtocolVersion(), "the revision spoken")
	run := func(name string, f func(t *testing.T)) {
		if len(behaviours) == 0 || slices.Contains(behaviours, name) {
			t.Run(name, f)
		}
	}
	call := func(t *testing.T, name string, args any, opts *client.CallOptions) string {
		t.Helper()
		res, err := c.CallTool(ctx, name, args, opts)
		require.NoError(t, err)
		require.False(t, res.IsError, "%s: %s", name, res.Text())
		return res.Text()
	}

	run("tools", func(t *testing.T) {
		tools, err := c.ListTools(ctx)
		require.NoError(t, err)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		assert.ElementsMatch(t, []string{"add", "progress", "slow", "cancelled", "sample", "elicit"}, names)
		assert.Equal(t, "5", call(t, "add", map[string]float64{"a": 2, "b": 3}, nil))
	})
	run("resources", func(t *testing.T) {
		res, err := c.ListResources(ctx)
		require.NoError(t, err)
		require.Len(t, res, 1)
		assert.Equal(t, "file:///hello.txt", res[0].URI)
		rr, err := c.ReadResource(ctx, "file:///hello.txt")
		require.NoError(t, err)
		require.Len(t, rr.Contents, 1)
		assert.Equal(t, "hello", rr.Contents[0].Text)
	})
	run("templates", func(t *testing.T) {
		tpls, err := c.ListResourceTemplates(ctx)
		require.NoError(t, err)
		require.Len(t, tpls, 1)
		assert.Equal(t, "greeting://{name}", tpls[0].URITemplate)
		rr, err := c.ReadResource(ctx, "greeting://Ada")
		require.NoError(t, err)
		require.Len(t, rr.Contents, 1)
		assert.Equal(t, "Hello, Ada!", rr.Contents[0].Text)
	})
	run("prompts", func(t *testing.T) {
		prompts, err := c.ListPrompts(ctx)
		require.NoError(t, err)
		require.Len(t, prompts, 1)
		assert.Equal(t, "greet", prompts[0].Name)
		pr, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
		require.NoError(t, err)
		require.Len(t, pr.Messages, 1)
		assert.Equal(t, "Hello, Ada!", pr.Messages[0].Content.(mcp.TextContent).Text)
	})
	run("progress", func(t *testing.T) {
		var steps []float64
		out := call(t, "progress", nil, &client.CallOptions{Progress: func(p mcp.Progress) {
			steps = append(steps, p.Progress)
			assert.Equal(t, 3.0, p.Total)
		}})
		assert.Equal(t, "done", out)
		assert.Equal(t, []float64{1, 2, 3}, steps)
	})
	run("cancellation", func(t *testing.T) {
		cctx, ccancel := context.WithTimeout(ctx, time.Second)
		start := time.Now()
		_, err := c.CallTool(cctx, "slow", map[string]int{"ms": 20000}, nil)
		ccancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 5*time.Second)
		// The server's tool saw its abort signal.
		require.Eventually(t, func() bool {
			res, err := c.CallTool(ctx, "cancelled", nil, nil)
			return err == nil && res.Text() == "1"
		}, 10*time.Second, 50*time.Millisecond, "the server counts the cancelled call")
		require.NoError(t, c.Ping(ctx), "the session goes on after a cancelled call")
	})
	run("sampling", func(t *testing.T) {
		assert.Equal(t, "model says: hi", call(t, "sample", map[string]string{"text": "hi"}, nil))
	})
	run("elicitation", func(t *testing.T) {
		var r struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		require.NoError(t, json.Unmarshal([]byte(call(t, "elicit", nil, nil)), &r))
		assert.Equal(t, "accept", r.Action)
		assert.Equal(t, map[string]any{"answer": "42"}, r.Content)
	})
}

// TestGoClientV2StatelessHTTP: the v2 HTTP entry serves the client at
// 2025-11-25 statelessly (no session; the SDK answers GET and DELETE with
// 405),
// and what needs no second request to the same instance works: lists,
// reads, prompts and progress.
func TestGoClientV2StatelessHTTP(t *testing.T) {
	t.Parallel()
	testPeer(t, nodePeer("peer-v2.mjs", false)["http"](t), mcp.Version20251125, mcp.Version20251125,
		"tools", "resources", "templates", "prompts", "progress")
}
