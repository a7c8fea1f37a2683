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
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/openapitest"
	"github.com/mcpchain/mcp/toolsearch"
)

// The server of the tool search and code mode tests: Discord's 242
// operations (openapi.RegisterDoc, against a mock of the API built from
// the same document) behind tool search, with code mode's script tool
// pinned beside the search and call tools when asked. The clients know
// nothing of either package.

// init serves the Discord server over stdio and exits when the test
// binary runs as the server of the Node clients' stdio cases (their
// scripts start it with TOOLSEARCH_STDIO_SERVE=1; the test adds
// TOOLSEARCH_CODEMODE=1 for code mode).
func init() {
	if os.Getenv("TOOLSEARCH_STDIO_SERVE") != "1" {
		return
	}
	d, err := newDiscordServer(os.Getenv("TOOLSEARCH_CODEMODE") == "1")
	if err == nil {
		defer d.mock.Close()
		var inst *mcphttp.Instance
		inst, err = mcphttp.Start(context.Background(), d.srv, &mcphttp.StartOptions{TransportType: mcphttp.TransportStdio,
			Middleware: []func(http.Handler) http.Handler{d.mw}})
		if err == nil {
			err = inst.Wait()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "discord stdio server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// discordServer is Discord's operations, calling a mock of the API, with
// tool search installed, and code mode too when codeMode was asked.
type discordServer struct {
	srv *mcp.Server
	// mw installs tool search's interceptor, inside code mode's.
	mw       func(http.Handler) http.Handler
	mock     *openapitest.Server
	codeMode bool
}

func newDiscordServer(codeMode bool) (*discordServer, error) {
	path := "../openapi/testdata/discord.json"
	if p := os.Getenv("TOOLSEARCH_SPEC"); p != "" {
		path = p // the stdio server runs in the client's directory
	}
	spec, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := openapi.Load(spec)
	if err != nil {
		return nil, err
	}
	mock := openapitest.NewServer(doc)
	d := &discordServer{mock: mock, codeMode: codeMode}
	d.srv = mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0", Logger: quiet()})
	if err := openapi.RegisterDoc(d.srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}); err != nil {
		mock.Close()
		return nil, err
	}
	var runner *codemode.Runner
	var opts *toolsearch.Options
	if codeMode {
		// As docs/codemode.md installs it: the script tool registered
		// first and pinned beside search, its middleware outermost.
		if runner, err = codemode.New(d.srv, nil); err != nil {
			mock.Close()
			return nil, err
		}
		opts = &toolsearch.Options{Pinned: []string{codemode.DefaultTool}}
	}
	s, err := toolsearch.New(d.srv, opts)
	if err != nil {
		mock.Close()
		return nil, err
	}
	d.mw = s.Middleware
	if runner != nil {
		d.mw = func(h http.Handler) http.Handler { return runner.Middleware(s.Middleware(h)) }
	}
	return d, nil
}

// discord is newDiscordServer for t, closed with it.
func discord(t *testing.T, codeMode bool) *discordServer {
	t.Helper()
	d, err := newDiscordServer(codeMode)
	require.NoError(t, err)
	t.Cleanup(d.mock.Close)
	return d
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
// process: this package's test binary built once (see init and
// discordStdioBinary).
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

// discordStdioServer is this package's test binary built without the
// race detector, once: the server of the Node clients' stdio cases (see
// init). Under the race detector, loading Discord's document takes a
// minute on a loaded machine, longer than the clients wait for a server
// to start.
var discordStdioServer struct {
	once sync.Once
	bin  string
	err  error
}

func discordStdioBinary(t *testing.T) string {
	t.Helper()
	discordStdioServer.once.Do(func() {
		bin := filepath.Join(binDir, "discord-stdio.test") // removed by TestMain
		out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput()
		if err != nil {
			discordStdioServer.err = fmt.Errorf("go test -c: %v\n%s", err, out)
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
