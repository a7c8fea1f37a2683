package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/examples/everything/tools"
)

// The dual-client check: the official Go SDK client
// at its newest release (v1.8.0), speaking the newest revision it offers
// (2026-07-28: server/discover, no initialize, no session, _meta on every
// request, input-required results instead of server-to-client requests),
// and the official TypeScript SDK client (2025-11-25: initialize, a
// session, server-to-client requests) each list the tools of
// examples/everything and call every one of them, including the one that
// elicits and the one that reports progress: first against one
// Streamable HTTP server process at the same time, then each over stdio
// with a server process of its own.

// rev20260728 is the revision the go-sdk client must end up speaking.
const rev20260728 = "2026-07-28"

// TestDualClients is the dual-client test: see the comment above.
func TestDualClients(t *testing.T) {
	t.Parallel()

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		endpoint := httpServer(t)
		var tsStart, tsEnd time.Time
		tsDone := make(chan struct{})
		var goCalls callTimes
		t.Cleanup(func() {
			// Both clients were served by the one process at the same time:
			// a go-sdk call finished while client.mjs was running.
			if tsEnd.IsZero() {
				return // the TS run did not finish; its subtest failed already
			}
			require.True(t, goCalls.anyWithin(tsStart, tsEnd),
				"no go-sdk call finished while client.mjs ran (%v to %v): the clients did not overlap", tsStart, tsEnd)
		})

		// Parallel subtests share the binary's -parallel slots, so the
		// go-sdk subtest may start only after this one has ended: client.mjs
		// waits until the go-sdk client is connected (it then keeps calling
		// until client.mjs is done), so the two overlap however the slots
		// fall.
		goReady := make(chan struct{})
		t.Run("typescript-2025-11-25", func(t *testing.T) {
			t.Parallel()
			defer close(tsDone)
			select {
			case <-goReady:
			case <-time.After(tsClientTimeout):
				t.Fatal("the go-sdk client did not connect")
			}
			tsStart = time.Now()
			out := runTSClientAt(t, "http", endpoint)
			tsEnd = time.Now()
			checkTSEverything(t, out, "2025-11-25")
		})

		t.Run("gosdk-"+rev20260728, func(t *testing.T) {
			t.Parallel()
			env := connectRev20260728(t, httpTransport, endpoint)
			close(goReady)
			env.callEverything(t, &goCalls)
			// Keep the session busy until client.mjs is done, so the two
			// overlap however the scheduler orders them.
			// As long as client.mjs may take (testContext caps at 10 s; on a
			// loaded machine client.mjs can take longer than that).
			ctx, cancel := context.WithTimeout(context.Background(), tsClientTimeout)
			defer cancel()
			for {
				select {
				case <-tsDone:
					return
				case <-ctx.Done():
					t.Fatal("client.mjs did not finish while the go-sdk client kept calling")
				case <-time.After(50 * time.Millisecond):
				}
				res, err := env.session.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
				require.NoError(t, err, "add while client.mjs runs")
				require.Equal(t, "5", onlyText(t, res))
				goCalls.add(time.Now())
			}
		})
	})

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		t.Run("typescript-2025-11-25", func(t *testing.T) {
			t.Parallel()
			checkTSEverything(t, runTSClientAt(t, "stdio", requireBinary(t)), "2025-11-25")
		})
		t.Run("gosdk-"+rev20260728, func(t *testing.T) {
			t.Parallel()
			connectRev20260728(t, stdioTransport, "").callEverything(t, &callTimes{})
		})
	})
}

// callTimes records when calls finished.
type callTimes struct {
	mu sync.Mutex
	at []time.Time
}

func (c *callTimes) add(at time.Time) { c.mu.Lock(); c.at = append(c.at, at); c.mu.Unlock() }

func (c *callTimes) anyWithin(from, to time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.at, func(at time.Time) bool { return !at.Before(from) && !at.After(to) })
}

// rev20260728Env is a go-sdk client connected at its default (newest) revision.
type rev20260728Env struct {
	kind     transportKind
	session  *mcp.ClientSession
	wire     *wireRecorder
	progress *notes[mcp.ProgressNotificationParams]
	elicits  *notes[string] // the messages of the elicitation requests the handler answered
	samples  *notes[string]
}

