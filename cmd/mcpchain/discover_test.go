package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInstallGeminiGoose: install writes Gemini CLI's settings.json and
// Goose's config.yaml in the shapes they document, keeping the rest.
func TestInstallGeminiGoose(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	gooseFile := filepath.Join(home, ".config", "goose", "config.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(gooseFile), 0o755))
	require.NoError(t, os.WriteFile(gooseFile, []byte("GOOSE_PROVIDER: openai # mine\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n"), 0o600))

	r := run(t, home, "", "install", "goose", "--no-check", "--name", "w", "--env", "K=V", "--", "/opt/w", "-v")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `goose: installed "w" in `+gooseFile)
	b, err := os.ReadFile(gooseFile)
	require.NoError(t, err)
	require.Equal(t, `GOOSE_PROVIDER: openai # mine
extensions:
  developer:
    enabled: true
    type: builtin
  w:
    name: w
    type: stdio
    cmd: /opt/w
    args:
      - -v
    envs:
      K: V
    enabled: true
    timeout: 300
`, string(b))
	r = run(t, home, "", "install", "goose", "--no-check", "--name", "w", "--env", "K=V", "--", "/opt/w", "-v")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "(unchanged)")

	r = run(t, home, "", "install", "gemini", "--no-check", "--name", "w", "--", "/opt/w", "-v")
	require.Equal(t, 0, r.code, r.stderr)
	b, err = os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	require.NoError(t, err)
	require.JSONEq(t, `{"mcpServers":{"w":{"command":"/opt/w","args":["-v"]}}}`, string(b))
}

// TestDiscover: discover lists the servers of every client's user and
// project files (a remote one by its URL), as a table and as JSON; a file
// it cannot read is reported, the others still listed.
func TestDiscover(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	gemini := filepath.Join(home, ".gemini", "settings.json")
	goose := filepath.Join(home, ".config", "goose", "config.yaml")
	vscode := filepath.Join(project, ".vscode", "mcp.json")
	write(cursor, `{"mcpServers": {"notes": {"command": "/opt/notes", "args": ["serve"]}}}`)
	write(gemini, `{"theme": "x", "mcpServers": {"remote": {"httpUrl": "https://mcp.example.com/mcp"}}}`)
	write(goose, "extensions:\n  w:\n    type: stdio\n    cmd: /opt/w\n    args: [-v]\n    enabled: true\n")
	write(vscode, `{"servers": {"proj": {"type": "stdio", "command": "/opt/proj"}}}`)

	r := run(t, home, project, "discover")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, `NAME    CLIENT            COMMAND OR URL               FILE
notes   cursor            /opt/notes serve             `+cursor+`
remote  gemini            https://mcp.example.com/mcp  `+gemini+`
w       goose             /opt/w -v                    `+goose+`
proj    vscode (project)  /opt/proj                    `+vscode+`
`, r.stdout)

	r = run(t, home, project, "discover", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.Len(t, got, 4)
	require.Equal(t, map[string]any{"name": "notes", "client": "cursor", "command": "/opt/notes", "args": []any{"serve"}, "path": cursor}, got[0])
	require.Equal(t, map[string]any{"name": "remote", "client": "gemini", "url": "https://mcp.example.com/mcp", "path": gemini}, got[1])
	require.Equal(t, map[string]any{"name": "proj", "client": "vscode", "command": "/opt/proj", "path": vscode, "project": true}, got[3])

	write(cursor, `{"mcpServers": {`)
	r = run(t, home, project, "discover")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "mcpchain: "+cursor+" (cursor): not valid JSON")
	require.Contains(t, r.stdout, "remote  ")

	r = run(t, t.TempDir(), t.TempDir(), "discover", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "[]\n", r.stdout)
}
