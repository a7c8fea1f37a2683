package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// legacyProtocol is the protocol version the main suite pins. go-sdk v1.8.0
// defaults to 2026-07-28, which has no initialize, no sessions and no
// logging/setLevel; TestLatestProtocol covers that default separately.
const legacyProtocol = "2025-11-25"

type transportKind string

const (
	stdioTransport transportKind = "stdio"
	httpTransport  transportKind = "http"
)

var transports = []transportKind{stdioTransport, httpTransport}

// forEachTransport runs f as a parallel subtest per transport.
func forEachTransport(t *testing.T, f func(t *testing.T, kind transportKind)) {
	t.Helper()
	t.Parallel()
	for _, kind := range transports {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			f(t, kind)
		})
	}
}

// notes collects notifications delivered to a client handler.
type notes[T any] struct {
	mu    sync.Mutex
	items []T
}

func (n *notes[T]) add(v T) {
	n.mu.Lock()
	n.items = append(n.items, v)
	n.mu.Unlock()
}

func (n *notes[T]) get() []T {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.items)
}

// clientEnv is a connected go-sdk client and what it observed.
type clientEnv struct {
	session  *mcp.ClientSession
	wire     *wireRecorder
	progress *notes[mcp.ProgressNotificationParams]
	logs     *notes[mcp.LoggingMessageParams]
	endpoint string       // http only
	http     *http.Client // http only
}

type connectOptions struct {
	protocolVersion string // "" means the go-sdk default
}

// connect starts a fresh everything server on the given transport and
// connects a go-sdk client to it, pinned to legacyProtocol.
func connect(t *testing.T, kind transportKind) *clientEnv {
	return connectWith(t, kind, connectOptions{protocolVersion: legacyProtocol})
}

func connectWith(t *testing.T, kind transportKind, o connectOptions) *clientEnv {
	t.Helper()
	env := &clientEnv{
		wire:     &wireRecorder{},
		progress: &notes[mcp.ProgressNotificationParams]{},
		logs:     &notes[mcp.LoggingMessageParams]{},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpchain-e2e", Version: "0.0.1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			env.progress.add(*req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			env.logs.add(*req.Params)
		},
	})

	var transport mcp.Transport
	switch kind {
	case stdioTransport:
		transport = &recordingTransport{Transport: stdioServer(t), rec: env.wire}
	case httpTransport:
		env.endpoint = httpServer(t)
		base := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(base.CloseIdleConnections)
		env.http = &http.Client{Transport: &recordingRoundTripper{base: base, rec: env.wire}}
		transport = &mcp.StreamableClientTransport{Endpoint: env.endpoint, HTTPClient: env.http, MaxRetries: -1}
	default:
		t.Fatalf("unknown transport %q", kind)
	}

	var opts *mcp.ClientSessionOptions
	if o.protocolVersion != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: o.protocolVersion}
	}
	session, err := client.Connect(testContext(t, 10*time.Second), transport, opts)
	require.NoError(t, err, "connect over %s", kind)
	env.session = session
	t.Cleanup(func() { _ = session.Close() })
	t.Cleanup(func() {
		if fails := env.wire.failures(); len(fails) > 0 {
			t.Errorf("wire recorder could not decode: %v", fails)
		}
	})
	return env
}

// callTool calls a tool and requires a protocol-level success (the result
// itself may still be an isError result).
func (e *clientEnv) callTool(t *testing.T, ctx context.Context, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tools/call %s %v", name, args)
	require.NotNil(t, res)
	return res
}

// onlyText requires a single text content block and returns its text.
func onlyText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1, "want exactly one content block, got %s", dump(res))
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "want text content, got %T", res.Content[0])
	return tc.Text
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// requireRPCError requires err to carry a JSON-RPC error with the given code.
func requireRPCError(t *testing.T, err error, code int64) *jsonrpc.Error {
	t.Helper()
	require.Error(t, err)
	var rpcErr *jsonrpc.Error
	require.True(t, errors.As(err, &rpcErr), "want a JSON-RPC error, got %T: %v", err, err)
	require.Equal(t, code, rpcErr.Code, "JSON-RPC error code; error: %v", err)
	return rpcErr
}

