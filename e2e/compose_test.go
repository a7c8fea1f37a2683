package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// Composition (mcp.Server.Mount) over real transports and real clients: a
// parent with children, each mounted under its prefix. The children are a
// list, so that one more (a remote server behind a gateway, say) is one
// more composeChild and one more composeCheck.

// init serves the local composition over stdio and exits when the test
// binary runs as the server of TestComposeTypeScriptClient/stdio
// (node/compose.mjs starts it with COMPOSE_STDIO_SERVE=1).
func init() {
	if os.Getenv("COMPOSE_STDIO_SERVE") != "1" {
		return
	}
	children, _ := localComposition()
	if url := os.Getenv("COMPOSE_REMOTE_URL"); url != "" {
		r, err := stdioRemoteChild(url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compose stdio server:", err)
			os.Exit(1)
		}
		children = append(children, r)
	}
	inst, err := mcphttp.Start(context.Background(), composeParent(children), &mcphttp.StartOptions{TransportType: mcphttp.TransportStdio})
	if err == nil {
		err = inst.Wait()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compose stdio server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// composeChild is one server mounted in the parent.
type composeChild struct {
	prefix string
	srv    *mcp.Server
}

// composeCheck is what a client must see of one child: a tool to call
// with its arguments and the text it answers, a resource and its text, a
// prompt and its text. Empty fields are not checked.
type composeCheck struct {
	tool     string
	args     map[string]any
	toolText string
	uri      string
	uriText  string
	prompt   string
	args2    map[string]string
	promptTx string
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// mathChild is a local child: a tool, a resource and a prompt.
func mathChild() (composeChild, composeCheck) {
	s := mcp.NewServer(mcp.Options{Name: "math", Version: "1.0.0", Logger: quiet()})
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	mcp.AddTool(s, mcp.Tool{Name: "add", Description: "Adds two numbers"}, func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	s.AddResource(mcp.Resource{URI: "math://constants", Name: "constants", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "pi=3.14159"}}, nil
		}})
	s.AddPrompt(mcp.Prompt{Name: "explain", Arguments: []mcp.PromptArgument{{Name: "topic", Required: true}},
		Load: func(_ context.Context, _ *mcp.Context, a map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Explain " + a["topic"] + "."), nil
		}})
	return composeChild{"math", s}, composeCheck{
		tool: "math_add", args: map[string]any{"a": 2, "b": 3}, toolText: "5",
		uri: "math://math/constants", uriText: "pi=3.14159",
		prompt: "math_explain", args2: map[string]string{"topic": "sums"}, promptTx: "Explain sums.",
	}
}

// notesChild is a local child: a template, the tool whoami (its caller's
// session, which must be the parent's), and the tool grow, which
// registers the tool late in this child while the parent serves it.
func notesChild() (composeChild, composeCheck) {
	s := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: quiet()})
	s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "notes://note/{id}", Name: "note", MIMEType: "text/plain",
		Load: func(_ context.Context, _ *mcp.Context, a map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "note " + a["id"]}}, nil
		}})
	mcp.AddTool(s, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	mcp.AddTool(s, mcp.Tool{Name: "grow"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "grown", mcp.TryAddTool(s.Registry(), mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "late", nil
		})
	})
	return composeChild{"notes", s}, composeCheck{uri: "notes://notes/note/7", uriText: "note 7"}
}

// localComposition is the two local children and what to check of them.
func localComposition() ([]composeChild, []composeCheck) {
	m, mc := mathChild()
	n, nc := notesChild()
	return []composeChild{m, n}, []composeCheck{mc, nc}
}

// composeParent builds the parent: its own tool whoami, then every child
// mounted under its prefix.
func composeParent(children []composeChild) *mcp.Server {
	parent := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0", Logger: quiet()})
	mcp.AddTool(parent, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	for _, c := range children {
		parent.Mount(c.prefix, c.srv, nil)
	}
	return parent
}

// serveComposeHTTP serves srv over Streamable HTTP and returns its URL.
func serveComposeHTTP(t testing.TB, srv *mcp.Server) string {
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL
}

// pipeEnd is the client's end of an in-process stdio connection; Close
// closes both directions, so the client's reader ends too.
type pipeEnd struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipeEnd) Close() error {
	err := p.w.Close()
	_ = p.ReadCloser.Close()
	return err
}

