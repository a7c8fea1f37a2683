package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTypeScriptClient drives the everything server with node/client.mjs, a
// scripted client on the official TypeScript SDK, over stdio and Streamable
// HTTP, and asserts on the one JSON object it prints (see node/README.md).
// client.mjs numbers every message it reads off the transport with an
// order index i; a tool result carries the index of its response (i) and
// the next index at the time it was sent (iStart), so a notification n
// arrived during the call iff iStart <= n.i < i.

// tsErr is how client.mjs records a failed step.
type tsErr struct {
	Error string          `json:"error"`
	Code  json.RawMessage `json:"code"` // a JSON-RPC code, an HTTP status, ...
	Data  json.RawMessage `json:"data"`
	Name  string          `json:"name"`
}

func (e tsErr) failed() bool { return e.Error != "" }

type tsLog struct {
	I     int    `json:"i"`
	Level string `json:"level"`
}

type tsEvent struct {
	I      int    `json:"i"`
	Type   string `json:"type"` // response, serverRequest, log, progress, streamContent, notification
	Method string `json:"method"`
	ID     any    `json:"id"`
}

type tsURI struct {
	URI string `json:"uri"`
}

type tsText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type tsToolResult struct {
	tsErr
	Content           []tsText        `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	I                 *int            `json:"i"` // index of the response; null when none came
	IStart            int             `json:"iStart"`
}

type tsResourceContents struct {
	tsErr
	Contents []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"contents"`
}

type tsOutput struct {
	Transport  string `json:"transport"`
	SDKVersion string `json:"sdkVersion"`
	Connect    *tsErr `json:"connect"`
	Fatal      *tsErr `json:"fatal"`
	Watchdog   string `json:"watchdog"`
	ServerInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	ProtocolVersion string `json:"protocolVersion"`
	SetLevel        tsErr  `json:"setLevel"`
	Tools           struct {
		tsErr
		Names []string `json:"names"`
	} `json:"tools"`
	ToolResults map[string]tsToolResult `json:"toolResults"`
	Progress    []struct {
		I             int     `json:"i"`
		ProgressToken any     `json:"progressToken"`
		Progress      float64 `json:"progress"`
		Total         float64 `json:"total"`
	} `json:"progress"`
	Cancellation *struct {
		tsErr
		ElapsedMS       int   `json:"elapsedMs"`
		RequestID       any   `json:"requestId"`
		ResponseArrived bool  `json:"responseArrived"`
		PingAfter       tsErr `json:"pingAfter"`
	} `json:"cancellation"`
	Resources struct {
		List struct {
			tsErr
			Resources []tsURI `json:"resources"`
		} `json:"list"`
		ReadHello tsResourceContents `json:"readHello"`
		Templates struct {
			tsErr
			ResourceTemplates []struct {
				URITemplate string `json:"uriTemplate"`
			} `json:"resourceTemplates"`
		} `json:"templates"`
		ReadGreeting tsResourceContents `json:"readGreeting"`
	} `json:"resources"`
	Prompts struct {
		GetGreet struct {
			tsErr
			Messages []struct {
				Role    string `json:"role"`
				Content tsText `json:"content"`
			} `json:"messages"`
		} `json:"getGreet"`
	} `json:"prompts"`
	Complete struct {
		tsErr
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	} `json:"complete"`
	Errors struct {
		UnknownTool     tsErr `json:"unknownTool"`
		MissingResource tsErr `json:"missingResource"`
		UnknownPrompt   tsErr `json:"unknownPrompt"`
	} `json:"errors"`
	Logs          []tsLog `json:"logs"`
	StreamContent []struct {
		I      int `json:"i"`
		Params struct {
			Content []tsText `json:"content"`
		} `json:"params"`
	} `json:"streamContent"`
	Events    []tsEvent `json:"events"`
	SessionID *string   `json:"sessionId"` // http only
	Terminate *struct {
		TerminateSession struct {
			tsErr
			OK bool `json:"ok"`
		} `json:"terminateSession"`
		SameTransport tsErr `json:"sameTransport"`
		OldSessionID  tsErr `json:"oldSessionId"`
	} `json:"terminate"` // http only
}

// everythingTools are the tools examples/everything registers.
var everythingTools = []string{"add", "echo", "slow", "progress", "fail_user", "fail_internal", "whoami", "sample", "elicit", "roots"}

// tsClientTimeout bounds one client.mjs run (its own watchdog is also 60 s,
// but it prints partial JSON first; ours kills it).
const tsClientTimeout = 60 * time.Second