// mentionsArg reports whether msg names the argument name as a token: quoted,
// as a JSON pointer, as "name:" or after a word such as "property".
func mentionsArg(msg, name string) bool {
	q := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(?i)([\x60"'/]` + q + `([\x60"']|\b)` +
		`|\b(property|properties|argument|arguments|field|fields|parameter|parameters|param|key)\s+[\x60"']?` + q + `\b` +
		`|\b` + q + `\s*:` +
		`|\b` + q + `\b\s+(is|must|should|was|field|property|argument))`)
	return re.MatchString(msg)
}

var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

func TestInitialize(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		res := env.session.InitializeResult()
		require.NotNil(t, res)
		require.Equal(t, legacyProtocol, res.ProtocolVersion)
		require.NotNil(t, res.ServerInfo)
		require.Equal(t, "everything", res.ServerInfo.Name)
		require.Regexp(t, semverRE, res.ServerInfo.Version, "server version must be semver")
		caps := res.Capabilities
		require.NotNil(t, caps)
		require.NotNil(t, caps.Tools, "tools capability")
		require.NotNil(t, caps.Resources, "resources capability")
		require.NotNil(t, caps.Prompts, "prompts capability")
		require.NotNil(t, caps.Logging, "logging capability")
		require.NotNil(t, caps.Completions, "completions capability")
		require.NoError(t, env.session.Ping(testContext(t, 5*time.Second), nil))
	})
}

func TestToolsList(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		res, err := env.session.ListTools(testContext(t, 5*time.Second), nil)
		require.NoError(t, err)
		byName := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			byName[tool.Name] = tool
		}
		for _, name := range []string{"add", "echo", "slow", "progress", "fail_user", "fail_internal", "whoami"} {
			require.Contains(t, byName, name, "tools/list must list %q", name)
		}

		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		raw, err := json.Marshal(byName["add"].InputSchema)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &schema), "add inputSchema: %s", raw)
		require.Equal(t, "object", schema.Type, "add inputSchema: %s", raw)
		for _, p := range []string{"a", "b"} {
			require.Contains(t, schema.Properties, p, "add inputSchema: %s", raw)
			require.Equal(t, "number", schema.Properties[p].Type, "type of %q in %s", p, raw)
		}
		require.Subset(t, schema.Required, []string{"a", "b"}, "add inputSchema: %s", raw)
	})
}

func TestToolCalls(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		args     any
		wantText string
		anyText  bool
	}{
		{name: "add integers", tool: "add", args: map[string]any{"a": 2, "b": 3}, wantText: "5"},
		{name: "add floats", tool: "add", args: map[string]any{"a": 0.1, "b": 0.2}, wantText: "0.30000000000000004"},
		{name: "echo", tool: "echo", args: map[string]any{"text": "hi"}, wantText: "hi"},
		{name: "slow under its timeout", tool: "slow", args: map[string]any{"ms": 50}, anyText: true},
	}
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				res := env.callTool(t, testContext(t, 5*time.Second), tc.tool, tc.args)
				require.False(t, res.IsError, "unexpected isError result: %s", dump(res))
				if tc.anyText {
					return
				}
				require.Equal(t, tc.wantText, onlyText(t, res))
			})
		}
	})
}

func TestArgumentValidation(t *testing.T) {
	// SEP-1303: a validation failure is an isError result whose text names
	// the argument and the broken constraint.
	tests := []struct {
		name       string
		args       any
		wantArgs   []string       // the text must name one of these
		constraint *regexp.Regexp // and the constraint
	}{
		{
			name:       "wrong type",
			args:       map[string]any{"a": "x", "b": 1},
			wantArgs:   []string{"a"},
			constraint: regexp.MustCompile(`(?i)number|type`),
		},
		{
			name:       "all missing",
			args:       map[string]any{},
			wantArgs:   []string{"a", "b"},
			constraint: regexp.MustCompile(`(?i)required|missing`),
		},
		{
			name:       "b missing",
			args:       map[string]any{"a": 1},
			wantArgs:   []string{"b"},
			constraint: regexp.MustCompile(`(?i)required|missing`),
		},
	}
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				res := env.callTool(t, testContext(t, 5*time.Second), "add", tc.args)
				require.True(t, res.IsError, "want an isError result, got %s", dump(res))
				text := onlyText(t, res)
				t.Logf("validation error: %q", text)
				named := slices.ContainsFunc(tc.wantArgs, func(a string) bool { return mentionsArg(text, a) })
				require.True(t, named, "error text %q must name one of the arguments %q", text, tc.wantArgs)
				require.Regexp(t, tc.constraint, text, "error text must name the broken constraint")
			})
		}
	})
}

