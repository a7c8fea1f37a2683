package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCallConfig runs mcpchain call --config against an mcp.json that
// configures examples/everything over stdio and over Streamable HTTP.
func TestCallConfig(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	doc, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"local": map[string]any{"command": everything},
		"web":   map[string]any{"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer alice"}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, doc, 0o600))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"mcpServers": {"my_server": {"command": "x"}}}`), 0o600))

	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"stdio server", []string{"call", "--config", file, "local_add", "a=1", "b=2.5"}, 0, "3.5\n", ""},
		{"http server", []string{"call", "--config", file, "web_echo", "text=hi"}, 0, "hi\n", ""},
		{"the entry's headers", []string{"call", "--config", file, "web_whoami"}, 0, `"subject":"alice"`, ""},
		{"--json", []string{"call", "--config", file, "--json", `{"a":2,"b":3}`, "web_add"}, 0, "5\n", ""},
		{"tool error exits 1", []string{"call", "--config", file, "local_fail_user"}, 1, "this is a user error\n", ""},
		{"unknown server", []string{"call", "--config", file, "nope_add"}, 1, "", `"nope_add" is not SERVER_TOOL of a server of ` + file + " (servers: local, web)"},
		{"no prefix", []string{"call", "--config", file, "add"}, 1, "", `"add" is not SERVER_TOOL`},
		{"unknown tool", []string{"call", "--config", file, "web_nope"}, 1, "", "-32602"},
		{"missing tool", []string{"call", "--config", file}, 1, "", "missing SERVER_TOOL"},
		{"bad file", []string{"call", "--config", bad, "my_server_x"}, 1, "", `server "my_server": the name prefixes the server's tools`},
		{"missing file", []string{"call", "--config", filepath.Join(dir, "none.json"), "a_b"}, 1, "", "no such file"},
		{"-H", []string{"call", "--config", file, "-H", "A: b", "web_echo"}, 1, "", "-H and --oauth apply to a TARGET, not to --config"},
		{"--", []string{"call", "--config", file, "local_add", "--", everything}, 1, "", "give no command after --"},
		{"--script", []string{"call", "--config", file, "--script", "-", "local_add"}, 1, "", "--script runs on a TARGET, not with --config"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "", "", c.args...)
			require.Equal(t, c.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			require.Contains(t, r.stdout, c.stdout)
			require.Contains(t, r.stderr, c.stderr)
		})
	}
}
