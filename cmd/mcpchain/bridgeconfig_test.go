package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// TestBridgeConfig: a stdio client that starts "mcpchain bridge --config
// FILE" reaches both servers of the mcp.json, an HTTP one with the
// entry's header and a stdio one the bridge starts with the entry's
// args, each tool under its server's name.
func TestBridgeConfig(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	file := filepath.Join(t.TempDir(), "mcp.json")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"remote": map[string]any{"url": url, "headers": map[string]string{"Authorization": "Bearer alice"}},
		"local":  map[string]any{"command": everything, "args": []string{"-transport", "stdio"}},
		"off":    map[string]any{"command": "/nonexistent", "disabled": true},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, cfg, 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(mcpchainBin, "bridge", "--config", file)
	cmd.Env = testEnv(t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	c, err := client.Connect(ctx, client.Command(cmd), &client.Options{Info: mcp.Implementation{Name: "stdio-desktop", Version: "1"}})
	require.NoError(t, err, stderr.String())

	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"remote_add", "remote_whoami", "local_add"} {
		assert.True(t, slices.Contains(names, want), "%s in %v", want, names)
	}

	res, err := c.CallTool(ctx, "local_add", map[string]any{"a": 2, "b": 3}, nil)
	require.NoError(t, err)
	assert.Equal(t, "5", res.Text(), "the stdio server the bridge started")
	res, err = c.CallTool(ctx, "remote_whoami", nil, nil)
	require.NoError(t, err)
	b, _ := json.Marshal(res.StructuredContent)
	assert.Contains(t, string(b)+res.Text(), "alice", "the entry's header reaches the HTTP server")

	require.NoError(t, c.Close())
	stderr.waitLine(t, 0, "bridge: serving stdio", 5*time.Second)
	assert.Contains(t, stderr.String(), "servers=local,remote")
	noRace(t, stderr.String())
}

// TestBridgeConfigRefuses: bridge --config refuses, with a message and
// nothing on stdout, what it cannot serve: a URL beside the file, a
// TARGET's flags, a file with no enabled server, a server that does not
// start, and bridges nested without end (a file whose entry starts a
// bridge to itself).
func TestBridgeConfigRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	good := write("good.json", `{"mcpServers": {"a": {"url": "http://127.0.0.1:9/mcp"}}}`)
	off := write("off.json", `{"mcpServers": {"a": {"url": "http://127.0.0.1:9/mcp", "disabled": true}}}`)
	self := filepath.Join(dir, "self.json")
	selfJSON, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"loop": map[string]any{"command": mcpchainBin, "args": []string{"bridge", "--config", self}}}})
	require.NoError(t, err)
	write("self.json", string(selfJSON))
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"a URL too", nil, []string{"bridge", "--config", good, "http://127.0.0.1:9/mcp"}, "unknown command"},
		{"-H", nil, []string{"bridge", "--config", good, "-H", "X-A: b"}, "-H and --oauth apply to a URL, not to --config"},
		{"no file", nil, []string{"bridge", "--config", filepath.Join(dir, "missing.json")}, "missing.json"},
		{"no enabled server", nil, []string{"bridge", "--config", off}, "has no enabled server"},
		{"a server down", nil, []string{"bridge", "--config", good}, `"a"`},
		{"nested too deep", []string{"MCPCHAIN_BRIDGE_DEPTH=4"}, []string{"bridge", "--config", good}, "bridges nested 4 deep"},
		{"a bridge to itself", nil, []string{"bridge", "--config", self}, "bridges nested 4 deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, mcpchainBin, tc.args...)
			cmd.Env = append(testEnv(""), tc.env...)
			var out, errb syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "stderr: %s", errb.String())
			assert.Equal(t, 1, ee.ExitCode())
			assert.Contains(t, errb.String(), tc.want)
			assert.Empty(t, out.String())
			noRace(t, errb.String())
		})
	}
}
