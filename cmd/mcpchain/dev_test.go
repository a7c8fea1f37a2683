package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/testport"
)

// serverSource is the temp module's server: tools named by tools, over
// stdio, or Streamable HTTP with -http -port N.
func serverSource(tools ...string) string {
	var b strings.Builder
	b.WriteString(`package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

type in struct{}

func main() {
	httpMode := flag.Bool("http", false, "")
	port := flag.Int("port", 0, "")
	flag.Parse()
	srv := mcp.NewServer(mcp.Options{Name: "devtest", Version: "1.0.0"})
`)
	for _, name := range tools {
		b.WriteString(`	mcp.AddTool(srv, mcp.Tool{Name: "` + name + `"}, func(ctx context.Context, c *mcp.Context, _ in) (string, error) { return "` + name + ` says hi", nil })
`)
	}
	b.WriteString(`	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := &mcphttp.StartOptions{}
	if *httpMode {
		opts.TransportType = mcphttp.TransportHTTPStream
		opts.Host, opts.Port = "127.0.0.1", *port
	}
	inst, err := mcphttp.Start(ctx, srv, opts)
	if err != nil {
		log.Fatal(err)
	}
	if err := inst.Wait(); err != nil {
		log.Fatal(err)
	}
}
`)
	return b.String()
}

// tempModule writes a module whose server uses this module through a
// replace directive, and returns its directory.
func tempModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gomod := "module devtest\n\ngo 1.26.0\n\nrequire github.com/mcpchain/mcp v0.0.0\n\nreplace github.com/mcpchain/mcp => " + repoRoot + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(serverSource("first")), 0o644))
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	tidy.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := tidy.CombinedOutput()
	require.NoError(t, err, "go mod tidy: %s", out)
	return dir
}

func toolNames(t *testing.T, ctx context.Context, c *client.Client) []string {
	t.Helper()
	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// edit writes main.go with tools and returns when it did.
func edit(t *testing.T, dir string, tools ...string) time.Time {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(serverSource(tools...)), 0o644))
	return time.Now()
}

func breakBuild(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(serverSource("first", "second")+"\nfunc broken() { undefined() }\n"), 0o644))
}

// TestDevStdio: a client (package client) starts `mcpchain dev` as its
// stdio server. After an edit that adds a tool, the client is told
// (notifications/tools/list_changed) and lists the new tool in the same
// session; a build error keeps the old server answering; every request
// is logged.
func TestDevStdio(t *testing.T) {
	t.Parallel()
	dir := tempModule(t)
	stderr := &syncBuffer{}
	cmd := exec.Command(mcpchainBin, "dev")
	cmd.Dir = dir
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	changed := make(chan time.Time, 10)
	c, err := client.Connect(ctx, client.Command(cmd), &client.Options{OnToolsChanged: func() { changed <- time.Now() }})
	require.NoError(t, err, "stderr: %s", stderr)
	defer c.Close()
	require.Equal(t, "devtest", c.Initialize().ServerInfo.Name)
	require.Equal(t, []string{"first"}, toolNames(t, ctx, c))
	stderr.waitLine(t, 0, "rpc  tools/list", 5*time.Second)
	require.Contains(t, stderr.String(), "mcpchain dev: speaking MCP on stdin/stdout; to attach the MCP Inspector run:\n  npx @modelcontextprotocol/inspector "+mcpchainBin+" dev "+dir+"\n")

	from := stderr.count()
	edited := edit(t, dir, "first", "second")
	builtAt, _ := stderr.waitLine(t, from, "dev  built . in", time.Minute)
	var notified time.Time
	select {
	case notified = <-changed:
	case <-time.After(30 * time.Second):
		t.Fatalf("no tools/list_changed; stderr:\n%s", stderr)
	}
	require.Equal(t, []string{"first", "second"}, toolNames(t, ctx, c))
	seen := time.Now()
	require.Less(t, seen.Sub(builtAt), 2*time.Second, "the client sees the new tool within 2 s of the build")
	t.Logf("edit → built %s, built → list_changed %s, built → new tool listed %s (edit → listed %s)",
		builtAt.Sub(edited), notified.Sub(builtAt), seen.Sub(builtAt), seen.Sub(edited))
	res, err := c.CallTool(ctx, "second", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "second says hi", res.Content[0].(mcp.TextContent).Text)
	stderr.waitLine(t, from, "rpc  tools/call second", 5*time.Second)
	stderr.waitLine(t, from, "sent the client notifications/tools/list_changed, ", time.Second)

	from = stderr.count()
	breakBuild(t, dir)
	stderr.waitLine(t, from, "dev  build failed", time.Minute)
	require.Contains(t, stderr.String(), "undefined: undefined")
	res, err = c.CallTool(ctx, "second", nil, nil)
	require.NoError(t, err, "the last good server still answers")
	require.Equal(t, "second says hi", res.Content[0].(mcp.TextContent).Text)
	_, err = c.CallTool(ctx, "nope", nil, nil)
	require.Error(t, err)
	stderr.waitLine(t, from, "rpc  tools/call nope", 5*time.Second)
	require.Regexp(t, `rpc  tools/call nope\s+\S+  error -32602`, stderr.String())
	closing := time.Now()
	require.NoError(t, c.Close())
	require.Less(t, time.Since(closing), 4*time.Second, "dev ends when its stdin does (not killed after 5 s)")
	require.True(t, cmd.ProcessState.Success(), "dev exits 0: %s", cmd.ProcessState)
	stderr.waitLine(t, from, "client closed stdin; stopping", time.Second)
	noRace(t, stderr.String())
}