// serveComposeStdio serves srv with the stdio transport over pipes and
// returns the client's end, as reader and writer.
func serveComposeStdio(t testing.TB, srv *mcp.Server) (io.ReadCloser, io.WriteCloser) {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportStdio, Stdin: serverIn, Stdout: serverOut,
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = clientOut.Close()
		_ = inst.Close()
		_ = inst.Wait()
		_ = serverOut.Close()
	})
	return clientIn, clientOut
}

// wantTools are tools every composition lists before grow (a child may
// list more).
func wantTools(checks []composeCheck) []string {
	out := []string{"whoami", "notes_whoami", "notes_grow", "remote_grow", "remote_sample"}
	for _, c := range checks {
		if c.tool != "" {
			out = append(out, c.tool)
		}
	}
	return out
}

// TestComposeGoSDK: go-sdk v1.8.0 over Streamable HTTP and stdio, against
// a parent with two local children and a remote one (a TypeScript SDK
// server behind a mounted gateway): lists, calls, reads and gets through
// the prefixes, the child's tool sees the parent's session, the remote
// tool's sampling request reaches the client, and a tool a child (local
// or remote) registers at run time reaches the client as list_changed.
func TestComposeGoSDK(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		children, checks, _ := fullComposition(t)
		parent := composeParent(children)
		var changed atomic.Int32
		cl := sdk.NewClient(&sdk.Implementation{Name: "e2e-compose", Version: "0.0.1"}, &sdk.ClientOptions{
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed.Add(1) },
			CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
				text := req.Params.Messages[0].Content.(*sdk.TextContent).Text
				return &sdk.CreateMessageResult{Role: "assistant", Model: "go-sdk", Content: &sdk.TextContent{Text: "go-sdk says " + text}}, nil
			},
		})
		var tr sdk.Transport
		if kind == httpTransport {
			tr = &sdk.StreamableClientTransport{Endpoint: serveComposeHTTP(t, parent), MaxRetries: -1}
		} else {
			r, w := serveComposeStdio(t, parent)
			tr = &sdk.IOTransport{Reader: r, Writer: w}
		}
		ctx := testContext(t, 30*time.Second)
		s, err := cl.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })

		names := func() []string {
			res, err := s.ListTools(ctx, nil)
			require.NoError(t, err)
			var out []string
			for _, tl := range res.Tools {
				out = append(out, tl.Name)
			}
			return out
		}
		call := func(name string, args map[string]any) string {
			if args == nil {
				args = map[string]any{}
			}
			res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
			require.NoError(t, err, name)
			require.False(t, res.IsError, "%s: %s", name, dump(res.Content))
			require.Len(t, res.Content, 1)
			return res.Content[0].(*sdk.TextContent).Text
		}
		assert.Subset(t, names(), wantTools(checks))
		for _, c := range checks {
			if c.tool != "" {
				assert.Equal(t, c.toolText, call(c.tool, c.args), c.tool)
			}
			if c.uri != "" {
				r, err := s.ReadResource(ctx, &sdk.ReadResourceParams{URI: c.uri})
				require.NoError(t, err, c.uri)
				require.Len(t, r.Contents, 1)
				assert.Equal(t, c.uriText, r.Contents[0].Text, c.uri)
				assert.Equal(t, c.uri, r.Contents[0].URI)
			}
			if c.prompt != "" {
				p, err := s.GetPrompt(ctx, &sdk.GetPromptParams{Name: c.prompt, Arguments: c.args2})
				require.NoError(t, err, c.prompt)
				assert.Equal(t, c.promptTx, p.Messages[0].Content.(*sdk.TextContent).Text)
			}
		}
		templates, err := s.ListResourceTemplates(ctx, nil)
		require.NoError(t, err)
		var uriTemplates []string
		for _, tm := range templates.ResourceTemplates {
			uriTemplates = append(uriTemplates, tm.URITemplate)
		}
		assert.Contains(t, uriTemplates, "notes://notes/note/{id}")

		id := call("whoami", nil)
		require.NotEmpty(t, id)
		assert.Equal(t, id, call("notes_whoami", nil), "the child's tool runs in the parent's session")

		assert.Equal(t, "grown", call("notes_grow", nil))
		require.Eventually(t, func() bool { return changed.Load() > 0 }, 10*time.Second, 10*time.Millisecond, "tools/list_changed")
		assert.Contains(t, names(), "notes_late")
		assert.Equal(t, "late", call("notes_late", nil))

		assert.Equal(t, "go-sdk says hi", call("remote_sample", map[string]any{"text": "hi"}), "the remote's sampling request reached the parent's client")
		before := changed.Load()
		assert.Equal(t, "grown", call("remote_grow", nil))
		require.Eventually(t, func() bool { return changed.Load() > before }, 10*time.Second, 10*time.Millisecond, "tools/list_changed from the remote")
		require.Eventually(t, func() bool { return slices.Contains(names(), "remote_late") }, 10*time.Second, 20*time.Millisecond)
		assert.Equal(t, "remote late", call("remote_late", nil))
	})
}

