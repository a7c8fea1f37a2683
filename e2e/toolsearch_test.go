package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/openapitest"
	"github.com/mcpchain/mcp/toolsearch"
)

// Tool search (package toolsearch) seen by clients that know nothing of
// it: Discord's 242 operations (openapi.Register, against a mock of the
// API built from the same document) behind the search and call tools.
// Each client lists the two tools, searches in words, reads the tools
// found, and calls the operation through call_tool.

const (
	searchQuery = "get a user by id"
	searchTool  = "get_user"
	searchUser  = "80351110224678912"
)

// init serves the Discord server with tool search over stdio and exits
// when the test binary runs as the server of TestToolSearchTypeScript's
// stdio cases (node/toolsearch-client.mjs starts it with
// TOOLSEARCH_STDIO_SERVE=1).
func init() {
	if os.Getenv("TOOLSEARCH_STDIO_SERVE") != "1" {
		return
	}
	srv, s, mock, err := discordSearchServer()
	if err == nil {
		defer mock.Close()
		var inst *mcphttp.Instance
		inst, err = mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{TransportType: mcphttp.TransportStdio,
			Middleware: []func(http.Handler) http.Handler{s.Middleware}})
		if err == nil {
			err = inst.Wait()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolsearch stdio server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// discordSearchServer is Discord's operations, calling a mock of the
// API, with tool search installed.
func discordSearchServer() (*mcp.Server, *toolsearch.Search, *openapitest.Server, error) {
	path := "../openapi/testdata/discord.json"
	if p := os.Getenv("TOOLSEARCH_SPEC"); p != "" {
		path = p // the stdio server runs in the client's directory
	}
	spec, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	doc, err := openapi.Load(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	mock := openapitest.NewServer(doc)
	srv := mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0", Logger: quiet()})
	if err := openapi.RegisterDoc(srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}); err != nil {
		mock.Close()
		return nil, nil, nil, err
	}
	s, err := toolsearch.New(srv, nil)
	if err != nil {
		mock.Close()
		return nil, nil, nil, err
	}
	return srv, s, mock, nil
}

func discordSearch(t *testing.T) (*mcp.Server, *toolsearch.Search, *openapitest.Server) {
	t.Helper()
	srv, s, mock, err := discordSearchServer()
	require.NoError(t, err)
	t.Cleanup(mock.Close)
	return srv, s, mock
}

// serveSearchHTTP serves srv with s over Streamable HTTP.
func serveSearchHTTP(t *testing.T, srv *mcp.Server, s *toolsearch.Search) string {
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(s.Middleware(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL
}

// serveSearchStdio serves srv with s over the stdio transport, on pipes.
func serveSearchStdio(t *testing.T, srv *mcp.Server, s *toolsearch.Search) pipeEnd {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportStdio, Stdin: serverIn, Stdout: serverOut,
		Middleware: []func(http.Handler) http.Handler{s.Middleware},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = clientOut.Close()
		_ = inst.Close()
		_ = inst.Wait()
		_ = serverOut.Close()
	})
	return pipeEnd{clientIn, clientOut}
}

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
	srv, s, mock := discordSearch(t)
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		for _, kind := range []string{"http", "stdio", "inprocess"} {
			t.Run(string(version)+"/"+kind, func(t *testing.T) {
				var tr client.Transport
				switch kind {
				case "http":
					tr = client.HTTP(serveSearchHTTP(t, srv, s), nil)
				case "stdio":
					tr = client.Stdio(serveSearchStdio(t, srv, s))
				case "inprocess":
					h := mcphttp.New(srv, nil)
					t.Cleanup(func() { _ = h.Close() })
					tr = client.InProcess(s.Middleware(h), nil)
				}
				ctx := testContext(t, 60*time.Second)
				c, err := client.Connect(ctx, tr, &client.Options{ProtocolVersion: version, Logger: quiet()})
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })
				assert.Equal(t, version, c.ProtocolVersion())
				tools, err := c.ListTools(ctx)
				require.NoError(t, err)
				var names []string
				for _, tl := range tools {
					names = append(names, tl.Name)
				}
				assert.Equal(t, []string{"search_tools", "call_tool"}, names)
				res, err := c.CallTool(ctx, "search_tools", map[string]any{"query": searchQuery}, nil)
				require.NoError(t, err)
				require.False(t, res.IsError, res.Text())
				require.Contains(t, foundTools(t, res.Text()), searchTool)
				res, err = c.CallTool(ctx, "call_tool", map[string]any{"name": searchTool, "arguments": map[string]any{"user_id": searchUser}}, nil)
				require.NoError(t, err)
				checkUser(t, mock, res.IsError, res.Text())
			})
		}
	}
}