// TestDevHTTP: `mcpchain dev --http URL --proxy-port P` restarts the HTTP
// server on change; a client that connects again (its session ended with
// the old server) sees the new tool; a build error keeps the old server;
// the proxy logs each request.
func TestDevHTTP(t *testing.T) {
	t.Parallel()
	dir := tempModule(t)
	port, err := testport.Free()
	require.NoError(t, err)
	proxyPort, err := testport.Free()
	require.NoError(t, err)
	upstream := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	proxy := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(proxyPort)) + "/mcp"
	stderr := &syncBuffer{}
	cmd := exec.Command(mcpchainBin, "dev", "--http", upstream, "--proxy-port", strconv.Itoa(proxyPort), "--", "-http", "-port", strconv.Itoa(port))
	cmd.Dir = dir
	cmd.Stderr, cmd.Stdout = stderr, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	stderr.waitLine(t, 0, "server 1 listening", time.Minute)
	require.Contains(t, stderr.String(), "and connect it to "+proxy+" (transport: Streamable HTTP)")
	c, err := client.Connect(ctx, client.HTTP(proxy, nil), nil)
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, []string{"first"}, toolNames(t, ctx, c))
	stderr.waitLine(t, 0, "rpc  tools/list", 5*time.Second)

	from := stderr.count()
	edited := edit(t, dir, "first", "second")
	builtAt, _ := stderr.waitLine(t, from, "dev  built . in", time.Minute)
	stderr.waitLine(t, from, "server 2 listening", 30*time.Second)
	c2, err := client.Connect(ctx, client.HTTP(proxy, nil), nil)
	require.NoError(t, err)
	defer c2.Close()
	require.Equal(t, []string{"first", "second"}, toolNames(t, ctx, c2))
	seen := time.Now()
	require.Less(t, seen.Sub(builtAt), 2*time.Second, "a client sees the new tool within 2 s of the build")
	t.Logf("edit → built %s, built → new tool listed by a new session %s (edit → listed %s)", builtAt.Sub(edited), seen.Sub(builtAt), seen.Sub(edited))
	_, err = c.ListTools(ctx)
	require.ErrorIs(t, err, mcp.ErrNoSession, "the old session ended with the old server")

	from = stderr.count()
	breakBuild(t, dir)
	stderr.waitLine(t, from, "dev  build failed", time.Minute)
	res, err := c2.CallTool(ctx, "second", nil, nil)
	require.NoError(t, err, "the last good server still answers")
	require.Equal(t, "second says hi", res.Content[0].(mcp.TextContent).Text)
	stderr.waitLine(t, from, "rpc  tools/call second", 5*time.Second)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait(), "dev exits 0 on SIGINT")
	noRace(t, stderr.String())
}

