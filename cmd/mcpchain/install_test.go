package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

			// ./cmd/weather is no Go package: the entry's shape is
			// what is checked here, not the server.
			args := append([]string{"install", "--no-check", tc.client}, tc.flags...)
			r := run(t, home, project, append(args, "--go-run", "./cmd/weather", "--env", "API_KEY=k1")...)
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
			r = run(t, home, project, append(args, "--go-run", "./cmd/weather", "--env", "API_KEY=k1")...)
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
	r := run(t, t.TempDir(), "", "install", "mcp-json", "--no-check", "--name", "w", "--", "/opt/w", "-v")
	require.Equal(t, 0, r.code, r.stderr)
	require.JSONEq(t, `{"mcpServers":{"w":{"command":"/opt/w","args":["-v"]}}}`, r.stdout)

	r = run(t, t.TempDir(), "", "install", "emacs", ".")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `unknown client "emacs": want one of claude-code, claude-desktop, cursor, gemini, goose, mcp-json, vscode`)

	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("{ // a comment\n}"), 0o644))
	r = run(t, home, "", "install", "cursor", "--no-check", "--", "/opt/w")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not valid JSON (comments and trailing commas are not supported")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{ // a comment\n}", string(b), "a file install cannot read is left alone")
}

// TestInstalledEntryRuns: the entry install writes for a package starts
// the server from any directory (clients start it from their own): by
// default a binary built now, in the per-user bin directory; with
// --go-run, go run. install has checked that it answers initialize.
func TestInstalledEntryRuns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		flags   []string
		command string
		args    []string
	}{
		{nil, filepath.Join(home, ".local", "share", "mcpchain", "bin", "hello"), []string{}},
		{[]string{"--go-run"}, "", []string{"-C", filepath.Join(repoRoot, "examples", "hello"), "run", "."}},
	} {
		t.Run(strings.Join(append([]string{"default"}, tc.flags...), ""), func(t *testing.T) {
			args := append(append([]string{"install", "mcp-json"}, tc.flags...), filepath.Join(repoRoot, "examples", "hello"))
			r := run(t, home, "", args...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stderr, "checked: the server starts and answers initialize (hello 1.0.0)")
			var doc struct {
				MCPServers map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"mcpServers"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
			e, ok := doc.MCPServers["hello"]
			require.True(t, ok, r.stdout)
			if tc.command != "" {
				require.Equal(t, tc.command, e.Command)
				require.Contains(t, r.stderr, "built "+filepath.Join(repoRoot, "examples", "hello")+" into "+tc.command)
			}
			require.Equal(t, tc.args, e.Args)
			r = run(t, "", t.TempDir(), append([]string{"inspect", "--", e.Command}, e.Args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, "Server        hello 1.0.0\n")
		})
	}
}

// TestInstallChecksServerStarts: install starts the server and sends
// initialize before writing; one that exits, or does not answer in
// time, is not installed, and what it wrote on stderr is in the error.
func TestInstallChecksServerStarts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")

	r := run(t, home, "", "install", "cursor", "--name", "notes", "--", "sh", "-c", "echo 'open notes.db: permission denied' >&2; exit 3")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "the server does not start")
	require.Contains(t, r.stderr, "its stderr:\nopen notes.db: permission denied")
	require.Contains(t, r.stderr, "nothing was written; --no-check writes the entry anyway")
	require.NoFileExists(t, path)

	r = run(t, home, "", "install", "cursor", "--check-timeout", "1s", "--name", "mute", "--", "sh", "-c", "exec sleep 60")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "no answer to initialize within 1s (--check-timeout)")
	require.NoFileExists(t, path)

	r = run(t, home, "", "install", "cursor", "--", everything)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "checked: the server starts and answers initialize (everything ")
	require.FileExists(t, path)

	r = run(t, home, "", "install", "cursor", "--no-check", "--name", "notes", "--", "sh", "-c", "exit 3")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, "checked")
}

// TestInstallFlagsAfterDash: install's own flags written after "--" (as
// a synopsis read the wrong way puts them) are the server's arguments,
// and install warns about each.
func TestInstallFlagsAfterDash(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := run(t, home, "", "install", "cursor", "--no-check", "--", "/opt/notes", "--name", "notes-bin", "--env=K=V", "-v", "--verbose")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "mcpchain: warning: --name after -- is an argument of the server, not install's --name: install's flags go before --\n")
	require.Contains(t, r.stderr, "mcpchain: warning: --env=K=V after -- is an argument of the server, not install's --env")
	require.NotContains(t, r.stderr, "--verbose")
	require.Contains(t, r.stdout, `installed "notes" in`)

	r = run(t, home, "", "install", "cursor", "--no-check", "--name", "notes2", "--", "/opt/notes", "-v")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, "warning")
}

// TestInstallReplacingAnotherCommand: an entry of the same name that
// runs another command is kept unless --force, and install shows it;
// an entry whose environment alone changes is replaced, and shown too.
func TestInstallReplacingAnotherCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	r := run(t, home, "", "install", "cursor", "--no-check", "--name", "notes", "--", "/opt/notes", "serve")
	require.Equal(t, 0, r.code, r.stderr)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	r = run(t, home, "", "install", "cursor", "--no-check", "--name", "notes", "--", "/opt/notes-bin")
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, path+` already has a server "notes" that runs another command:`)
	require.Contains(t, r.stderr, `"notes": {"command":"/opt/notes","args":["serve"]}`)
	require.Contains(t, r.stderr, "--force replaces it")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))

	r = run(t, home, "", "install", "cursor", "--no-check", "--force", "--name", "notes", "--", "/opt/notes-bin")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `cursor: replaced "notes" in `+path+` (previous file saved as `+path+`.bak); it was:`+"\n"+`"notes": {"command":"/opt/notes","args":["serve"]}`)

	r = run(t, home, "", "install", "cursor", "--no-check", "--name", "notes", "--env", "K=V", "--", "/opt/notes-bin")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `it was:`+"\n"+`"notes": {"command":"/opt/notes-bin","args":[]}`)
}