// runTSClient runs client.mjs against a fresh everything server on kind and
// returns its parsed output. On failure of t (or any subtest) it logs the
// client's stderr (with a stdio server's stderr in it) and its JSON.
func runTSClient(t *testing.T, kind transportKind) *tsOutput {
	t.Helper()
	var target []string
	switch kind {
	case stdioTransport:
		target = []string{"stdio", requireBinary(t)}
	case httpTransport:
		target = []string{"http", httpServer(t)}
	default:
		t.Fatalf("unknown transport %q", kind)
	}
	run := runNode(t, tsClientTimeout+5*time.Second, append([]string{"client.mjs"}, target...)...)
	t.Logf("client.mjs %s: exit %d after %v", kind, run.exitCode, run.elapsed.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("client.mjs stderr:\n%s\nclient.mjs stdout:\n%s", run.stderr, run.stdout)
		}
	})
	if kind == stdioTransport {
		checkRaces(t, run.stderr) // the stdio server's stderr is inherited by node
	}

	var out tsOutput
	require.NoError(t, json.Unmarshal(run.stdout, &out), "client.mjs must print one JSON object")
	require.Nil(t, out.Connect, "connect failed")
	require.Nil(t, out.Fatal, "client.mjs failed")
	require.Empty(t, out.Watchdog, "client.mjs watchdog fired")
	require.Equal(t, 0, run.exitCode, "client.mjs exit code")
	require.Equal(t, string(kind), out.Transport)
	return &out
}

// requireOK requires a step to have succeeded.
func requireOK(t *testing.T, what string, e tsErr) {
	t.Helper()
	require.False(t, e.failed(), "%s failed: %s", what, dump(e))
}

// requireTSCode requires a step to have failed with the given error code.
func requireTSCode(t *testing.T, what string, e tsErr, code int) {
	t.Helper()
	require.True(t, e.failed(), "%s: want an error, got success", what)
	require.Equal(t, fmt.Sprint(code), string(e.Code), "%s: error code; error: %s", what, dump(e))
}

// tsCallText requires the named tool call to have returned a single text
// block (and isError as given) and returns the text.
func tsCallText(t *testing.T, out *tsOutput, tool string, wantIsError bool) string {
	t.Helper()
	r, ok := out.ToolResults[tool]
	require.True(t, ok, "no result recorded for tools/call %s", tool)
	requireOK(t, "tools/call "+tool, r.tsErr)
	require.Equal(t, wantIsError, r.IsError, "isError of %s: %s", tool, dump(r))
	require.Len(t, r.Content, 1, "want exactly one content block: %s", dump(r))
	require.Equal(t, "text", r.Content[0].Type, "%s", dump(r))
	return r.Content[0].Text
}

// requireToolText checks a tool's text: any text when anyText, else one
// containing contains when it is set, else exactly want.
func requireToolText(t *testing.T, text, want, contains string, anyText bool) {
	t.Helper()
	switch {
	case anyText:
	case contains != "":
		require.Contains(t, text, contains)
	default:
		require.Equal(t, want, text)
	}
}

// tsCallJSON requires the named tool call to have returned a single text
// block holding JSON, decodes it into v and, when the result also carries
// structuredContent, requires the two to agree.
func tsCallJSON(t *testing.T, out *tsOutput, tool string, v any) {
	t.Helper()
	text := tsCallText(t, out, tool, false)
	require.NoError(t, json.Unmarshal([]byte(text), v), "%s text must be JSON: %q", tool, text)
	if sc := out.ToolResults[tool].StructuredContent; len(sc) > 0 && string(sc) != "null" {
		require.JSONEq(t, text, string(sc), "%s: structuredContent must match the text block", tool)
	}
}

// during returns the half-open index window [iStart, i) of a tool call.
func during(t *testing.T, out *tsOutput, tool string) (from, to int) {
	t.Helper()
	r := out.ToolResults[tool]
	require.NotNil(t, r.I, "no response index for tools/call %s: %s", tool, dump(r))
	return r.IStart, *r.I
}

