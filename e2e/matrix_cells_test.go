package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runGoSDKCell runs the behaviours with the official Go SDK client.
func runGoSDKCell(t *testing.T, c *matrixCell, tr matrixTransport, rev, bin string, servers *matrixServers) {
	var mu sync.Mutex
	var progress []mcp.ProgressNotificationParams
	var logs []mcp.LoggingMessageParams
	sampled, elicited := 0, 0
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpchain-matrix-go", Version: "0.0.1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, *req.Params)
			mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, *req.Params)
			mu.Unlock()
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			sampled++
			mu.Unlock()
			text := ""
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "sampled: " + text}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited++
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///tmp/root1", Name: "root1"})

	var transport mcp.Transport
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	hc := &http.Client{Transport: base}
	switch {
	case tr.name == "stdio":
		transport = stdioServer(t)
	case tr.sse:
		transport = &mcp.SSEClientTransport{Endpoint: servers.url(tr), HTTPClient: hc}
	default:
		transport = &mcp.StreamableClientTransport{Endpoint: servers.url(tr), HTTPClient: hc, MaxRetries: -1}
	}
	var opts *mcp.ClientSessionOptions
	if rev != "default" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: rev}
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
	defer s.Close()
	c.negotiated = s.InitializeResult().ProtocolVersion
	rev20260728 := c.negotiated == rev20260728

	step := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, stepTime) }
	call := func(name string, args any, meta mcp.Meta) (*mcp.CallToolResult, error) {
		sctx, done := step()
		defer done()
		p := &mcp.CallToolParams{Name: name, Arguments: args}
		if meta != nil {
			p.Meta = meta
		}
		return s.CallTool(sctx, p)
	}
	text := func(r *mcp.CallToolResult) string {
		var parts []string
		for _, ct := range r.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				parts = append(parts, tc.Text)
			}
		}
		return strings.Join(parts, "")
	}
	reply := func(ctx context.Context, name string, args map[string]any) (toolReply, error) {
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return toolReply{}, err
		}
		return toolReply{text: text(r), structured: r.StructuredContent, isError: r.IsError, raw: r}, nil
	}
	do := func(name string, f func() (string, error)) {
		detail, err := f()
		c.record(name, err, detail)
	}

	do("list+call", func() (string, error) {
		sctx, done := step()
		defer done()
		tools, err := s.ListTools(sctx, nil)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "add" }) {
			return "", errors.New("tools/list lacks add")
		}
		r, err := call("add", map[string]any{"a": 2, "b": 3}, nil)
		if err != nil {
			return "", err
		}
		if r.IsError || text(r) != "5" {
			return "", fmt.Errorf("add 2+3: %s", dump(r))
		}
		return fmt.Sprintf("%d tools", len(tools.Tools)), nil
	})
	do("structured", func() (string, error) { return checkStructured(ctx, reply) })
	do("bad-arg", func() (string, error) { return checkBadArg(ctx, reply) })
	do("unknown-tool", func() (string, error) {
		_, err := call("nope", map[string]any{}, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			return "", fmt.Errorf("want a -32602 error, got %v", err)
		}
		return "", nil
	})
	do("resources", func() (string, error) {
		sctx, done := step()
		defer done()
		list, err := s.ListResources(sctx, nil)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == "file:///hello.txt" }) {
			return "", errors.New("resources/list lacks file:///hello.txt")
		}
		for uri, want := range map[string]string{"file:///hello.txt": "hello", "greeting://world": "Hello, world!"} {
			rd, err := s.ReadResource(sctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				return "", fmt.Errorf("read %s: %w", uri, err)
			}
			if len(rd.Contents) != 1 || rd.Contents[0].Text != want {
				return "", fmt.Errorf("read %s: %s", uri, dump(rd))
			}
		}
		tpl, err := s.ListResourceTemplates(sctx, nil)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(tpl.ResourceTemplates, func(rt *mcp.ResourceTemplate) bool { return rt.URITemplate == "greeting://{name}" }) {
			return "", errors.New("no greeting://{name} template")
		}
		return "", nil
	})
	do("prompts", func() (string, error) {
		sctx, done := step()
		defer done()
		list, err := s.ListPrompts(sctx, nil)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(list.Prompts, func(p *mcp.Prompt) bool { return p.Name == "greet" }) {
			return "", errors.New("prompts/list lacks greet")
		}
		got, err := s.GetPrompt(sctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(got.Messages, func(m *mcp.PromptMessage) bool {
			tc, ok := m.Content.(*mcp.TextContent)
			return ok && strings.Contains(tc.Text, "Ada")
		}) {
			return "", fmt.Errorf("greet: %s", dump(got))
		}
		return "", nil
	})
	do("progress", func() (string, error) {
		sctx, done := step()
		defer done()
		p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
		p.SetProgressToken("matrix-progress")
		r, err := s.CallTool(sctx, p)
		if err != nil {
			return "", err
		}
		if r.IsError || !strings.Contains(text(r), "done") {
			return "", fmt.Errorf("progress: %s", dump(r))
		}
		deadline := time.Now().Add(stepTime) // a liveness bound: the notifications came with the call
		for {
			mu.Lock()
			n := len(progress)
			mu.Unlock()
			if n == 3 {
				return "", nil
			}
			if time.Now().After(deadline) {
				return "", fmt.Errorf("want 3 progress notifications, got %d", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	do("cancel+more", func() (string, error) { return checkCancelMore(ctx, reply) })
	do("concurrent-20", func() (string, error) { return checkConcurrent(ctx, reply) })
	do("timeout", func() (string, error) { return checkTimeout(ctx, reply) })
	do("logging", func() (string, error) {
		var meta mcp.Meta
		if rev20260728 {
			// 2026-07-28 removed logging/setLevel: the level is in each
			// request's _meta.
			meta = mcp.Meta{"io.modelcontextprotocol/logLevel": "debug"}
		} else {
			sctx, done := step()
			err := s.SetLoggingLevel(sctx, &mcp.SetLoggingLevelParams{Level: "debug"})
			done()
			if err != nil {
				return "", fmt.Errorf("logging/setLevel: %w", err)
			}
		}
		mu.Lock()
		before := len(logs)
		mu.Unlock()
		if _, err := call("progress", map[string]any{}, meta); err != nil {
			return "", err
		}
		deadline := time.Now().Add(stepTime) // a liveness bound: the notifications came with the call
		for {
			mu.Lock()
			got := slices.Clone(logs[before:])
			mu.Unlock()
			if slices.ContainsFunc(got, func(l mcp.LoggingMessageParams) bool { return l.Level == "info" }) {
				return fmt.Sprintf("%d messages", len(got)), nil
			}
			if time.Now().After(deadline) {
				return "", fmt.Errorf("no info log message after setting the level to debug: %s", dump(got))
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	do("sampling", func() (string, error) { return checkSampling(ctx, reply) })
	do("elicitation", func() (string, error) { return checkElicitation(ctx, reply) })
	mu.Lock()
	checkHandlersCalled(c, sampled, elicited)
	mu.Unlock()
}

// tsCellOutput is what node/matrix.mjs prints.
type tsCellOutput struct {
	SDKVersion      string             `json:"sdkVersion"`
	ProtocolVersion string             `json:"protocolVersion"`
	Connect         string             `json:"connect"`
	Fatal           string             `json:"fatal"`
	Results         map[string]outcome `json:"results"`
}

// runTSCell runs node/matrix.mjs for one cell of a TypeScript SDK client.
func runTSCell(t *testing.T, c *matrixCell, sdk, mode string, tr matrixTransport, bin string, servers *matrixServers) {
	args := []string{"matrix.mjs", sdk, mode}
	switch {
	case tr.name == "stdio":
		args = append(args, "stdio", bin)
	case tr.sse:
		args = append(args, "sse", servers.url(tr))
	default:
		args = append(args, "http", servers.url(tr))
	}
	// A liveness bound: a cell takes 5 s alone, 10 s beside a CPU hog,
	// and the matrix runs a dozen cells at a time.
	run := runNode(t, 3*time.Minute, args...)
	var out tsCellOutput
	if err := json.Unmarshal(run.stdout, &out); err != nil {
		c.results["list+call"] = outcome{Status: "fail", Detail: fmt.Sprintf("matrix.mjs printed no result (exit %d): %v; stderr: %s", run.exitCode, err, tail(run.stderr.String(), 800))}
		return
	}
	c.negotiated = out.ProtocolVersion
	if out.Connect != "" || out.Fatal != "" {
		c.results["list+call"] = outcome{Status: "fail", Detail: "connect: " + out.Connect + out.Fatal}
		return
	}
	for _, b := range matrixBehaviours {
		o, ok := out.Results[b]
		if !ok {
			continue
		}
		var err error
		if o.Status != "pass" {
			err = errors.New(o.Detail)
		}
		c.record(b, err, o.Detail)
	}
	if tr.name == "stdio" {
		if strings.Contains(run.stderr.String(), "WARNING: DATA RACE") {
			c.results["list+call"] = outcome{Status: "fail", Detail: "the server reported a data race"}
		}
	}
}

// runInspectorCell runs the behaviours the Inspector CLI can perform, one
// invocation each.
func runInspectorCell(t *testing.T, c *matrixCell, era string, tr matrixTransport, bin string, servers *matrixServers) {
	c.notApplicable("the Inspector CLI sends one request per run: it registers no progress, sampling or elicitation handler, cannot cancel or overlap calls, and prints no log messages",
		"progress", "cancel+more", "concurrent-20", "logging", "sampling", "elicitation")
	var target []string
	switch {
	case tr.name == "stdio":
		target = []string{"--", bin}
	case tr.sse:
		target = []string{"--transport", "sse", "--", servers.url(tr)}
	default:
		target = []string{"--transport", "http", "--", servers.url(tr)}
	}
	inspect := func(args ...string) (*nodeRun, map[string]any, error) {
		full := append([]string{inspectorLauncher, "--cli", "--protocol-era", era}, args...)
		full = append(full, target...)
		run := runNode(t, inspectorTimeout, full...)
		var v map[string]any
		if err := json.Unmarshal(run.stdout, &v); err != nil {
			return run, nil, fmt.Errorf("inspector %s: exit %d, stdout is not JSON (%v); stderr: %s", strings.Join(args, " "), run.exitCode, err, tail(run.stderr.String(), 600))
		}
		return run, v, nil
	}
	callText := func(v map[string]any) string {
		var r inspectorCallResult
		b, _ := json.Marshal(v)
		_ = json.Unmarshal(b, &r)
		var parts []string
		for _, ct := range r.Content {
			parts = append(parts, ct.Text)
		}
		return strings.Join(parts, "")
	}
	do := func(name string, f func() error) { c.record(name, f(), "") }

	do("list+call", func() error {
		_, v, err := inspect("--method", "tools/list")
		if err != nil {
			return err
		}
		if !strings.Contains(dump(v["tools"]), `"name":"add"`) {
			return fmt.Errorf("tools/list lacks add: %s", tail(dump(v), 300))
		}
		run, v, err := inspect("--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=3")
		if err != nil {
			return err
		}
		if run.exitCode != 0 || callText(v) != "5" {
			return fmt.Errorf("add 2+3: exit %d: %s", run.exitCode, dump(v))
		}
		return nil
	})
	do("structured", func() error {
		_, v, err := inspect("--method", "tools/call", "--tool-name", "whoami")
		if err != nil {
			return err
		}
		sc, ok := v["structuredContent"].(map[string]any)
		if !ok || sc["client"] == nil {
			return fmt.Errorf("whoami: no structuredContent with client: %s", dump(v))
		}
		return nil
	})
	do("bad-arg", func() error {
		run, v, err := inspect("--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=two", "--tool-arg", "b=3")
		if err != nil {
			return err
		}
		if run.exitCode != 5 || v["isError"] != true || !mentionsArg(callText(v), "a") {
			return fmt.Errorf("add a=two: want exit 5 and an isError result naming a: exit %d: %s", run.exitCode, dump(v))
		}
		return nil
	})
	do("unknown-tool", func() error {
		full := append([]string{inspectorLauncher, "--cli", "--protocol-era", era, "--method", "tools/call", "--tool-name", "nope"}, target...)
		run := runNode(t, inspectorTimeout, full...)
		if run.exitCode == 0 {
			return fmt.Errorf("tools/call nope succeeded: %s", run.stdout)
		}
		if !strings.Contains(run.stderr.String(), "nope") {
			return fmt.Errorf("exit %d, the error does not name the tool: %s", run.exitCode, tail(run.stderr.String(), 400))
		}
		return nil
	})
	do("resources", func() error {
		for uri, want := range map[string]string{"file:///hello.txt": "hello", "greeting://world": "Hello, world!"} {
			_, v, err := inspect("--method", "resources/read", "--uri", uri)
			if err != nil {
				return err
			}
			if !strings.Contains(dump(v["contents"]), `"text":"`+want+`"`) {
				return fmt.Errorf("read %s: %s", uri, dump(v))
			}
		}
		_, v, err := inspect("--method", "resources/templates/list")
		if err != nil {
			return err
		}
		if !strings.Contains(dump(v), "greeting://{name}") {
			return fmt.Errorf("resources/templates/list: %s", dump(v))
		}
		return nil
	})
	do("prompts", func() error {
		_, v, err := inspect("--method", "prompts/get", "--prompt-name", "greet", "--prompt-args", "name=Ada")
		if err != nil {
			return err
		}
		if !strings.Contains(dump(v["messages"]), "Ada") {
			return fmt.Errorf("greet: %s", dump(v))
		}
		return nil
	})
	do("timeout", func() error {
		start := time.Now()
		run, v, err := inspect("--method", "tools/call", "--tool-name", "slow", "--tool-arg", "ms=3000")
		if err != nil {
			return err
		}
		if run.exitCode != 5 || v["isError"] != true || !timeoutRE.MatchString(callText(v)) {
			return fmt.Errorf("slow 3000: want exit 5 and a timeout isError: exit %d after %v: %s", run.exitCode, time.Since(start), dump(v))
		}
		return nil
	})
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