// TestOptionalNullArgument: a client's null for an optional argument is
// taken as the argument left out (the Go SDK sends a nil map value as
// null); null for a required one is an isError naming it.
func TestOptionalNullArgument(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		ctx := testContext(t, 10*time.Second)
		res := env.callTool(t, ctx, "dice", map[string]any{"seed": nil})
		require.False(t, res.IsError, "dice with a null seed: %s", dump(res))
		res = env.callTool(t, ctx, "add", map[string]any{"a": nil, "b": 1})
		require.True(t, res.IsError, "add with a null a: %s", dump(res))
		require.Contains(t, onlyText(t, res), `argument "a" is required and cannot be null`)
	})
}

func TestToolErrors(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		ctx := testContext(t, 10*time.Second)

		res := env.callTool(t, ctx, "fail_user", nil)
		require.True(t, res.IsError, "fail_user: %s", dump(res))
		require.Equal(t, "this is a user error", onlyText(t, res))

		res = env.callTool(t, ctx, "fail_internal", nil)
		require.True(t, res.IsError, "fail_internal: %s", dump(res))
		t.Logf("panic result: %q", onlyText(t, res))
		require.Contains(t, onlyText(t, res), "fail_internal")

		// The panic did not take the server (or the session) down.
		res = env.callTool(t, ctx, "add", map[string]any{"a": 2, "b": 3})
		require.False(t, res.IsError, "add after panic: %s", dump(res))
		require.Equal(t, "5", onlyText(t, res))
	})
}

func TestUnknownTool(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		_, err := env.session.CallTool(testContext(t, 5*time.Second), &mcp.CallToolParams{Name: "nope"})
		requireRPCError(t, err, jsonrpc.CodeInvalidParams)
	})
}

// hasProgressToken matches outgoing params whose _meta carries token.
func hasProgressToken(token string) func(json.RawMessage) bool {
	return func(params json.RawMessage) bool {
		var p struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		}
		return json.Unmarshal(params, &p) == nil && fmt.Sprint(p.Meta.ProgressToken) == token
	}
}

func TestProgressAndLogging(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		ctx := testContext(t, 10*time.Second)
		require.NoError(t, env.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}))

		token := "progress-" + string(kind)
		params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
		params.SetProgressToken(token)
		res, err := env.session.CallTool(ctx, params)
		require.NoError(t, err)
		require.False(t, res.IsError, "progress: %s", dump(res))
		require.Equal(t, "done", onlyText(t, res))

		// Wire order: all three progress notifications precede the result.
		msgs := env.wire.snapshot()
		id, ok := callID(msgs, "tools/call", hasProgressToken(token))
		require.True(t, ok, "the outgoing tools/call with progressToken %q was not recorded", token)
		respAt := responseIndex(msgs, id)
		require.GreaterOrEqual(t, respAt, 0, "no response to request %s recorded", id)
		type prog struct{ Progress, Total float64 }
		var before, after []prog
		for i, m := range msgs {
			if !m.In || m.Method != "notifications/progress" {
				continue
			}
			var p mcp.ProgressNotificationParams
			require.NoError(t, json.Unmarshal(m.Params, &p))
			if fmt.Sprint(p.ProgressToken) != token {
				continue
			}
			if i < respAt {
				before = append(before, prog{p.Progress, p.Total})
			} else {
				after = append(after, prog{p.Progress, p.Total})
			}
		}
		want := []prog{{1, 3}, {2, 3}, {3, 3}}
		require.Equal(t, want, before, "progress notifications before the result (after it: %v)", after)
		require.Empty(t, after, "progress notifications after the result")

		// The handler sees them too (it runs asynchronously to the response).
		require.Eventually(t, func() bool { return len(env.progress.get()) >= 3 }, 2*time.Second, 10*time.Millisecond,
			"ProgressNotificationHandler got %v", env.progress.get())
		var got []prog
		for _, p := range env.progress.get() {
			require.Equal(t, token, fmt.Sprint(p.ProgressToken))
			got = append(got, prog{p.Progress, p.Total})
		}
		require.Equal(t, want, got)

		// At debug level the tool's logs arrive.
		require.Eventually(t, func() bool { return len(env.logs.get()) > 0 }, 2*time.Second, 10*time.Millisecond,
			"no notifications/message after logging/setLevel debug")
	})
}

