package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
)

// TestBridge: a stdio client (package client, spawning the binary as a
// desktop client does) reaches examples/everything over Streamable HTTP
// through mcpchain bridge: tools, a call with its progress, a resource,
// a header that bridge adds upstream; stderr has bridge's log, stdout
// carried only JSON-RPC (the client decoded every line).
func TestBridge(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(mcpchainBin, "bridge", "-H", "Authorization: Bearer alice", url)
	cmd.Env = testEnv(t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	c, err := client.Connect(ctx, client.Command(cmd), &client.Options{Info: mcp.Implementation{Name: "stdio-desktop", Version: "1"}})
	require.NoError(t, err, stderr.String())

	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Name] = true
	}
	assert.True(t, names["add"] && names["echo"] && names["whoami"], "the upstream's tools: %v", names)

	res, err := c.CallTool(ctx, "add", map[string]any{"a": 2, "b": 3}, nil)
	require.NoError(t, err)
	require.Equal(t, "5", res.Content[0].(mcp.TextContent).Text)

	var steps []float64
	res, err = c.CallTool(ctx, "progress", nil, &client.CallOptions{Progress: func(p mcp.Progress) { steps = append(steps, p.Progress) }})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, []float64{1, 2, 3}, steps, "progress crosses the bridge")

	res, err = c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	b, _ := json.Marshal(res.StructuredContent)
	assert.Contains(t, string(b)+res.Content[0].(mcp.TextContent).Text, `alice`, "-H reaches the upstream")

	rr, err := c.ReadResource(ctx, "file:///hello.txt")
	require.NoError(t, err)
	require.NotEmpty(t, rr.Contents)

	require.NoError(t, c.Close())
	stderr.waitLine(t, 0, "bridge: serving stdio", 5*time.Second)
	noRace(t, stderr.String())
}

// TestBridgeArgs: bridge refuses what it cannot bridge, with a message.
func TestBridgeArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no URL", []string{"bridge"}, "accepts 1 arg(s), received 0"},
		{"a command", []string{"bridge", "go run ./server"}, "bridge needs an http(s) URL"},
		{"client flags without --oauth", []string{"bridge", "--client-id", "x", "http://127.0.0.1:9/mcp"}, "need --oauth"},
		{"secret without id", []string{"bridge", "--oauth", "--client-secret", "s", "http://127.0.0.1:9/mcp"}, "--client-secret needs --client-id"},
		{"id and metadata URL", []string{"bridge", "--oauth", "--client-id", "x", "--client-metadata-url", "https://a.example/c.json", "http://127.0.0.1:9/mcp"}, "not both"},
		{"--oauth on a stdio target", []string{"call", "--oauth", "echo", "--", "true"}, "--oauth applies to an http(s) TARGET only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, t.TempDir(), "", tc.args...)
			require.Equal(t, 1, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Empty(t, r.stdout)
		})
	}
}

// TestTokenFile: the tokens go to mcpchain/tokens.json in the user's
// config directory, a directory of mode 0700 and a file of mode 0600,
// and are read back by a new store (the next start).
func TestTokenFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	path, err := defaultTokenFile()
	require.NoError(t, err)
	cfg, _ := os.UserConfigDir()
	require.Equal(t, filepath.Join(cfg, "mcpchain", "tokens.json"), path)

	s, err := tokenStore(path)
	require.NoError(t, err)
	creds := &oauth.Credentials{Token: &oauth2.Token{AccessToken: "at", RefreshToken: "rt"}, Issuer: "https://as.example"}
	require.NoError(t, s.Save(context.Background(), "https://mcp.example/mcp", creds))

	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the token file")
	di, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm(), "its directory")

	s2, err := tokenStore(path)
	require.NoError(t, err)
	got, err := s2.Load(context.Background(), "https://mcp.example/mcp")
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, "rt", got.Token.RefreshToken)
}

// TestBridgeStdoutIsJSONRPC: every line bridge writes on stdout is a
// JSON-RPC message (its log goes to stderr, -v included), and it exits 0
// when the client closes stdin.
func TestBridgeStdoutIsJSONRPC(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	cmd := exec.Command(mcpchainBin, "bridge", "-v", url)
	cmd.Env = testEnv(t.TempDir())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout := &syncBuffer{}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	done := make(chan error, 1)
	require.NoError(t, cmd.Start())
	go func() { done <- cmd.Wait() }()
	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}
`)
	require.NoError(t, err)
	stdout.waitLine(t, 0, `"id":3`, 20*time.Second)
	require.NoError(t, stdin.Close())
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("bridge did not exit when stdin ended:\n%s", stderr.String())
	}
	noRace(t, stderr.String())
	ids := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var msg map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &msg), "a stdout line that is not JSON: %q", line)
		require.Equal(t, "2.0", msg["jsonrpc"], line)
		if id, ok := msg["id"].(float64); ok {
			ids[id] = true
		}
	}
	assert.Equal(t, map[float64]bool{1: true, 2: true, 3: true}, ids, "an answer to each request:\n%s", stdout.String())
	assert.Contains(t, stdout.String(), `"text":"3"`)
	assert.Contains(t, stderr.String(), "bridge: serving stdio")
	assert.Contains(t, stderr.String(), "bridge: the client closed stdin")
}

// TestBridgeLogsNoURLSecrets: bridge's log and its errors go to the
// desktop client's log files; the upstream URL's query values and user
// information (where tokens travel) are not in them.
func TestBridgeLogsNoURLSecrets(t *testing.T) {
	t.Parallel()
	up := startEverything(t)
	for _, tc := range []struct {
		name, url string
		code      int
	}{
		{"served", up + "?token=s3cret", 0},
		{"unreachable", "http://alice:s3cret@" + closedAddr(t) + "/mcp?token=s3cret", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, t.TempDir(), "", "bridge", tc.url)
			require.Equal(t, tc.code, res.code, res.stderr)
			assert.Contains(t, res.stderr, "token=REDACTED", "the log still says where bridge goes")
			assert.NotContains(t, res.stderr, "s3cret")
		})
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}
