package e2e

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/proxy"
)

// The remote child of the composition: node/remote-server.mjs (a
// TypeScript SDK server, a separate process over Streamable HTTP) behind
// a gateway (package proxy) whose server is mounted in the parent under
// the prefix "remote".

// startRemoteServer runs node/remote-server.mjs on a free loopback port
// and returns its URL; the test kills the process (by its PID) at the end.
func startRemoteServer(t testing.TB) string {
	t.Helper()
	url, _ := startRemoteProcess(t)
	return url
}

// startRemoteProcess is startRemoteServer, returning the process's PID too.
func startRemoteProcess(t testing.TB) (url string, pid int) {
	t.Helper()
	dir, bin := nodePaths(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	cmd := exec.Command(filepath.Join(bin, "node"), filepath.Join(dir, "remote-server.mjs"), addr)
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "remote-server.mjs listens: %s", stderr)
	return "http://" + addr + "/mcp", cmd.Process.Pid
}

// remoteGateway is the gateway to the remote server at url.
func remoteGateway(ctx context.Context, url string) (*proxy.Gateway, error) {
	return proxy.New(ctx, proxy.Options{
		Upstream:       func(*mcp.Context) client.Transport { return client.HTTP(url, nil) },
		Server:         mcp.Options{Name: "remote", Version: "1.0.0", Logger: quiet()},
		ConnectTimeout: 10 * time.Second, // a loaded machine answers slowly
	})
}

// remoteCheck is what a client must see of the remote child.
var remoteCheck = composeCheck{
	tool: "remote_shout", args: map[string]any{"text": "hi"}, toolText: "HI",
	uri: "remote://remote/readme", uriText: "served by TypeScript",
	prompt: "remote_haiku", args2: map[string]string{"topic": "go"}, promptTx: "A haiku on go.",
}

// remoteChild starts the remote server and its gateway; the gateway is
// closed at the end of the test.
func remoteChild(t testing.TB) (composeChild, composeCheck, *proxy.Gateway) {
	t.Helper()
	url := startRemoteServer(t)
	g, err := remoteGateway(testContext(t, 30*time.Second), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	return composeChild{"remote", g.Server()}, remoteCheck, g
}

// fullComposition is the two local children and the remote one.
func fullComposition(t testing.TB) ([]composeChild, []composeCheck, *proxy.Gateway) {
	children, checks := localComposition()
	r, rc, g := remoteChild(t)
	return append(children, r), append(checks, rc), g
}

// stdioRemoteChild is the remote child of the composition the test binary
// serves over stdio (see init in compose_test.go): the remote server's URL
// is in COMPOSE_REMOTE_URL.
func stdioRemoteChild(url string) (composeChild, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g, err := remoteGateway(ctx, url)
	if err != nil {
		return composeChild{}, fmt.Errorf("the gateway to %s: %w", url, err)
	}
	return composeChild{"remote", g.Server()}, nil
}