func TestLoggingLevelFilter(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		ctx := testContext(t, 10*time.Second)
		require.NoError(t, env.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}))

		res := env.callTool(t, ctx, "progress", map[string]any{})
		require.False(t, res.IsError, "progress: %s", dump(res))
		require.Equal(t, "done", onlyText(t, res))
		time.Sleep(300 * time.Millisecond) // let anything sent late arrive

		quiet := func(level mcp.LoggingLevel) bool { return level == "debug" || level == "info" }
		for _, m := range env.wire.snapshot() {
			if !m.In || m.Method != "notifications/message" {
				continue
			}
			var p mcp.LoggingMessageParams
			require.NoError(t, json.Unmarshal(m.Params, &p))
			require.False(t, quiet(p.Level), "log at %q delivered above level error: %s", p.Level, m.Params)
		}
		for _, p := range env.logs.get() {
			require.False(t, quiet(p.Level), "log at %q delivered above level error: %s", p.Level, dump(p))
		}
	})
}

var timeoutRE = regexp.MustCompile(`(?i)time[ds]?\s*-?\s*out|deadline`)

func TestTimeout(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		start := time.Now()
		res := env.callTool(t, testContext(t, 10*time.Second), "slow", map[string]any{"ms": 3000})
		elapsed := time.Since(start)
		require.True(t, res.IsError, "slow 3000ms with a 1s timeout: %s", dump(res))
		text := onlyText(t, res)
		t.Logf("timeout result after %v: %q", elapsed, text)
		require.Regexp(t, timeoutRE, text, "timeout error must say it timed out")
		require.Contains(t, text, "slow", "timeout error must name the tool")
		// Expiry cancels the tool: the result comes at ~1 s, not after 3 s.
		require.Less(t, elapsed, 2500*time.Millisecond, "timeout result took %v", elapsed)
	})
}

func TestCancellation(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		base := testContext(t, 10*time.Second)

		ctx, cancel := context.WithCancel(base)
		timer := time.AfterFunc(200*time.Millisecond, cancel)
		defer timer.Stop()
		defer cancel()
		start := time.Now()
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 5000}}
		params.SetProgressToken("cancel-" + string(kind)) // only to find the request on the wire
		_, err := env.session.CallTool(ctx, params)
		elapsed := time.Since(start)
		require.ErrorIs(t, err, context.Canceled)
		require.Less(t, elapsed, time.Second, "cancelled call returned after %v", elapsed)

		// go-sdk sent notifications/cancelled for that request.
		id, ok := callID(env.wire.snapshot(), "tools/call", hasProgressToken("cancel-"+string(kind)))
		require.True(t, ok, "cancelled tools/call not recorded")
		require.Eventually(t, func() bool {
			for _, m := range env.wire.snapshot() {
				if !m.In && m.Method == "notifications/cancelled" {
					var p mcp.CancelledParams
					if json.Unmarshal(m.Params, &p) == nil && fmt.Sprint(p.RequestID) == id {
						return true
					}
				}
			}
			return false
		}, 2*time.Second, 10*time.Millisecond, "notifications/cancelled for request %s not sent", id)

		// The server still works.
		res := env.callTool(t, base, "add", map[string]any{"a": 2, "b": 3})
		require.Equal(t, "5", onlyText(t, res))

		// notifications/cancelled must cancel the tool's work. Had the server
		// ignored it, slow would have run into its own 1 s timeout and
		// answered with that result at ~1 s. The spec says a receiver SHOULD
		// NOT answer a cancelled request at all; an early error answer is
		// tolerated (the official go-sdk server sends one over stdio).
		time.Sleep(1500*time.Millisecond - time.Since(start))
		msgs := env.wire.snapshot()
		if i := responseIndex(msgs, id); i >= 0 {
			m := msgs[i]
			t.Logf("server answered cancelled request %s after %v: result=%s err=%v",
				id, m.At.Sub(start), m.Result, m.Err)
			require.Less(t, m.At.Sub(start), 900*time.Millisecond,
				"the answer to the cancelled request came after the tool's timeout: the work was not cancelled")
		}
	})
}

