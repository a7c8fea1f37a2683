package e2e

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInspectorCLI drives the everything server with the MCP Inspector CLI
// (@modelcontextprotocol/inspector --cli, pinned in node/package.json),
// invoked exactly as node/inspector.sh does: options first, then `--` and
// the server command (stdio) or `--transport http -- URL`. Each invocation
// is one connect, one request, one disconnect; the result JSON is on stdout.
// Exit codes: 0 ok, 1 protocol error, 4 unreachable, 5 tool error (isError
// or unknown tool), with {"error":{"code","message"}} on stderr.

// inspectorLauncher is the Inspector's CLI entry point, relative to e2e/node.
const inspectorLauncher = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

// inspectorTimeout bounds one Inspector run: a liveness bound. A run
// starts two Node processes (the launcher, then the CLI); it takes 3 to
// 6 s on the shared 2-core machine, over 10 s beside a CPU hog, and the
// client matrix runs a dozen at a time.
const inspectorTimeout = 2 * time.Minute

type inspectorContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inspectorCallResult struct {
	Content []inspectorContent `json:"content"`
	IsError bool               `json:"isError"`
}

// inspectorErrorEnvelope finds the Inspector's {"error":{...}} line in
// stderr (a stdio server's log lines are interleaved there).
func inspectorErrorEnvelope(t *testing.T, stderr string) (code, message string) {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(line, `{"error":`) {
			continue
		}
		var env struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &env), "error envelope %q", line)
		return env.Error.Code, env.Error.Message
	}
	t.Fatalf("no {\"error\":...} envelope on the Inspector's stderr:\n%s", stderr)
	return "", ""
}

func TestInspectorCLI(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantExit int
		// check gets stdout (decoded by the case) and stderr.
		check func(t *testing.T, stdout []byte, stderr string)
	}{
		{
			name: "tools/list",
			args: []string{"--method", "tools/list"},
			check: func(t *testing.T, stdout []byte, _ string) {
				var res struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(stdout, &res))
				var names []string
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
				}
				require.Subset(t, names, everythingTools, "tools/list")
			},
		},
		{
			name: "tools/call add",
			args: []string{"--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "--tool-arg", "b=2"},
			check: func(t *testing.T, stdout []byte, _ string) {
				var res inspectorCallResult
				require.NoError(t, json.Unmarshal(stdout, &res))
				require.False(t, res.IsError)
				require.Equal(t, []inspectorContent{{Type: "text", Text: "3"}}, res.Content)
			},
		},
		{
			name: "resources/read",
			args: []string{"--method", "resources/read", "--uri", "file:///hello.txt"},
			check: func(t *testing.T, stdout []byte, _ string) {
				var res struct {
					Contents []struct {
						URI  string `json:"uri"`
						Text string `json:"text"`
					} `json:"contents"`
				}
				require.NoError(t, json.Unmarshal(stdout, &res))
				require.Len(t, res.Contents, 1)
				require.Equal(t, "file:///hello.txt", res.Contents[0].URI)
				require.Equal(t, "hello", res.Contents[0].Text)
			},
		},
		{
			name: "prompts/get",
			args: []string{"--method", "prompts/get", "--prompt-name", "greet", "--prompt-args", "name=Ada"},
			check: func(t *testing.T, stdout []byte, _ string) {
				var res struct {
					Messages []struct {
						Role    string           `json:"role"`
						Content inspectorContent `json:"content"`
					} `json:"messages"`
				}
				require.NoError(t, json.Unmarshal(stdout, &res))
				require.NotEmpty(t, res.Messages)
				found := false
				for _, m := range res.Messages {
					if m.Role == "user" && m.Content.Type == "text" && strings.Contains(m.Content.Text, "Ada") {
						found = true
					}
				}
				require.True(t, found, "want a user text message containing Ada: %s", stdout)
			},
		},
		{
			// An isError result: the Inspector still prints it on stdout, but
			// exits 5 with a tool_is_error envelope on stderr.
			name:     "tools/call fail_user",
			args:     []string{"--method", "tools/call", "--tool-name", "fail_user"},
			wantExit: 5,
			check: func(t *testing.T, stdout []byte, stderr string) {
				var res inspectorCallResult
				require.NoError(t, json.Unmarshal(stdout, &res))
				require.True(t, res.IsError)
				require.Equal(t, []inspectorContent{{Type: "text", Text: "this is a user error"}}, res.Content)
				code, message := inspectorErrorEnvelope(t, stderr)
				require.Equal(t, "tool_is_error", code)
				require.Equal(t, "Tool 'fail_user' returned isError:true.", message)
			},
		},
	}

	forEachTransport(t, func(t *testing.T, kind transportKind) {
		// stdio: the Inspector spawns its own server per invocation.
		// http: one server for all invocations (each is its own session).
		var target []string
		switch kind {
		case stdioTransport:
			target = []string{"--", requireBinary(t)}
		case httpTransport:
			target = []string{"--transport", "http", "--", httpServer(t)}
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				args := append([]string{inspectorLauncher, "--cli"}, tc.args...)
				args = append(args, target...)
				run := runNode(t, inspectorTimeout, args...)
				t.Logf("inspector %s: exit %d after %v", strings.Join(tc.args, " "), run.exitCode, run.elapsed.Round(time.Millisecond))
				stderr := run.stderr.String()
				t.Cleanup(func() {
					if t.Failed() {
						t.Logf("inspector stderr:\n%s\ninspector stdout:\n%s", stderr, run.stdout)
					}
				})
				if kind == stdioTransport {
					checkRaces(t, run.stderr)
				}
				require.Equal(t, tc.wantExit, run.exitCode, "Inspector exit code")
				require.True(t, json.Valid(bytes.TrimSpace(run.stdout)), "stdout must be one JSON value: %s", run.stdout)
				tc.check(t, run.stdout, stderr)
			})
		}
	})
}
