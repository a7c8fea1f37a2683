package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTypeScriptLegacySSEClient drives examples/everything, started with
// -legacy-sse, with node/client.mjs on the official TypeScript SDK's
// SSEClientTransport (the deprecated HTTP+SSE transport of 2024-11-05): it
// lists and calls every tool, including the ones that sample, elicit, ask
// for roots and report progress, over GET /sse and POST /messages. A
// Streamable HTTP client runs against /mcp of the same process at the same
// time: the two transports are served side by side.
func TestTypeScriptLegacySSEClient(t *testing.T) {
	t.Parallel()
	mcpURL := httpServer(t, "-legacy-sse")
	sseURL := strings.TrimSuffix(mcpURL, "/mcp") + "/sse"

	var (
		wg      sync.WaitGroup
		legacy  *nodeRun
		current *nodeRun
	)
	wg.Go(func() { legacy = runNode(t, tsClientTimeout+5*time.Second, "client.mjs", "sse", sseURL) })
	wg.Go(func() { current = runNode(t, tsClientTimeout+5*time.Second, "client.mjs", "http", mcpURL) })
	wg.Wait()

	out := parseTSRun(t, "sse", legacy)
	other := parseTSRun(t, "http", current)
	requireOK(t, "tools/list over Streamable HTTP at the same time", other.Tools.tsErr)
	require.Equal(t, "5", tsCallText(t, other, "add", false), "Streamable HTTP beside the legacy transport")

	t.Run("initialize", func(t *testing.T) {
		require.NotNil(t, out.ServerInfo, "serverInfo")
		require.Equal(t, "everything", out.ServerInfo.Name)
		require.NotEmpty(t, out.ProtocolVersion)
		t.Logf("TS SDK %s over SSEClientTransport negotiated protocol %s", out.SDKVersion, out.ProtocolVersion)
		requireOK(t, "logging/setLevel", out.SetLevel)
	})

	t.Run("tools/list", func(t *testing.T) {
		requireOK(t, "tools/list", out.Tools.tsErr)
		require.ElementsMatch(t, listedTools(), out.Tools.Names)
	})

	t.Run("tool results", func(t *testing.T) {
		tests := []struct {
			tool        string
			wantIsError bool
			want        string
			contains    string
		}{
			{tool: "add", want: "5"},
			{tool: "echo", want: "hi"},
			{tool: "progress", want: "done"},
			{tool: "fail_user", wantIsError: true, want: "this is a user error"},
			{tool: "fail_internal", wantIsError: true, contains: "fail_internal"},
			{tool: "slow", want: "slept 50 ms"},
			{tool: "whoami", contains: `"sessionId"`},
			{tool: "sample", want: "sampled: hello"},
		}
		for _, tc := range tests {
			t.Run(tc.tool, func(t *testing.T) {
				text := tsCallText(t, out, tc.tool, tc.wantIsError)
				if tc.contains != "" {
					require.Contains(t, text, tc.contains)
					return
				}
				require.Equal(t, tc.want, text)
			})
		}
	})

	t.Run("progress, streamed content and logs on the stream during the call", func(t *testing.T) {
		from, to := during(t, out, "progress")
		var steps []float64
		for _, p := range out.Progress {
			require.True(t, from <= p.I && p.I < to, "progress notification %s outside the call [%d, %d)", dump(p), from, to)
			steps = append(steps, p.Progress)
		}
		require.Equal(t, []float64{1, 2, 3}, steps, "progress: %s", dump(out.Progress))
		require.Len(t, out.StreamContent, 2, "streamContent: %s", dump(out.StreamContent))
		require.True(t, slices.ContainsFunc(out.Logs, func(l tsLog) bool {
			return l.Level == "info" && from <= l.I && l.I < to
		}), "want an info log during the progress call: %s", dump(out.Logs))
	})

	t.Run("server requests on the stream", func(t *testing.T) {
		requireServerRequestDuring(t, out, "sample", "sampling/createMessage")
		requireServerRequestDuring(t, out, "elicit", "elicitation/create")
		requireElicitAccepted(t, out)
		// The engine asks for the roots once the client is initialized, on
		// the session's own GET stream (relayed to the legacy stream), and
		// the roots tool answers from what it got.
		from, _ := during(t, out, "roots")
		require.True(t, slices.ContainsFunc(out.Events, func(e tsEvent) bool {
			return e.Type == "serverRequest" && e.Method == "roots/list" && e.I < from
		}), "want a roots/list request before tools/call roots: %s", dump(out.Events))
		var roots struct {
			Roots []tsURI `json:"roots"`
		}
		tsCallJSON(t, out, "roots", &roots)
		require.True(t, slices.ContainsFunc(roots.Roots, func(r tsURI) bool { return r.URI == "file:///tmp/root1" }), "roots: %s", dump(roots))
	})

	t.Run("cancellation", func(t *testing.T) {
		c := out.Cancellation
		require.NotNil(t, c, "no cancellation step recorded")
		requireTSCode(t, "cancelled tools/call slow", c.tsErr, -32001)
		require.Less(t, c.ElapsedMS, 1500)
		require.False(t, c.ResponseArrived, "the server answered a cancelled request")
		requireOK(t, "ping after the cancellation", c.PingAfter)
	})

	t.Run("resources, prompts, completion, errors", func(t *testing.T) {
		requireOK(t, "resources/read file:///hello.txt", out.Resources.ReadHello.tsErr)
		require.Equal(t, "hello", out.Resources.ReadHello.Contents[0].Text)
		requireOK(t, "resources/read greeting://world", out.Resources.ReadGreeting.tsErr)
		require.Equal(t, "Hello, world!", out.Resources.ReadGreeting.Contents[0].Text)
		requireOK(t, "prompts/get greet", out.Prompts.GetGreet.tsErr)
		requireOK(t, "completion/complete", out.Complete.tsErr)
		requireTSCode(t, "unknown tool", out.Errors.UnknownTool, -32602)
		requireTSCode(t, "unknown prompt", out.Errors.UnknownPrompt, -32602)
	})
}

// parseTSRun checks a finished client.mjs run and decodes its output.
func parseTSRun(t *testing.T, kind string, run *nodeRun) *tsOutput {
	t.Helper()
	t.Logf("client.mjs %s: exit %d after %v", kind, run.exitCode, run.elapsed.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("client.mjs %s stderr:\n%s\nstdout:\n%s", kind, run.stderr, run.stdout)
		}
	})
	var out tsOutput
	require.NoError(t, json.Unmarshal(run.stdout, &out), "client.mjs %s must print one JSON object", kind)
	require.Nil(t, out.Connect, "connect failed")
	require.Nil(t, out.Fatal, "client.mjs failed")
	require.Empty(t, out.Watchdog, "client.mjs watchdog fired")
	require.Equal(t, 0, run.exitCode, "client.mjs exit code")
	require.Equal(t, kind, out.Transport)
	return &out
}