func TestResources(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		ctx := testContext(t, 10*time.Second)

		list, err := env.session.ListResources(ctx, nil)
		require.NoError(t, err)
		idx := slices.IndexFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == "file:///hello.txt" })
		require.GreaterOrEqual(t, idx, 0, "resources/list: %s", dump(list))
		require.Equal(t, "text/plain", list.Resources[idx].MIMEType)

		read, err := env.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///hello.txt"})
		require.NoError(t, err)
		require.Len(t, read.Contents, 1, "%s", dump(read))
		require.Equal(t, "file:///hello.txt", read.Contents[0].URI)
		require.Equal(t, "hello", read.Contents[0].Text)

		templates, err := env.session.ListResourceTemplates(ctx, nil)
		require.NoError(t, err)
		require.True(t, slices.ContainsFunc(templates.ResourceTemplates, func(rt *mcp.ResourceTemplate) bool {
			return rt.URITemplate == "greeting://{name}"
		}), "resources/templates/list: %s", dump(templates))

		read, err = env.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "greeting://world"})
		require.NoError(t, err)
		require.Len(t, read.Contents, 1, "%s", dump(read))
		require.Equal(t, "Hello, world!", read.Contents[0].Text)

		_, err = env.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///missing"})
		rpcErr := requireRPCError(t, err, jsonrpc.CodeInvalidParams)
		// SEP-2164 (DESIGN §4): the URI is in the error's data.
		require.Contains(t, string(rpcErr.Data), "file:///missing", "error data must carry the URI")
	})
}

func TestPrompts(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		ctx := testContext(t, 10*time.Second)

		list, err := env.session.ListPrompts(ctx, nil)
		require.NoError(t, err)
		idx := slices.IndexFunc(list.Prompts, func(p *mcp.Prompt) bool { return p.Name == "greet" })
		require.GreaterOrEqual(t, idx, 0, "prompts/list: %s", dump(list))
		args := list.Prompts[idx].Arguments
		argIdx := slices.IndexFunc(args, func(a *mcp.PromptArgument) bool { return a.Name == "name" })
		require.GreaterOrEqual(t, argIdx, 0, "greet arguments: %s", dump(args))
		require.True(t, args[argIdx].Required, "greet's name argument must be required")

		got, err := env.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
		require.NoError(t, err)
		require.True(t, slices.ContainsFunc(got.Messages, func(m *mcp.PromptMessage) bool {
			tc, ok := m.Content.(*mcp.TextContent)
			return m.Role == "user" && ok && strings.Contains(tc.Text, "Ada")
		}), "want a user text message containing Ada: %s", dump(got))

		_, err = env.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"})
		requireRPCError(t, err, jsonrpc.CodeInvalidParams)
	})
}

func TestCompletion(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connect(t, kind)
		res, err := env.session.Complete(testContext(t, 5*time.Second), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
			Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"},
		})
		require.NoError(t, err)
		require.NotNil(t, res)
	})
}

func TestHTTPSessionDelete(t *testing.T) {
	t.Parallel()
	env := connect(t, httpTransport)
	id := env.session.ID()
	require.NotEmpty(t, id, "a stateful HTTP server issues Mcp-Session-Id on initialize")

	require.NoError(t, env.session.Close())
	var deletes []httpExchange
	for _, x := range env.wire.exchanges() {
		if x.Method == http.MethodDelete {
			deletes = append(deletes, x)
		}
	}
	require.Len(t, deletes, 1, "Close must send one DELETE")
	t.Logf("DELETE answered %d", deletes[0].Status)

	ctx := testContext(t, 5*time.Second)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.endpoint, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("MCP-Protocol-Version", legacyProtocol)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode,
		"POST with a terminated session ID (DELETE answered %d)", deletes[0].Status)
}

// TestLatestProtocol connects with go-sdk's default protocol version
// (2026-07-28 in v1.8.0: server/discover first, initialize as fallback) and
// checks that the basics work whichever version is negotiated.
func TestLatestProtocol(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		env := connectWith(t, kind, connectOptions{})
		ctx := testContext(t, 10*time.Second)
		res := env.session.InitializeResult()
		require.NotNil(t, res)
		t.Logf("negotiated protocol version %s", res.ProtocolVersion)
		require.Contains(t, mcp.SupportedProtocolVersions(), res.ProtocolVersion)
		require.NotNil(t, res.ServerInfo, "serverInfo")
		require.Equal(t, "everything", res.ServerInfo.Name)

		tools, err := env.session.ListTools(ctx, nil)
		require.NoError(t, err)
		require.True(t, slices.ContainsFunc(tools.Tools, func(tool *mcp.Tool) bool { return tool.Name == "add" }))
		call := env.callTool(t, ctx, "add", map[string]any{"a": 2, "b": 3})
		require.False(t, call.IsError, "%s", dump(call))
		require.Equal(t, "5", onlyText(t, call))
	})
}