// connectRev20260728 connects a go-sdk v1.8.0 client, with its default
// protocol version, to the everything server at endpoint (http) or to a
// fresh one over stdio. Its handlers answer as client.mjs's do: the
// elicitation {action: accept, content: {answer: yes}}, sampling
// "sampled: <text>", roots file:///tmp/root1.
func connectRev20260728(t *testing.T, kind transportKind, endpoint string) *rev20260728Env {
	t.Helper()
	env := &rev20260728Env{
		kind:     kind,
		wire:     &wireRecorder{},
		progress: &notes[mcp.ProgressNotificationParams]{},
		elicits:  &notes[string]{},
		samples:  &notes[string]{},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpchain-e2e-dual", Version: "0.0.1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			env.progress.add(*req.Params)
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			env.elicits.add(req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			text := ""
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			env.samples.add(text)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model",
				Content: &mcp.TextContent{Text: "sampled: " + text}}, nil
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///tmp/root1", Name: "root1"})

	var transport mcp.Transport
	switch kind {
	case stdioTransport:
		transport = &recordingTransport{Transport: stdioServer(t), rec: env.wire}
	case httpTransport:
		base := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(base.CloseIdleConnections)
		transport = &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: &recordingRoundTripper{base: base, rec: env.wire}}}
	}
	session, err := client.Connect(testContext(t, 10*time.Second), transport, nil)
	require.NoError(t, err, "go-sdk connect over %s", kind)
	env.session = session
	t.Cleanup(func() { _ = session.Close() })
	t.Cleanup(func() {
		if fails := env.wire.failures(); len(fails) > 0 {
			t.Errorf("wire recorder could not decode: %v", fails)
		}
	})
	return env
}

