package e2e

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/sampling"
)

// mcpchainRevisions are the revisions the mcpchain client's row pins:
// its default (2025-11-25), 2026-07-28 (server/discover, no session) and
// 2025-03-26; over HTTP+SSE, that transport's one revision.
var mcpchainRevisions = []string{"default", "2026-07-28", "2025-03-26"}

// runMcpchainCell performs the matrix's behaviours with mcpchain's own
// client (package client), as runGoSDKCell does with go-sdk's.
func runMcpchainCell(c *matrixCell, tr matrixTransport, rev, bin string, servers *matrixServers) {
	var mu sync.Mutex
	var logs []mcp.LogMessage
	sampled, elicited := 0, 0
	opts := &client.Options{
		Info: mcp.Implementation{Name: "mcpchain-matrix", Version: "0.0.1"},
		OnLog: func(m mcp.LogMessage) {
			mu.Lock()
			logs = append(logs, m)
			mu.Unlock()
		},
		Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
			mu.Lock()
			sampled++
			mu.Unlock()
			text := ""
			if len(p.Messages) > 0 {
				if tc, ok := p.Messages[0].Content.(mcp.TextContent); ok {
					text = tc.Text
				} else if tc, ok := p.Messages[0].Content.(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "test-model", Content: mcp.TextContent{Text: "sampled: " + text}}, nil
		},
		Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			mu.Lock()
			elicited++
			mu.Unlock()
			return &elicit.Result{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///tmp/root1", Name: "root1"}}, nil
		},
	}
	if rev != "default" {
		opts.ProtocolVersion = mcp.Version(rev)
	}
	var transport client.Transport
	stderr := &syncBuffer{}
	switch {
	case tr.name == "stdio":
		cmd := exec.Command(bin)
		cmd.Stderr = stderr
		transport = client.Command(cmd)
	case tr.sse:
		transport = client.LegacySSE(servers.url(tr), nil)
	default:
		transport = client.HTTP(servers.url(tr), nil)
	}
	// A liveness bound for the whole cell, as runTSCell has.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := client.Connect(ctx, transport, opts)
	if err != nil {
		c.skip = "connect failed: " + err.Error()
		c.results["list+call"] = outcome{Status: "fail", Detail: "connect: " + err.Error()}
		return
	}
	defer func() {
		_ = s.Close()
		if tr.name == "stdio" && strings.Contains(stderr.String(), "WARNING: DATA RACE") {
			c.results["list+call"] = outcome{Status: "fail", Detail: "the server reported a data race"}
		}
	}()
	c.negotiated = string(s.ProtocolVersion())

	step := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, stepTime) }
	call := func(name string, args any, o *client.CallOptions) (*mcp.ContentResult, error) {
		sctx, done := step()
		defer done()
		return s.CallTool(sctx, name, args, o)
	}
	reply := func(ctx context.Context, name string, args map[string]any) (toolReply, error) {
		r, err := s.CallTool(ctx, name, args, nil)
		if err != nil {
			return toolReply{}, err
		}
		return toolReply{text: r.Text(), structured: r.StructuredContent, isError: r.IsError, raw: r}, nil
	}
	do := func(name string, f func() (string, error)) {
		detail, err := f()
		c.record(name, err, detail)
	}
	do("list+call", func() (string, error) {
		sctx, done := step()
		defer done()
		tools, err := s.ListTools(sctx)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(tools, func(tl mcp.Tool) bool { return tl.Name == "add" }) {
			return "", errors.New("tools/list lacks add")
		}
		r, err := call("add", map[string]any{"a": 2, "b": 3}, nil)
		if err != nil {
			return "", err
		}
		if r.IsError || r.Text() != "5" {
			return "", fmt.Errorf("add 2+3: %s", dump(r))
		}
		return fmt.Sprintf("%d tools", len(tools)), nil
	})
	do("structured", func() (string, error) { return checkStructured(ctx, reply) })
	do("bad-arg", func() (string, error) { return checkBadArg(ctx, reply) })
	do("unknown-tool", func() (string, error) {
		_, err := call("nope", map[string]any{}, nil)
		var rpcErr *mcp.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
			return "", fmt.Errorf("want a -32602 error, got %v", err)
		}
		return "", nil
	})
	do("resources", func() (string, error) {
		sctx, done := step()
		defer done()
		list, err := s.ListResources(sctx)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(list, func(r mcp.Resource) bool { return r.URI == "file:///hello.txt" }) {
			return "", errors.New("resources/list lacks file:///hello.txt")
		}
		for uri, want := range map[string]string{"file:///hello.txt": "hello", "greeting://world": "Hello, world!"} {
			rd, err := s.ReadResource(sctx, uri)
			if err != nil {
				return "", fmt.Errorf("read %s: %w", uri, err)
			}
			if len(rd.Contents) != 1 || rd.Contents[0].Text != want {
				return "", fmt.Errorf("read %s: %s", uri, dump(rd))
			}
		}
		tpl, err := s.ListResourceTemplates(sctx)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(tpl, func(rt mcp.ResourceTemplate) bool { return rt.URITemplate == "greeting://{name}" }) {
			return "", errors.New("no greeting://{name} template")
		}
		return "", nil
	})
	do("prompts", func() (string, error) {
		sctx, done := step()
		defer done()
		list, err := s.ListPrompts(sctx)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(list, func(p mcp.Prompt) bool { return p.Name == "greet" }) {
			return "", errors.New("prompts/list lacks greet")
		}
		got, err := s.GetPrompt(sctx, "greet", map[string]string{"name": "Ada"})
		if err != nil {
			return "", err
		}
		if !strings.Contains(dump(got.Messages), "Ada") {
			return "", fmt.Errorf("greet: %s", dump(got))
		}
		return "", nil
	})
	do("progress", func() (string, error) {
		var n int
		r, err := call("progress", map[string]any{}, &client.CallOptions{Progress: func(mcp.Progress) {
			mu.Lock()
			n++
			mu.Unlock()
		}, AfterNotifications: true})
		if err != nil {
			return "", err
		}
		if r.IsError || !strings.Contains(r.Text(), "done") {
			return "", fmt.Errorf("progress: %s", dump(r))
		}
		mu.Lock()
		defer mu.Unlock()
		if n != 3 {
			return "", fmt.Errorf("want 3 progress notifications before the result, got %d", n)
		}
		return "", nil
	})
	do("cancel+more", func() (string, error) { return checkCancelMore(ctx, reply) })
	do("concurrent-20", func() (string, error) { return checkConcurrent(ctx, reply) })
	do("timeout", func() (string, error) { return checkTimeout(ctx, reply) })
	do("logging", func() (string, error) {
		// At 2026-07-28 the client carries the level in each request's
		// _meta; before, it sends logging/setLevel.
		sctx, done := step()
		err := s.SetLogLevel(sctx, mcp.LevelDebug)
		done()
		if err != nil {
			return "", fmt.Errorf("set the log level: %w", err)
		}
		mu.Lock()
		before := len(logs)
		mu.Unlock()
		if _, err := call("progress", map[string]any{}, &client.CallOptions{AfterNotifications: true}); err != nil {
			return "", err
		}
		mu.Lock()
		got := slices.Clone(logs[before:])
		mu.Unlock()
		if !slices.ContainsFunc(got, func(l mcp.LogMessage) bool { return l.Level == mcp.LevelInfo }) {
			return "", fmt.Errorf("no info log message after setting the level to debug: %s", dump(got))
		}
		return fmt.Sprintf("%d messages", len(got)), nil
	})
	do("sampling", func() (string, error) { return checkSampling(ctx, reply) })
	do("elicitation", func() (string, error) { return checkElicitation(ctx, reply) })
	mu.Lock()
	checkHandlersCalled(c, sampled, elicited)
	mu.Unlock()
}
