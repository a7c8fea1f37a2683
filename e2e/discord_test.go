package e2e

import (
	"context"
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
	"github.com/mcpchain/mcp/codemode"
	discordpkg "github.com/mcpchain/mcp/e2e/internal/discord"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi/openapitest"
)

// The server of the tool search and code mode tests is package
// discord's (e2e/internal/discord): Discord's operations behind tool
// search, with code mode when asked.

// discordServer is a discord.Server with what the tests do with it.
type discordServer struct {
	srv *mcp.Server
	// mw installs tool search's interceptor, inside code mode's.
	mw       func(http.Handler) http.Handler
	mock     *openapitest.Server
	codeMode bool
}

// discord is package discord's server for t, closed with it: each test
// builds its own server and mock, so what one test's clients do cannot
// reach another's.
func discord(t *testing.T, codeMode bool) *discordServer {
	t.Helper()
	s, err := discordpkg.New("../openapi/testdata/discord.json", codeMode)
	require.NoError(t, err)
	t.Cleanup(s.Mock.Close)
	return &discordServer{srv: s.MCP, mw: s.Middleware, mock: s.Mock, codeMode: codeMode}
}

// tools is what tools/list shows of the server.
func (d *discordServer) tools() []string {
	if d.codeMode {
		return []string{codemode.DefaultTool, "search_tools", "call_tool"}
	}
	return []string{"search_tools", "call_tool"}
}

// serveHTTP serves d over Streamable HTTP.
func (d *discordServer) serveHTTP(t *testing.T) string {
	h := mcphttp.New(d.srv, nil)
	ts := httptest.NewServer(d.mw(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL
}

// serveStdio serves d over the stdio transport, on pipes.
func (d *discordServer) serveStdio(t *testing.T) pipeEnd {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	inst, err := mcphttp.Start(context.Background(), d.srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportStdio, Stdin: serverIn, Stdout: serverOut,
		Middleware: []func(http.Handler) http.Handler{d.mw},
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

// clientKinds are the transports package client reaches d over.
var clientKinds = []string{"http", "stdio", "inprocess"}

// forEachClient runs f as a subtest per revision and transport of
// package client (clientKinds), each with a client connected to d that
// has listed d's tools.
func (d *discordServer) forEachClient(t *testing.T, f func(t *testing.T, ctx context.Context, c *client.Client)) {
	t.Helper()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		for _, kind := range clientKinds {
			t.Run(string(version)+"/"+kind, func(t *testing.T) {
				var tr client.Transport
				switch kind {
				case "http":
					tr = client.HTTP(d.serveHTTP(t), nil)
				case "stdio":
					tr = client.Stdio(d.serveStdio(t))
				case "inprocess":
					h := mcphttp.New(d.srv, nil)
					t.Cleanup(func() { _ = h.Close() })
					tr = client.InProcess(d.mw(h), nil)
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
				assert.Equal(t, d.tools(), names)
				f(t, ctx, c)
			})
		}
	}
}

// goSDKVersions are the revisions go-sdk v1.8.0 is run at.
var goSDKVersions = []string{legacyProtocol, "2026-07-28"}

// forEachGoSDK runs f as a parallel subtest per revision of go-sdk
// (goSDKVersions) and transport, each with a session connected to d that
// has negotiated the revision and listed d's tools.
func (d *discordServer) forEachGoSDK(t *testing.T, f func(t *testing.T, ctx context.Context, cs *sdk.ClientSession)) {
	t.Helper()
	for _, version := range goSDKVersions {
		t.Run(version, func(t *testing.T) {
			forEachTransport(t, func(t *testing.T, kind transportKind) {
				var tr sdk.Transport
				if kind == httpTransport {
					tr = &sdk.StreamableClientTransport{Endpoint: d.serveHTTP(t), MaxRetries: -1}
				} else {
					p := d.serveStdio(t)
					tr = &sdk.IOTransport{Reader: p.ReadCloser, Writer: p}
				}
				ctx := testContext(t, 60*time.Second)
				cl := sdk.NewClient(&sdk.Implementation{Name: "e2e-discord", Version: "0.0.1"}, nil)
				cs, err := cl.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
				require.NoError(t, err)
				t.Cleanup(func() { _ = cs.Close() })
				assert.Equal(t, version, cs.InitializeResult().ProtocolVersion)
				list, err := cs.ListTools(ctx, nil)
				require.NoError(t, err)
				var names []string
				for _, tl := range list.Tools {
					names = append(names, tl.Name)
				}
				assert.Equal(t, d.tools(), names)
				f(t, ctx, cs)
			})
		})
	}
}

// nodeTarget is the target a Node client reaches d at over kind, the
// environment that client needs (its stdio server finds Discord's
// document, and installs code mode when d has it), and the mock that
// sees the API's requests, nil when the server (and its mock) is another
// process: discord's stdio command (discordStdioBinary).
func (d *discordServer) nodeTarget(t *testing.T, kind transportKind) (target string, env []string, mock *openapitest.Server) {
	t.Helper()
	spec, err := filepath.Abs("../openapi/testdata/discord.json")
	require.NoError(t, err)
	env = []string{"TOOLSEARCH_SPEC=" + spec}
	if d.codeMode {
		env = append(env, "TOOLSEARCH_CODEMODE=1")
	}
	if kind == httpTransport {
		return d.serveHTTP(t), env, d.mock
	}
	return "stdio:" + discordStdioBinary(t), env, nil
}

// discordStdioServer is discord's stdio command, built once without the
// race detector: the server of the Node clients' stdio cases (see package
// discord for why not under race).
var discordStdioServer struct {
	once sync.Once
	bin  string
	err  error
}

func discordStdioBinary(t *testing.T) string {
	t.Helper()
	discordStdioServer.once.Do(func() {
		bin := filepath.Join(binDir, "discord-stdio") // removed by TestMain
		out, err := exec.Command("go", "build", "-o", bin, "./internal/discord/stdio").CombinedOutput()
		if err != nil {
			discordStdioServer.err = fmt.Errorf("go build ./internal/discord/stdio: %v\n%s", err, out)
			return
		}
		discordStdioServer.bin = bin
	})
	require.NoError(t, discordStdioServer.err)
	return discordStdioServer.bin
}

// requireAISDK fails t when the Vercel AI SDK is not installed in
// e2e/node.
func requireAISDK(t *testing.T) {
	t.Helper()
	dir, _ := nodePaths(t)
	for _, pkg := range []string{"ai", "@ai-sdk/mcp"} {
		_, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json"))
		require.NoError(t, err, "the Vercel AI SDK package %s is not installed in e2e/node: add ai@7.0.173 and @ai-sdk/mcp@2.0.99 to e2e/node/package.json and run npm ci there", pkg)
	}
}