// callEverything runs the go-sdk side: the revision, tools/list, then
// every tool of examples/everything with the arguments it needs, each as
// a subtest; times gets the end of every successful call.
func (e *rev20260728Env) callEverything(t *testing.T, times *callTimes) {
	t.Run("revision", func(t *testing.T) {
		res := e.session.InitializeResult()
		require.NotNil(t, res)
		require.Equal(t, rev20260728, res.ProtocolVersion, "go-sdk v1.8.0 must negotiate its newest revision")
		require.NotNil(t, res.ServerInfo, "serverInfo (from server/discover's _meta)")
		require.Equal(t, "everything", res.ServerInfo.Name)
		require.Empty(t, e.session.ID(), "revision %s has no sessions", rev20260728)
		msgs := e.wire.snapshot()
		require.NotEmpty(t, msgs)
		require.Equal(t, "server/discover", msgs[0].Method, "the first message is server/discover")
		for _, m := range msgs {
			require.NotEqual(t, "initialize", m.Method, "no initialize at %s", rev20260728)
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		res, err := e.session.ListTools(testContext(t, 5*time.Second), nil)
		require.NoError(t, err)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		require.ElementsMatch(t, listedTools(), names, "tools/list")
		times.add(time.Now())
	})

	type call struct {
		args     map[string]any
		isError  bool
		text     string // exact, unless check is set
		check    func(t *testing.T, text string)
		progress bool // with a progress token: three notifications, asserted
		asks     bool // asks the client: input-required results at 2026-07-28
	}
	calls := map[string]call{
		"add":           {args: map[string]any{"a": 2, "b": 3}, text: "5"},
		"echo":          {args: map[string]any{"text": "hi"}, text: "hi"},
		"slow":          {args: map[string]any{"ms": 50}, text: "slept 50 ms"},
		"progress":      {args: map[string]any{}, text: "done", progress: true},
		"fail_user":     {args: map[string]any{}, isError: true, text: "this is a user error"},
		"fail_internal": {args: map[string]any{}, isError: true, check: func(t *testing.T, text string) { require.Contains(t, text, "fail_internal") }},
		"whoami": {args: map[string]any{}, check: func(t *testing.T, text string) {
			var who struct {
				SessionID string `json:"sessionId"`
				Client    struct {
					Name string `json:"name"`
				} `json:"client"`
			}
			require.NoError(t, json.Unmarshal([]byte(text), &who), "whoami: %q", text)
			require.Empty(t, who.SessionID, "no session at %s", rev20260728)
			require.Equal(t, "mcpchain-e2e-dual", who.Client.Name, "clientInfo from _meta")
		}},
		"sample": {args: map[string]any{"text": "hello"}, text: "sampled: hello", asks: true},
		"elicit": {args: map[string]any{}, asks: true, check: func(t *testing.T, text string) {
			var res struct {
				Action  string `json:"action"`
				Content struct {
					Answer string `json:"answer"`
				} `json:"content"`
			}
			require.NoError(t, json.Unmarshal([]byte(text), &res), "elicit: %q", text)
			require.Equal(t, "accept", res.Action)
			require.Equal(t, "yes", res.Content.Answer)
			require.Contains(t, e.elicits.get(), "Proceed?", "the client's elicitation handler answered")
		}},
		"roots": {args: map[string]any{}, asks: true, check: func(t *testing.T, text string) {
			var res struct {
				Roots []struct {
					URI string `json:"uri"`
				} `json:"roots"`
			}
			require.NoError(t, json.Unmarshal([]byte(text), &res), "roots: %q", text)
			require.True(t, slices.ContainsFunc(res.Roots, func(r struct {
				URI string `json:"uri"`
			}) bool {
				return r.URI == "file:///tmp/root1"
			}), "roots: %q", text)
		}},
	}
	// The showcase tools (tools.ShowcaseNames) are called by
	// examples/everything's own tests, with embedded clients that answer
	// their questions.
	require.ElementsMatch(t, tools.Names, mapsKeys(calls), "the test calls every fixture tool of examples/everything")

	for _, name := range tools.Names {
		c := calls[name]
		t.Run("tools/call "+name, func(t *testing.T) {
			params := &mcp.CallToolParams{Name: name, Arguments: c.args}
			token := fmt.Sprintf("dual-%s-%s", e.kind, name)
			if c.progress {
				params.SetProgressToken(token)
			}
			res, err := e.session.CallTool(testContext(t, 8*time.Second), params)
			require.NoError(t, err, "tools/call %s", name)
			times.add(time.Now())
			require.Equal(t, c.isError, res.IsError, "isError of %s: %s", name, dump(res))
			text := onlyText(t, res)
			if c.check != nil {
				c.check(t, text)
			} else {
				require.Equal(t, c.text, text)
			}
			id, ok := callID(e.wire.snapshot(), "tools/call", func(p json.RawMessage) bool {
				var q struct {
					Name string         `json:"name"`
					Meta map[string]any `json:"_meta"`
				}
				return json.Unmarshal(p, &q) == nil && q.Name == name && q.Meta["io.modelcontextprotocol/protocolVersion"] == rev20260728
			})
			require.True(t, ok, "the tools/call %s on the wire carries _meta protocolVersion %s", name, rev20260728)
			if c.progress {
				e.requireProgress(t, id, token)
			}
			if c.asks {
				e.requireInputRequired(t, name)
			}
		})
	}

	t.Run("no server-to-client requests", func(t *testing.T) {
		// Revision 2026-07-28 sends no JSON-RPC request to the client: a
		// question travels in an input-required result.
		for _, m := range e.wire.snapshot() {
			if m.In && m.Method != "" && m.ID != "" {
				t.Errorf("server sent request %s (id %s) at %s: %s", m.Method, m.ID, rev20260728, m.Params)
			}
		}
	})
}

// requireProgress requires the three progress notifications of the call
// with id, before its response, and in the client's handler.
func (e *rev20260728Env) requireProgress(t *testing.T, id, token string) {
	t.Helper()
	msgs := e.wire.snapshot()
	respAt := responseIndex(msgs, id)
	require.GreaterOrEqual(t, respAt, 0, "no response to request %s recorded", id)
	type prog struct{ Progress, Total float64 }
	var before []prog
	for _, m := range msgs[:respAt] {
		if !m.In || m.Method != "notifications/progress" {
			continue
		}
		var p mcp.ProgressNotificationParams
		require.NoError(t, json.Unmarshal(m.Params, &p))
		if fmt.Sprint(p.ProgressToken) == token {
			before = append(before, prog{p.Progress, p.Total})
		}
	}
	want := []prog{{1, 3}, {2, 3}, {3, 3}}
	require.Equal(t, want, before, "progress notifications before the result")
	require.Eventually(t, func() bool {
		n := 0
		for _, p := range e.progress.get() {
			if fmt.Sprint(p.ProgressToken) == token {
				n++
			}
		}
		return n == 3
	}, 2*time.Second, 10*time.Millisecond, "ProgressNotificationHandler got %v", e.progress.get())
}

// requireInputRequired requires that the call of tool went the 2026-07-28
// way: a result with resultType input_required first, then the client's
// retry (go-sdk does it by itself) carrying inputResponses.
func (e *rev20260728Env) requireInputRequired(t *testing.T, tool string) {
	t.Helper()
	var irr, retry bool
	for _, m := range e.wire.snapshot() {
		if m.In && m.Response && len(m.Result) > 0 {
			var r struct {
				ResultType string `json:"resultType"`
			}
			if json.Unmarshal(m.Result, &r) == nil && r.ResultType == "input_required" {
				irr = true
			}
		}
		if !m.In && m.Method == "tools/call" {
			var q struct {
				Name           string          `json:"name"`
				InputResponses json.RawMessage `json:"inputResponses"`
			}
			if json.Unmarshal(m.Params, &q) == nil && q.Name == tool && len(q.InputResponses) > 0 {
				retry = true
			}
		}
	}
	assert.True(t, irr, "tools/call %s: no input_required result on the wire", tool)
	assert.True(t, retry, "tools/call %s: no retry with inputResponses on the wire", tool)
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// runTSClientAt runs client.mjs against target: a URL (http) or the
// everything binary (stdio, a process of its own), and returns its output.
func runTSClientAt(t *testing.T, kind, target string) *tsOutput {
	t.Helper()
	run := runNode(t, tsClientTimeout+5*time.Second, "client.mjs", kind, target)
	t.Logf("client.mjs %s: exit %d after %v", kind, run.exitCode, run.elapsed.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("client.mjs stderr:\n%s\nclient.mjs stdout:\n%s", run.stderr, run.stdout)
		}
	})
	if kind == "stdio" {
		checkRaces(t, run.stderr)
	}
	var out tsOutput
	require.NoError(t, json.Unmarshal(run.stdout, &out), "client.mjs must print one JSON object")
	require.Nil(t, out.Connect, "connect failed")
	require.Nil(t, out.Fatal, "client.mjs failed")
	require.Empty(t, out.Watchdog, "client.mjs watchdog fired")
	require.Equal(t, 0, run.exitCode, "client.mjs exit code")
	require.Equal(t, kind, out.Transport)
	return &out
}