// TestComposeClient: package client over every transport it has in
// process (InProcess, Streamable HTTP, stdio), against the same parent;
// when the client's session ends, the gateway's upstream session for it
// is closed.
func TestComposeClient(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"inprocess", "http", "stdio"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			children, checks, gw := fullComposition(t)
			parent := composeParent(children)
			var tr client.Transport
			switch kind {
			case "inprocess":
				h := mcphttp.New(parent, nil)
				t.Cleanup(func() { _ = h.Close() })
				tr = client.InProcess(h, nil)
			case "http":
				tr = client.HTTP(serveComposeHTTP(t, parent), nil)
			case "stdio":
				r, w := serveComposeStdio(t, parent)
				tr = client.Stdio(pipeEnd{r, w})
			}
			changed := make(chan struct{}, 8)
			ctx := testContext(t, 30*time.Second)
			c, err := client.Connect(ctx, tr, &client.Options{
				OnToolsChanged: func() { changed <- struct{}{} },
				Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
					text := p.Messages[0].Content.(mcp.TextContent).Text
					return &sampling.Result{Role: mcp.RoleAssistant, Model: "client", Content: mcp.TextContent{Text: "client says " + text}}, nil
				},
			})
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })

			names := func() []string {
				tools, err := c.ListTools(ctx)
				require.NoError(t, err)
				var out []string
				for _, tl := range tools {
					out = append(out, tl.Name)
				}
				return out
			}
			call := func(name string, args map[string]any) string {
				res, err := c.CallTool(ctx, name, args, nil)
				require.NoError(t, err, name)
				require.False(t, res.IsError, "%s: %s", name, res.Text())
				return res.Text()
			}
			assert.Subset(t, names(), wantTools(checks))
			for _, ch := range checks {
				if ch.tool != "" {
					assert.Equal(t, ch.toolText, call(ch.tool, ch.args), ch.tool)
				}
				if ch.uri != "" {
					r, err := c.ReadResource(ctx, ch.uri)
					require.NoError(t, err, ch.uri)
					require.Len(t, r.Contents, 1)
					assert.Equal(t, ch.uriText, r.Contents[0].Text)
				}
				if ch.prompt != "" {
					p, err := c.GetPrompt(ctx, ch.prompt, ch.args2)
					require.NoError(t, err, ch.prompt)
					assert.Equal(t, ch.promptTx, p.Messages[0].Content.(mcp.TextContent).Text)
				}
			}
			assert.Equal(t, call("whoami", nil), call("notes_whoami", nil))

			assert.Equal(t, "grown", call("notes_grow", nil))
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal("no notifications/tools/list_changed")
			}
			assert.Contains(t, names(), "notes_late")
			assert.Equal(t, "late", call("notes_late", nil))

			assert.Equal(t, "client says hi", call("remote_sample", map[string]any{"text": "hi"}))
			assert.Equal(t, 1, gw.Sessions(), "the parent's session has its own upstream session")
			for len(changed) > 0 {
				<-changed
			}
			assert.Equal(t, "grown", call("remote_grow", nil))
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal("no notifications/tools/list_changed from the remote")
			}
			require.Eventually(t, func() bool { return slices.Contains(names(), "remote_late") }, 10*time.Second, 20*time.Millisecond)
			assert.Equal(t, "remote late", call("remote_late", nil))

			require.NoError(t, c.Close())
			require.Eventually(t, func() bool { return gw.Sessions() == 0 }, 10*time.Second, 20*time.Millisecond,
				"the end of the parent's session closed the gateway's upstream session")
		})
	}
}

