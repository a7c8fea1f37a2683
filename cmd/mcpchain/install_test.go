package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInstall runs mcpchain install for each client with a temporary
// HOME: the documented file at the documented place, with the exact
// entry shape; merged into an existing file; idempotent; a .bak backup.
func TestInstall(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	goBin, _ = filepath.Abs(goBin)

	for _, tc := range []struct {
		client string
		flags  []string
		path   func(home, project string) string
		key    string
		typ    bool // the entry has "type": "stdio"
	}{
		{"claude-desktop", nil, func(h, _ string) string { return filepath.Join(h, ".config", "Claude", "claude_desktop_config.json") }, "mcpServers", false},
		{"claude-code", nil, func(h, _ string) string { return filepath.Join(h, ".claude.json") }, "mcpServers", true},
		{"claude-code", []string{"--project"}, func(_, p string) string { return filepath.Join(p, ".mcp.json") }, "mcpServers", true},
		{"cursor", nil, func(h, _ string) string { return filepath.Join(h, ".cursor", "mcp.json") }, "mcpServers", false},
		{"cursor", []string{"--project"}, func(_, p string) string { return filepath.Join(p, ".cursor", "mcp.json") }, "mcpServers", false},
		{"vscode", nil, func(h, _ string) string { return filepath.Join(h, ".config", "Code", "User", "mcp.json") }, "servers", true},
		{"vscode", []string{"--project"}, func(_, p string) string { return filepath.Join(p, ".vscode", "mcp.json") }, "servers", true},
		{"mcp-json", []string{"--file", "out/mcp.json"}, func(_, p string) string { return filepath.Join(p, "out", "mcp.json") }, "mcpServers", false},
	} {
		t.Run(tc.client+filepath.Base(tc.path("", "")), func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(project, "cmd", "weather"), 0o755))
			path := tc.path(home, project)

			// An existing file with other keys and another server.
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			existing := `{"theme": "dark", "` + tc.key + `": {"other": {"command": "other-server", "args": ["x"]}}, "numStartups": 3}`
			require.NoError(t, os.WriteFile(path, []byte(existing), 0o600))

			args := append([]string{"install", tc.client}, tc.flags...)
			r := run(t, home, project, append(args, "./cmd/weather", "--env", "API_KEY=k1")...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, `installed "weather" in `+path+` (previous file saved as `+path+`.bak)`)

			want := map[string]any{"command": goBin, "args": []any{"-C", filepath.Join(project, "cmd", "weather"), "run", "."}, "env": map[string]any{"API_KEY": "k1"}}
			if tc.typ {
				want["type"] = "stdio"
			}
			var doc map[string]any
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &doc))
			require.Equal(t, map[string]any{
				"theme":       "dark",
				"numStartups": float64(3),
				tc.key: map[string]any{
					"other":   map[string]any{"command": "other-server", "args": []any{"x"}},
					"weather": want,
				},
			}, doc)
			bak, err := os.ReadFile(path + ".bak")
			require.NoError(t, err)
			require.Equal(t, existing, string(bak))
			fi, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file's mode is kept")

			// Again: nothing changes, no new backup.
			require.NoError(t, os.Remove(path+".bak"))
			r = run(t, home, project, append(args, "./cmd/weather", "--env", "API_KEY=k1")...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, `"weather" is already installed in `+path+` (unchanged)`)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(b), string(after))
			require.NoFileExists(t, path+".bak")

			// A command after --, under another name, next to weather.
			r = run(t, home, project, append(args, "--name", "sh", "--", "sh", "-c", "exit 0")...)
			require.Equal(t, 0, r.code, r.stderr)
			shPath, err := exec.LookPath("sh")
			require.NoError(t, err)
			b, err = os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &doc))
			servers := doc[tc.key].(map[string]any)
			require.Len(t, servers, 3)
			require.Equal(t, shPath, servers["sh"].(map[string]any)["command"])
			require.Equal(t, []any{"-c", "exit 0"}, servers["sh"].(map[string]any)["args"])
		})
	}
}

func TestInstallMCPJSONPrints(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), "", "install", "mcp-json", "--name", "w", "--", "/opt/w", "-v")
	require.Equal(t, 0, r.code, r.stderr)
	require.JSONEq(t, `{"mcpServers":{"w":{"command":"/opt/w","args":["-v"]}}}`, r.stdout)

	r = run(t, t.TempDir(), "", "install", "emacs", ".")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `unknown client "emacs": want one of claude-code, claude-desktop, cursor, mcp-json, vscode`)

	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("{ // a comment\n}"), 0o644))
	r = run(t, home, "", "install", "cursor", "--", "/opt/w")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not valid JSON (comments and trailing commas are not supported")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{ // a comment\n}", string(b), "a file install cannot read is left alone")
}

// TestInstalledEntryRuns: the entry install writes for a package starts
// the server from any directory (clients start it from their own).
func TestInstalledEntryRuns(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), "", "install", "mcp-json", filepath.Join(repoRoot, "examples", "hello"))
	require.Equal(t, 0, r.code, r.stderr)
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
	e, ok := doc.MCPServers["hello"]
	require.True(t, ok, r.stdout)
	r = run(t, "", t.TempDir(), append([]string{"inspect", "--", e.Command}, e.Args...)...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Server        hello 1.0.0\n")
}