// checkTSEverything asserts the TypeScript side: the revision, tools/list,
// every tool's result, the progress notifications of the progress call and
// the server-to-client requests of elicit and sample during their calls.
func checkTSEverything(t *testing.T, out *tsOutput, revision string) {
	t.Helper()
	t.Run("revision", func(t *testing.T) {
		require.Equal(t, revision, out.ProtocolVersion)
		require.NotNil(t, out.ServerInfo)
		require.Equal(t, "everything", out.ServerInfo.Name)
	})
	t.Run("tools/list", func(t *testing.T) {
		requireOK(t, "tools/list", out.Tools.tsErr)
		require.ElementsMatch(t, listedTools(), out.Tools.Names)
	})
	t.Run("every tool called", func(t *testing.T) {
		for _, name := range tools.Names {
			require.Contains(t, out.ToolResults, name, "client.mjs called %s", name)
		}
	})
	for _, tc := range []struct {
		tool, text, contains string
		isError, anyText     bool
	}{
		{tool: "add", text: "5"},
		{tool: "echo", text: "hi"},
		{tool: "slow", anyText: true},
		{tool: "progress", text: "done"},
		{tool: "fail_user", isError: true, text: "this is a user error"},
		{tool: "fail_internal", isError: true, contains: "fail_internal"},
		{tool: "whoami", anyText: true},
		{tool: "sample", text: "sampled: hello"},
	} {
		t.Run("tools/call "+tc.tool, func(t *testing.T) {
			requireToolText(t, tsCallText(t, out, tc.tool, tc.isError), tc.text, tc.contains, tc.anyText)
		})
	}
	t.Run("tools/call elicit", func(t *testing.T) {
		requireElicitAccepted(t, out)
		requireServerRequestDuring(t, out, "elicit", "elicitation/create")
	})
	t.Run("tools/call roots", func(t *testing.T) {
		var res struct {
			Roots []tsURI `json:"roots"`
		}
		tsCallJSON(t, out, "roots", &res)
		require.True(t, slices.ContainsFunc(res.Roots, func(r tsURI) bool { return r.URI == "file:///tmp/root1" }), "roots: %s", dump(res))
	})
	t.Run("progress notifications", func(t *testing.T) {
		from, to := during(t, out, "progress")
		type prog struct{ Progress, Total float64 }
		var got []prog
		for _, p := range out.Progress {
			require.True(t, from <= p.I && p.I < to, "progress %s outside the call [%d, %d)", dump(p), from, to)
			got = append(got, prog{p.Progress, p.Total})
		}
		require.Equal(t, []prog{{1, 3}, {2, 3}, {3, 3}}, got)
	})
}

// listedTools are the tools examples/everything lists to a client that
// renders no MCP App: the fixtures and the showcase.
func listedTools() []string {
	return append(slices.Clone(tools.Names), tools.ShowcaseNames...)
}