func TestTypeScriptClient(t *testing.T) {
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		out := runTSClient(t, kind)

		t.Run("initialize", func(t *testing.T) {
			t.Parallel()
			require.NotNil(t, out.ServerInfo, "serverInfo")
			require.Equal(t, "everything", out.ServerInfo.Name)
			require.NotEmpty(t, out.ProtocolVersion)
			t.Logf("TS SDK %s negotiated protocol %s", out.SDKVersion, out.ProtocolVersion)
			requireOK(t, "logging/setLevel", out.SetLevel)
		})

		t.Run("tools/list", func(t *testing.T) {
			t.Parallel()
			requireOK(t, "tools/list", out.Tools.tsErr)
			require.Subset(t, out.Tools.Names, everythingTools, "tools/list")
		})

		t.Run("tool results", func(t *testing.T) {
			t.Parallel()
			tests := []struct {
				tool        string
				wantIsError bool
				wantText    string // exact, unless contains is set
				contains    string
				anyText     bool
			}{
				{tool: "add", wantText: "5"},
				{tool: "echo", wantText: "hi"},
				{tool: "progress", wantText: "done"},
				{tool: "fail_user", wantIsError: true, wantText: "this is a user error"},
				{tool: "fail_internal", wantIsError: true, contains: "fail_internal"},
				{tool: "slow", anyText: true}, // {ms: 50}, well under its 1 s timeout
				{tool: "whoami", anyText: true},
				{tool: "sample", wantText: "sampled: hello"},
			}
			for _, tc := range tests {
				t.Run(tc.tool, func(t *testing.T) {
					t.Parallel()
					requireToolText(t, tsCallText(t, out, tc.tool, tc.wantIsError), tc.wantText, tc.contains, tc.anyText)
				})
			}
		})

		t.Run("progress notifications", func(t *testing.T) {
			t.Parallel()
			from, to := during(t, out, "progress")
			type prog struct{ Progress, Total float64 }
			var got []prog
			tokens := map[string]bool{}
			for _, p := range out.Progress {
				require.True(t, from <= p.I && p.I < to,
					"progress notification %s outside the call's window [%d, %d)", dump(p), from, to)
				got = append(got, prog{p.Progress, p.Total})
				tokens[fmt.Sprint(p.ProgressToken)] = true
			}
			require.Equal(t, []prog{{1, 3}, {2, 3}, {3, 3}}, got, "progress notifications: %s", dump(out.Progress))
			require.Len(t, tokens, 1, "all progress notifications carry the call's token")
		})

		t.Run("streamContent", func(t *testing.T) {
			t.Parallel()
			from, to := during(t, out, "progress")
			var chunks []string
			for _, s := range out.StreamContent {
				require.True(t, from <= s.I && s.I < to,
					"streamContent notification %s outside the call's window [%d, %d)", dump(s), from, to)
				for _, c := range s.Params.Content {
					chunks = append(chunks, c.Text)
				}
			}
			require.Len(t, out.StreamContent, 2, "streamContent notifications: %s", dump(out.StreamContent))
			require.Equal(t, []string{"chunk 1", "chunk 2"}, chunks)
		})

		t.Run("logging", func(t *testing.T) {
			t.Parallel()
			from, to := during(t, out, "progress")
			require.True(t, slices.ContainsFunc(out.Logs, func(l tsLog) bool {
				return l.Level == "info" && from <= l.I && l.I < to
			}), "want an info notifications/message during the progress call [%d, %d): %s", from, to, dump(out.Logs))
		})

		// Server-to-client requests: each must arrive while its tool call is
		// open, and the tool returns what the client's handler answered.
		t.Run("server requests", func(t *testing.T) {
			t.Parallel()
			requireServerRequestDuring(t, out, "sample", "sampling/createMessage")
			requireServerRequestDuring(t, out, "elicit", "elicitation/create")
			requireElicitAccepted(t, out)

			var roots struct {
				Roots []tsURI `json:"roots"`
			}
			tsCallJSON(t, out, "roots", &roots)
			require.True(t, slices.ContainsFunc(roots.Roots, func(r tsURI) bool {
				return r.URI == "file:///tmp/root1"
			}), "roots: %s", dump(roots))
		})

		t.Run("cancellation", func(t *testing.T) {
			t.Parallel()
			c := out.Cancellation
			require.NotNil(t, c, "no cancellation step recorded")
			t.Logf("cancellation: %s", dump(c))
			// The abort rejects the call locally (-32001); had the call
			// completed instead (slow's 1 s timeout), there would be no error.
			requireTSCode(t, "cancelled tools/call slow", c.tsErr, -32001)
			require.Less(t, c.ElapsedMS, 1500, "cancelled call returned after %d ms", c.ElapsedMS)
			requireOK(t, "ping after the cancellation", c.PingAfter)
			if c.ResponseArrived {
				// The spec says SHOULD NOT answer a cancelled request; an early
				// answer is tolerated (see TestCancellation).
				t.Logf("the server answered cancelled request %v", c.RequestID)
			}
		})

		t.Run("resources", func(t *testing.T) {
			t.Parallel()
			r := out.Resources
			requireOK(t, "resources/list", r.List.tsErr)
			require.True(t, slices.ContainsFunc(r.List.Resources, func(x tsURI) bool {
				return x.URI == "file:///hello.txt"
			}), "resources/list: %s", dump(r.List))

			requireOK(t, "resources/read file:///hello.txt", r.ReadHello.tsErr)
			require.Len(t, r.ReadHello.Contents, 1, "%s", dump(r.ReadHello))
			require.Equal(t, "file:///hello.txt", r.ReadHello.Contents[0].URI)
			require.Equal(t, "hello", r.ReadHello.Contents[0].Text)

			requireOK(t, "resources/templates/list", r.Templates.tsErr)
			require.True(t, slices.ContainsFunc(r.Templates.ResourceTemplates, func(x struct {
				URITemplate string `json:"uriTemplate"`
			}) bool {
				return x.URITemplate == "greeting://{name}"
			}), "resources/templates/list: %s", dump(r.Templates))

			requireOK(t, "resources/read greeting://world", r.ReadGreeting.tsErr)
			require.Len(t, r.ReadGreeting.Contents, 1, "%s", dump(r.ReadGreeting))
			require.Equal(t, "greeting://world", r.ReadGreeting.Contents[0].URI)
			require.Equal(t, "Hello, world!", r.ReadGreeting.Contents[0].Text)
		})

		t.Run("prompts/get", func(t *testing.T) {
			t.Parallel()
			g := out.Prompts.GetGreet
			requireOK(t, "prompts/get greet", g.tsErr)
			found := false
			for _, m := range g.Messages {
				if m.Role == "user" && m.Content.Type == "text" && strings.Contains(m.Content.Text, "Ada") {
					found = true
				}
			}
			require.True(t, found, "want a user text message containing Ada: %s", dump(g))
		})

		t.Run("completion", func(t *testing.T) {
			t.Parallel()
			requireOK(t, "completion/complete", out.Complete.tsErr)
			values := out.Complete.Completion.Values
			for _, v := range values {
				require.True(t, strings.HasPrefix(v, "A"), "completion %q does not start with A: %v", v, values)
			}
			require.ElementsMatch(t, []string{"Ada", "Alan"}, values)
		})

		t.Run("errors", func(t *testing.T) {
			t.Parallel()
			e := out.Errors
			requireTSCode(t, "tools/call nope", e.UnknownTool, -32602)
			requireTSCode(t, "resources/read file:///missing", e.MissingResource, -32602)
			var data struct {
				URI string `json:"uri"`
			}
			require.NoError(t, json.Unmarshal(e.MissingResource.Data, &data), "error data: %s", dump(e.MissingResource))
			require.Equal(t, "file:///missing", data.URI, "error data must carry the URI")
			requireTSCode(t, "prompts/get nope", e.UnknownPrompt, -32602)
		})

		if kind != httpTransport {
			return
		}
		t.Run("session", func(t *testing.T) {
			t.Parallel()
			require.NotNil(t, out.SessionID, "sessionId")
			require.NotEmpty(t, *out.SessionID, "a stateful HTTP server issues Mcp-Session-Id on initialize")
			term := out.Terminate
			require.NotNil(t, term, "no terminate step recorded")
			requireOK(t, "terminateSession (DELETE)", term.TerminateSession.tsErr)
			require.True(t, term.TerminateSession.OK)
			// The SDK forgets the id after DELETE: a request without
			// Mcp-Session-Id to a stateful server is a 400.
			requireTSCode(t, "request without a session id", term.SameTransport, 400)
			// The terminated id itself is unknown now: 404.
			requireTSCode(t, "request with the terminated session id", term.OldSessionID, 404)
		})
	})
}

// requireServerRequestDuring fails unless client.mjs saw a server-to-client
// request of method while its tools/call of tool was open.
func requireServerRequestDuring(t *testing.T, out *tsOutput, tool, method string) {
	t.Helper()
	from, to := during(t, out, tool)
	require.True(t, slices.ContainsFunc(out.Events, func(e tsEvent) bool {
		return e.Type == "serverRequest" && e.Method == method && from <= e.I && e.I < to
	}), "want a %s request during tools/call %s [%d, %d)", method, tool, from, to)
}

// requireElicitAccepted fails unless the elicit tool returned what
// client.mjs's elicitation handler answered (accept, answer "yes").
func requireElicitAccepted(t *testing.T, out *tsOutput) {
	t.Helper()
	var res struct {
		Action  string `json:"action"`
		Content struct {
			Answer string `json:"answer"`
		} `json:"content"`
	}
	tsCallJSON(t, out, "elicit", &res)
	require.Equal(t, "accept", res.Action)
	require.Equal(t, "yes", res.Content.Answer)
}