// TestComposeTypeScriptClient: the official TypeScript SDK client (1.32.2)
// over Streamable HTTP and stdio (this test binary as the server, see
// init), against the same parent (node/compose.mjs).
func TestComposeTypeScriptClient(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		url := startRemoteServer(t)
		children, checks := localComposition()
		target := "stdio:" + os.Args[0]
		if kind == httpTransport {
			g, err := remoteGateway(testContext(t, 30*time.Second), url)
			require.NoError(t, err)
			t.Cleanup(func() { _ = g.Close() })
			children = append(children, composeChild{"remote", g.Server()})
			target = serveComposeHTTP(t, composeParent(children))
		}
		checks = append(checks, remoteCheck)
		var c composeCheck
		for _, x := range checks {
			if x.tool == "math_add" {
				c = x
			}
		}
		args, _ := json.Marshal(c.args)
		pargs, _ := json.Marshal(c.args2)
		remote, _ := json.Marshal(map[string]any{"tool": remoteCheck.tool, "args": remoteCheck.args, "uri": remoteCheck.uri,
			"prompt": remoteCheck.prompt, "promptArgs": remoteCheck.args2})
		r := runNodeEnv(t, 60*time.Second, []string{"COMPOSE_REMOTE_URL=" + url},
			"compose.mjs", target, c.tool, string(args), c.uri, "notes://notes/note/7", c.prompt, string(pargs), string(remote))
		require.Equal(t, 0, r.exitCode, "stderr:\n%s\nstdout:\n%s", r.stderr, r.stdout)
		var out struct {
			Tools        []string `json:"tools"`
			ToolText     string   `json:"toolText"`
			Resource     string   `json:"resource"`
			Template     string   `json:"template"`
			Prompt       string   `json:"prompt"`
			SameSession  bool     `json:"sameSession"`
			ListChanged  int      `json:"listChanged"`
			ToolsAfter   []string `json:"toolsAfter"`
			LateText     string   `json:"lateText"`
			Error        string   `json:"error"`
			Templates    []string `json:"templates"`
			ResourceURIs []string `json:"resources"`
			Remote       struct {
				ToolText    string   `json:"toolText"`
				Resource    string   `json:"resource"`
				Prompt      string   `json:"prompt"`
				Sample      string   `json:"sample"`
				ListChanged int      `json:"listChanged"`
				Before      int      `json:"listChangedBefore"`
				ToolsAfter  []string `json:"toolsAfter"`
				LateText    string   `json:"lateText"`
			} `json:"remote"`
		}
		require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
		require.Empty(t, out.Error)
		assert.Subset(t, out.Tools, wantTools(checks))
		assert.Equal(t, c.toolText, out.ToolText)
		assert.Equal(t, c.uriText, out.Resource)
		assert.Equal(t, "note 7", out.Template)
		assert.Equal(t, c.promptTx, out.Prompt)
		assert.True(t, out.SameSession, "the child's tool saw the parent's session")
		assert.Contains(t, out.ResourceURIs, "math://math/constants")
		assert.Contains(t, out.Templates, "notes://notes/note/{id}")
		assert.Positive(t, out.ListChanged)
		assert.True(t, slices.Contains(out.ToolsAfter, "notes_late"), "%v", out.ToolsAfter)
		assert.Equal(t, "late", out.LateText)

		assert.Equal(t, remoteCheck.toolText, out.Remote.ToolText)
		assert.Equal(t, remoteCheck.uriText, out.Remote.Resource)
		assert.Equal(t, remoteCheck.promptTx, out.Remote.Prompt)
		assert.Equal(t, "ts says hi", out.Remote.Sample, "the remote's sampling request reached the parent's client")
		assert.Greater(t, out.Remote.ListChanged, out.Remote.Before, "list_changed from the remote")
		assert.Contains(t, out.Remote.ToolsAfter, "remote_late")
		assert.Equal(t, "remote late", out.Remote.LateText)
	})
}
