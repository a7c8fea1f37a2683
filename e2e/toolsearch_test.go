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
	"github.com/mcpchain/mcp/openapi/openapitest"
)

// Tool search (package toolsearch) seen by clients that know nothing of
// it: Discord's operations behind the search and call tools (see
// discordServer). Each client lists the two tools, searches in words,
// reads the tools found, and calls the operation through call_tool.

const (
	searchQuery = "get a user by id"
	searchTool  = "get_user"
	searchUser  = "80351110224678912"
)

// foundTools reads the tools a search found from its result's text, as a
// model reads it.
func foundTools(t *testing.T, text string) []string {
	t.Helper()
	var f struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &f), text)
	var out []string
	for _, tl := range f.Tools {
		require.Equal(t, "object", tl.InputSchema["type"], "%s carries its input schema", tl.Name)
		out = append(out, tl.Name)
	}
	return out
}

// checkUser checks the answer of get_user through the mock.
func checkUser(t *testing.T, mock *openapitest.Server, isError bool, text string) {
	t.Helper()
	require.False(t, isError, text)
	assert.Contains(t, text, `"id"`, "the mock's user")
	checkUserRequest(t, mock)
}

// checkUserRequest checks the mock, when it is in this process, got the
// request of get_user.
func checkUserRequest(t *testing.T, mock *openapitest.Server) {
	t.Helper()
	if mock == nil {
		return
	}
	var seen bool
	for _, r := range mock.Requests() {
		seen = seen || r.Operation == searchTool && r.PathParams["user_id"] == searchUser
	}
	assert.True(t, seen, "the API got GET /users/%s", searchUser)
}

// TestToolSearchClient: package client, over Streamable HTTP, stdio and in
// process, at 2025-11-25 and 2026-07-28.
func TestToolSearchClient(t *testing.T) {
	t.Parallel()
	d := discord(t, false)
	d.forEachClient(t, func(t *testing.T, ctx context.Context, c *client.Client) {
		res, err := c.CallTool(ctx, "search_tools", map[string]any{"query": searchQuery}, nil)
		require.NoError(t, err)
		require.False(t, res.IsError, res.Text())
		require.Contains(t, foundTools(t, res.Text()), searchTool)
		res, err = c.CallTool(ctx, "call_tool", map[string]any{"name": searchTool, "arguments": map[string]any{"user_id": searchUser}}, nil)
		require.NoError(t, err)
		checkUser(t, d.mock, res.IsError, res.Text())
	})
}

// TestToolSearchGoSDK: go-sdk v1.8.0 over Streamable HTTP and stdio at
// 2025-11-25 and 2026-07-28.
func TestToolSearchGoSDK(t *testing.T) {
	t.Parallel()
	d := discord(t, false)
	d.forEachGoSDK(t, func(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": searchQuery}})
		require.NoError(t, err)
		require.False(t, res.IsError, dump(res.Content))
		require.Contains(t, foundTools(t, res.Content[0].(*sdk.TextContent).Text), searchTool)
		res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": searchTool, "arguments": map[string]any{"user_id": searchUser}}})
		require.NoError(t, err)
		checkUser(t, d.mock, res.IsError, res.Content[0].(*sdk.TextContent).Text)
	})
}

// tsVersions are the official TypeScript SDK clients and the revision
// each speaks: 1.32.2 (@modelcontextprotocol/sdk) at 2025-11-25, 2.4.0
// (@modelcontextprotocol/client) pinned to 2026-07-28.
var tsVersions = []struct{ sdk, version string }{{"v1", "2025-11-25"}, {"v2", "2026-07-28"}}

// checkTSVersion checks the revision a TypeScript client reports; v1 over
// stdio does not tell it.
func checkTSVersion(t *testing.T, sdkName, want, got string, kind transportKind) {
	t.Helper()
	if got != "" || sdkName != "v1" || kind != stdioTransport {
		assert.Equal(t, want, got)
	}
}

// TestToolSearchTypeScript: the official TypeScript SDK clients
// (tsVersions) over Streamable HTTP and stdio (this package's test binary
// as the server, see discordServer.nodeTarget).
func TestToolSearchTypeScript(t *testing.T) {
	t.Parallel()
	d := discord(t, false)
	args, err := json.Marshal(map[string]any{"user_id": searchUser})
	require.NoError(t, err)
	for _, tc := range tsVersions {
		t.Run(tc.sdk, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				target, env, m := d.nodeTarget(t, kind)
				r := runNodeEnv(t, 180*time.Second, env, "toolsearch-client.mjs", tc.sdk, target, searchQuery, searchTool, string(args))
				require.Equal(t, 0, r.exitCode, "stderr:\n%s", r.stderr)
				var out struct {
					ProtocolVersion string   `json:"protocolVersion"`
					Tools           []string `json:"tools"`
					Found           []struct {
						Name string `json:"name"`
					} `json:"found"`
					SearchIsError bool `json:"searchIsError"`
					Call          *struct {
						IsError bool   `json:"isError"`
						Text    string `json:"text"`
					} `json:"call"`
					Error string `json:"error"`
				}
				require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
				require.Empty(t, out.Error, "stderr:\n%s", r.stderr)
				checkTSVersion(t, tc.sdk, tc.version, out.ProtocolVersion, kind)
				assert.Equal(t, d.tools(), out.Tools)
				require.False(t, out.SearchIsError)
				var found []string
				for _, f := range out.Found {
					found = append(found, f.Name)
				}
				require.Contains(t, found, searchTool)
				require.NotNil(t, out.Call)
				checkUser(t, m, out.Call.IsError, out.Call.Text)
			})
		})
	}
}

// aiSDKVersions are the revisions the Vercel AI SDK's MCP client is run
// at: 2026-07-28 through server/discover, 2025-11-25 through initialize.
var aiSDKVersions = []string{"2025-11-25", "2026-07-28"}

// TestToolSearchAISDK: the Vercel AI SDK's MCP client (@ai-sdk/mcp 2.0.99)
// and tool loop (ai 7.0.173's generateText with a scripted model) at
// 2025-11-25 and 2026-07-28, over Streamable HTTP and stdio: the model
// sees the two tools, searches, reads the result and calls the operation
// through call_tool (node/aisdk-client.mjs).
func TestToolSearchAISDK(t *testing.T) {
	t.Parallel()
	requireAISDK(t)
	d := discord(t, false)
	args, err := json.Marshal(map[string]any{"user_id": searchUser})
	require.NoError(t, err)
	for _, version := range aiSDKVersions {
		t.Run(version, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				target, env, m := d.nodeTarget(t, kind)
				r := runNodeEnv(t, 180*time.Second, env, "aisdk-client.mjs", "search", target, version, searchQuery, searchTool, string(args))
				require.Equal(t, 0, r.exitCode, "stderr:\n%s", r.stderr)
				var out struct {
					Tools []string   `json:"tools"`
					Steps [][]string `json:"steps"`
					Found []string   `json:"found"`
					Call  string     `json:"call"`
					Text  string     `json:"text"`
					Error string     `json:"error"`
				}
				require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
				require.Empty(t, out.Error, "stderr:\n%s", r.stderr)
				assert.ElementsMatch(t, d.tools(), out.Tools)
				require.Contains(t, out.Found, searchTool)
				assert.Equal(t, [][]string{{"search_tools"}, {"call_tool"}, {}}, out.Steps)
				checkUser(t, m, false, out.Call)
				assert.Equal(t, "done", out.Text)
			})
		})
	}
}