// TestToolSearchGoSDK: go-sdk v1.8.0 over Streamable HTTP and stdio at
// 2025-11-25 (the newest revision it speaks).
func TestToolSearchGoSDK(t *testing.T) {
	srv, s, mock := discordSearch(t)
	forEachTransport(t, func(t *testing.T, kind transportKind) {
		var tr sdk.Transport
		if kind == httpTransport {
			tr = &sdk.StreamableClientTransport{Endpoint: serveSearchHTTP(t, srv, s), MaxRetries: -1}
		} else {
			p := serveSearchStdio(t, srv, s)
			tr = &sdk.IOTransport{Reader: p.ReadCloser, Writer: p}
		}
		ctx := testContext(t, 60*time.Second)
		cl := sdk.NewClient(&sdk.Implementation{Name: "e2e-toolsearch", Version: "0.0.1"}, nil)
		cs, err := cl.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		list, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		assert.Equal(t, []string{"search_tools", "call_tool"}, names)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": searchQuery}})
		require.NoError(t, err)
		require.False(t, res.IsError, dump(res.Content))
		require.Contains(t, foundTools(t, res.Content[0].(*sdk.TextContent).Text), searchTool)
		res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": searchTool, "arguments": map[string]any{"user_id": searchUser}}})
		require.NoError(t, err)
		checkUser(t, mock, res.IsError, res.Content[0].(*sdk.TextContent).Text)
	})
}

// searchStdioServer is this package's test binary built without the race
// detector, once: the server of TestToolSearchTypeScript's stdio cases
// (see init). Under the race detector, loading Discord's document takes
// a minute on a loaded machine, longer than the clients wait for a
// server to start.
var searchStdioServer struct {
	once sync.Once
	bin  string
	err  error
}

func searchStdioBinary(t *testing.T) string {
	t.Helper()
	searchStdioServer.once.Do(func() {
		dir, err := os.MkdirTemp("", "toolsearch-e2e")
		if err != nil {
			searchStdioServer.err = err
			return
		}
		bin := filepath.Join(dir, "e2e.test")
		out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput()
		if err != nil {
			searchStdioServer.err = fmt.Errorf("go test -c: %v\n%s", err, out)
			return
		}
		searchStdioServer.bin = bin
	})
	require.NoError(t, searchStdioServer.err)
	return searchStdioServer.bin
}

// TestToolSearchTypeScript: the official TypeScript SDK clients, 1.32.2
// at 2025-11-25 and 2.4.0 at 2026-07-28, over Streamable HTTP and stdio
// (this package's test binary as the server, see init and searchStdioServer).
func TestToolSearchTypeScript(t *testing.T) {
	srv, s, mock := discordSearch(t)
	args, err := json.Marshal(map[string]any{"user_id": searchUser})
	require.NoError(t, err)
	spec, err := filepath.Abs("../openapi/testdata/discord.json")
	require.NoError(t, err)
	for _, tc := range []struct{ sdk, version string }{{"v1", "2025-11-25"}, {"v2", "2026-07-28"}} {
		t.Run(tc.sdk, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				target := "stdio:" + searchStdioBinary(t)
				m := mock
				if kind == httpTransport {
					target = serveSearchHTTP(t, srv, s)
				} else {
					m = nil // the server, and its mock, are another process
				}
				r := runNodeEnv(t, 180*time.Second, []string{"TOOLSEARCH_SPEC=" + spec}, "toolsearch-client.mjs", tc.sdk, target, searchQuery, searchTool, string(args))
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
				if out.ProtocolVersion != "" || tc.sdk != "v1" || kind != stdioTransport {
					assert.Equal(t, tc.version, out.ProtocolVersion) // v1 over stdio does not tell it
				}
				assert.Equal(t, []string{"search_tools", "call_tool"}, out.Tools)
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

// TestToolSearchAISDK: the Vercel AI SDK's MCP client (@ai-sdk/mcp 2.0.99)
// and tool loop (ai 7.0.173's generateText with a scripted model) at
// 2025-11-25 and 2026-07-28, over Streamable HTTP and stdio: the model
// sees the two tools, searches, reads the result and calls the operation
// through call_tool (node/aisdk-client.mjs). Those packages must be in
// e2e/node (they are not in its package.json yet: see the report of the
// tool search branch).
func TestToolSearchAISDK(t *testing.T) {
	dir, _ := nodePaths(t)
	for _, pkg := range []string{"ai", "@ai-sdk/mcp"} {
		_, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json"))
		require.NoError(t, err, "the Vercel AI SDK package %s is not installed in e2e/node: add ai@7.0.173 and @ai-sdk/mcp@2.0.99 to e2e/node/package.json and run npm ci there", pkg)
	}
	srv, s, mock := discordSearch(t)
	args, err := json.Marshal(map[string]any{"user_id": searchUser})
	require.NoError(t, err)
	spec, err := filepath.Abs("../openapi/testdata/discord.json")
	require.NoError(t, err)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				target := "stdio:" + searchStdioBinary(t)
				m := mock
				if kind == httpTransport {
					target = serveSearchHTTP(t, srv, s)
				} else {
					m = nil // the server, and its mock, are another process
				}
				r := runNodeEnv(t, 180*time.Second, []string{"TOOLSEARCH_SPEC=" + spec}, "aisdk-client.mjs", target, version, searchQuery, searchTool, string(args))
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
				assert.ElementsMatch(t, []string{"search_tools", "call_tool"}, out.Tools)
				require.Contains(t, out.Found, searchTool)
				assert.Equal(t, [][]string{{"search_tools"}, {"call_tool"}, {}}, out.Steps)
				checkUser(t, m, false, out.Call)
				assert.Equal(t, "done", out.Text)
			})
		})
	}
}
