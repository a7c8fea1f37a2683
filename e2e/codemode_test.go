package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/openapi/openapitest"
)

// Code mode (package codemode) seen by clients that know nothing of it:
// the Discord server (see discordServer) with the script tool pinned
// beside tool search. Each client lists the three tools, runs a script
// that calls two of Discord's operations and combines their results, and
// runs a script that fails, whose error comes back as a tool result.

// script calls get_user, then get_guild with the guild the user's tag
// names: the second call's argument is read from the first's answer, as
// a model's script chains operations.
const script = `u = call("get_user", {"user_id": "` + searchUser + `"})
g = call("get_guild", {"guild_id": u["primary_guild"]["identity_guild_id"]})
print("user", u["id"], "wears the tag of guild", g["id"])
result = {"id": u["id"], "username": u["username"], "guild": {"id": g["id"], "name": g["name"]}}
`

// scriptPrinted is the line script prints, and scriptResult its result:
// what the mock answers (openapitest's values for the operations'
// response schemas).
const (
	scriptPrinted = "user 1 wears the tag of guild 1\n"
	scriptResult  = `{"id": "1", "username": "string", "guild": {"id": "1", "name": "string"}}`
)

// badScript calls an operation that does not exist (a model's typo) on
// its second line.
const badScript = `u = call("get_user", {"user_id": "` + searchUser + `"})
v = call("get_usr", {"user_id": u["id"]})
result = v
`

// badScriptError starts the text of badScript's tool error.
const badScriptError = `error at line 2: get_usr: Unknown tool: "get_usr"`

// scriptRun is a result of the script tool as a client saw it.
type scriptRun struct {
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
	// Structured is the result's structuredContent.
	Structured json.RawMessage `json:"structured"`
}

// checkScript checks the result of script, and that the mock, when it
// is in this process, got both requests.
func checkScript(t *testing.T, mock *openapitest.Server, run scriptRun) {
	t.Helper()
	require.False(t, run.IsError, run.Text)
	assert.Contains(t, run.Text, scriptPrinted)
	assert.Contains(t, run.Text, `"username":"string"`, "the result as JSON text")
	assert.JSONEq(t, `{"result": `+scriptResult+`}`, string(run.Structured))
	checkUserRequest(t, mock)
	if mock != nil {
		var seen bool
		for _, r := range mock.Requests() {
			seen = seen || r.Operation == "get_guild" && r.PathParams["guild_id"] == "1"
		}
		assert.True(t, seen, "the API got GET /guilds/1")
	}
}

// checkScriptError checks the result of badScript: a tool error naming
// the line, with no structured content.
func checkScriptError(t *testing.T, run scriptRun) {
	t.Helper()
	require.True(t, run.IsError, run.Text)
	assert.Contains(t, run.Text, badScriptError)
	assert.Contains(t, run.Text, "Traceback")
	assert.True(t, len(run.Structured) == 0 || string(run.Structured) == "null", "%s", run.Structured)
}

// marshalStructured is a Go client's structuredContent as JSON.
func marshalStructured(t *testing.T, v any) json.RawMessage {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestCodeModeClient: package client, over Streamable HTTP, stdio and in
// process, at 2025-11-25 and 2026-07-28.
func TestCodeModeClient(t *testing.T) {
	t.Parallel()
	d := discord(t, true)
	d.forEachClient(t, func(t *testing.T, ctx context.Context, c *client.Client) {
		run := func(src string) scriptRun {
			res, err := c.CallTool(ctx, codemode.DefaultTool, map[string]any{"script": src}, nil)
			require.NoError(t, err)
			return scriptRun{res.IsError, res.Text(), marshalStructured(t, res.StructuredContent)}
		}
		checkScript(t, d.mock, run(script))
		checkScriptError(t, run(badScript))
	})
}

// TestCodeModeGoSDK: go-sdk v1.8.0 over Streamable HTTP and stdio, at
// 2025-11-25 and 2026-07-28.
func TestCodeModeGoSDK(t *testing.T) {
	t.Parallel()
	d := discord(t, true)
	d.forEachGoSDK(t, func(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
		run := func(src string) scriptRun {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: codemode.DefaultTool, Arguments: map[string]any{"script": src}})
			require.NoError(t, err)
			var text string
			for _, c := range res.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					text += tc.Text
				}
			}
			return scriptRun{res.IsError, text, marshalStructured(t, res.StructuredContent)}
		}
		checkScript(t, d.mock, run(script))
		checkScriptError(t, run(badScript))
	})
}

// TestCodeModeTypeScript: the official TypeScript SDK clients
// (tsVersions) over Streamable HTTP and stdio (this package's test binary
// as the server, see discordServer.nodeTarget) run both scripts
// (node/codemode-client.mjs).
func TestCodeModeTypeScript(t *testing.T) {
	t.Parallel()
	d := discord(t, true)
	for _, tc := range tsVersions {
		t.Run(tc.sdk, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				target, env, m := d.nodeTarget(t, kind)
				r := runNodeEnv(t, 180*time.Second, env, "codemode-client.mjs", tc.sdk, target, script, badScript)
				require.Equal(t, 0, r.exitCode, "stderr:\n%s", r.stderr)
				var out struct {
					ProtocolVersion string     `json:"protocolVersion"`
					Tools           []string   `json:"tools"`
					Script          *scriptRun `json:"script"`
					ScriptError     *scriptRun `json:"scriptError"`
					Error           string     `json:"error"`
				}
				require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
				require.Empty(t, out.Error, "stderr:\n%s", r.stderr)
				checkTSVersion(t, tc.sdk, tc.version, out.ProtocolVersion, kind)
				assert.Equal(t, d.tools(), out.Tools)
				require.NotNil(t, out.Script)
				checkScript(t, m, *out.Script)
				require.NotNil(t, out.ScriptError)
				checkScriptError(t, *out.ScriptError)
			})
		})
	}
}

// TestCodeModeAISDK: the Vercel AI SDK's MCP client and tool loop (see
// TestToolSearchAISDK) at 2025-11-25 and 2026-07-28, over Streamable HTTP
// and stdio: the scripted model sees the three tools, runs script, reads
// its result, runs badScript, reads its error, and answers
// (node/aisdk-client.mjs). The model reads the content's text; the
// results' isError and structuredContent are read from the loop's steps.
func TestCodeModeAISDK(t *testing.T) {
	t.Parallel()
	requireAISDK(t)
	d := discord(t, true)
	for _, version := range aiSDKVersions {
		t.Run(version, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				target, env, m := d.nodeTarget(t, kind)
				r := runNodeEnv(t, 180*time.Second, env, "aisdk-client.mjs", "script", target, version, script, badScript)
				require.Equal(t, 0, r.exitCode, "stderr:\n%s", r.stderr)
				var out struct {
					Tools   []string    `json:"tools"`
					Steps   [][]string  `json:"steps"`
					Results []scriptRun `json:"results"`
					Text    string      `json:"text"`
					Error   string      `json:"error"`
				}
				require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
				require.Empty(t, out.Error, "stderr:\n%s", r.stderr)
				assert.ElementsMatch(t, d.tools(), out.Tools)
				assert.Equal(t, [][]string{{codemode.DefaultTool}, {codemode.DefaultTool}, {}}, out.Steps)
				require.Len(t, out.Results, 2)
				checkScript(t, m, out.Results[0])
				checkScriptError(t, out.Results[1])
				assert.Equal(t, "done", out.Text)
			})
		})
	}
}