// sleepTool is a tool slower than dev's grace periods for the old
// server (5 s for its calls, 2 s to exit once its stdin closed) that
// ignores cancellation.
const sleepTool = `	mcp.AddTool(srv, mcp.Tool{Name: "sleep"}, func(ctx context.Context, c *mcp.Context, _ in) (string, error) {
		time.Sleep(30 * time.Second)
		return "woke", nil
	})
`

// TestDevStdioCallDuringRestart: a call the old server has not answered
// after a restart (5 s for its calls, then 2 s to exit once its stdin is
// closed, then a kill) fails with -32603, and the client goes on with the
// new server.
func TestDevStdioCallDuringRestart(t *testing.T) {
	t.Parallel()
	dir := tempModule(t)
	src := strings.Replace(serverSource("first"), "\tctx, stop :=", sleepTool+"\tctx, stop :=", 1)
	src = strings.Replace(src, "import (\n", "import (\n\t\"time\"\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644))
	stderr := &syncBuffer{}
	cmd := exec.Command(mcpchainBin, "dev")
	cmd.Dir = dir
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := client.Connect(ctx, client.Command(cmd), nil)
	require.NoError(t, err, "stderr: %s", stderr)
	defer c.Close()

	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "sleep", nil, nil)
		done <- err
	}()
	stderr.waitLine(t, 0, "dev  server 1 started", time.Minute)
	time.Sleep(200 * time.Millisecond) // the call has reached server 1
	from := stderr.count()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.ReplaceAll(src, `"first"`, `"second"`)), 0o644))
	restarted, _ := stderr.waitLine(t, from, "dev  server 2 started", time.Minute)
	select {
	case err := <-done:
		var rpc *mcp.Error
		require.ErrorAs(t, err, &rpc)
		require.EqualValues(t, -32603, rpc.Code)
		require.Contains(t, rpc.Message, "the server was restarted before it answered")
		require.InDelta(t, 7, time.Since(restarted).Seconds(), 1.5, "after the grace periods (5 s + 2 s)")
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight never ended")
	}
	// dev's stderr reaches the buffer through a pipe: wait for the line.
	stderr.waitLine(t, from, "rpc  tools/call sleep", 5*time.Second)
	require.Regexp(t, `rpc  tools/call sleep\s+\S+  error -32603 server restarted`, stderr.String())
	require.Equal(t, []string{"second", "sleep"}, toolNames(t, ctx, c))
	noRace(t, stderr.String())
}

// TestDevLogsServerRequests: over stdio dev also logs the server's own
// requests to the client (roots/list here, from examples/everything's
// roots tool), marked "←", and passes the client's answer back.
func TestDevLogsServerRequests(t *testing.T) {
	t.Parallel()
	stderr := &syncBuffer{}
	// From another directory, as a client starts it.
	cmd := exec.Command(mcpchainBin, "dev", filepath.Join(repoRoot, "examples", "everything"))
	cmd.Dir = t.TempDir()
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := client.Connect(ctx, client.Command(cmd), &client.Options{
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///work", Name: "work"}}, nil
		},
	})
	require.NoError(t, err, "stderr: %s", stderr)
	defer c.Close()
	res, err := c.CallTool(ctx, "roots", nil, nil)
	require.NoError(t, err)
	require.Contains(t, res.Content[0].(mcp.TextContent).Text, "file:///work")
	stderr.waitLine(t, 0, "rpc  tools/call roots", 5*time.Second)
	require.Regexp(t, `rpc  ← roots/list\s+\S+  ok`, stderr.String())
	require.NoError(t, c.Close())
	noRace(t, stderr.String())
}
