package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInspect runs mcpchain inspect against examples/everything over
// stdio (after "--", and as one quoted TARGET) and Streamable HTTP.
func TestInspect(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stdio after --", []string{"--", everything}},
		{"stdio quoted", []string{everything}},
		{"http", []string{url}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "", "", append([]string{"inspect"}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			for _, want := range []string{
				"Server        everything 1.0.0\n",
				"Protocol      2025-11-25\n",
				"prompts (listChanged)",
				"tools (listChanged)",
				"  add — Add two numbers\n    in:  {a: number, b: number}\n",
				"  dice — Roll a die (an MCP App shows it)\n    in:  {seed?: integer}\n    out: {dice: []integer, sides: integer, total: integer}\n",
				"Resources (1)\n  file:///hello.txt (hello)  [text/plain] — A greeting\n",
				"Resource templates (1)\n  greeting://{name} (greeting)",
				"Prompts (1)\n  greet(name) — Greet someone\n",
			} {
				require.Contains(t, r.stdout, want)
			}
		})
	}
}

// TestInspectJSONAndCheck: --json is the same on every run and over
// every transport, --check passes on it and fails, with a readable diff,
// when the surface changed.
func TestInspectJSONAndCheck(t *testing.T) {
	t.Parallel()
	url := startEverything(t)
	a := run(t, "", "", "inspect", "--json", "--", everything)
	require.Equal(t, 0, a.code, a.stderr)
	b := run(t, "", "", "inspect", "--json", everything)
	require.Equal(t, a.stdout, b.stdout, "--json is stable between runs")
	h := run(t, "", "", "inspect", "--json", url)
	require.Equal(t, a.stdout, h.stdout, "the same surface over stdio and HTTP")
	require.Contains(t, a.stdout, `"name": "add"`)
	require.NotContains(t, a.stdout, "_meta\": {\"progressToken")

	dir := t.TempDir()
	file := filepath.Join(dir, "surface.json")
	require.NoError(t, os.WriteFile(file, []byte(a.stdout), 0o644))
	ok := run(t, "", "", "inspect", "--check", file, "--", everything)
	require.Equal(t, 0, ok.code, ok.stderr)
	require.Contains(t, ok.stdout, "the server's surface matches")

	// The file says what a previous version of the server offered: echo
	// did not exist, add's b was a string, and a tool "gone" existed.
	old := strings.Replace(a.stdout, `"name": "echo"`, `"name": "gone"`, 1)
	old = strings.Replace(old, `"description": "the second addend",
            "type": "number"`, `"description": "the second addend",
            "type": "string"`, 1)
	require.NotEqual(t, a.stdout, old)
	require.Contains(t, old, `"type": "string"`)
	require.NoError(t, os.WriteFile(file, []byte(old), 0o644))
	bad := run(t, "", "", "inspect", "--check", file, "--", everything)
	require.Equal(t, 1, bad.code)
	require.Contains(t, bad.stdout, "the server's surface changed (3 differences")
	require.Contains(t, bad.stdout, "  + tools[echo]\n")
	require.Contains(t, bad.stdout, "  - tools[gone]\n")
	require.Contains(t, bad.stdout, `  ~ tools[add].inputSchema.properties.b.type: "string" → "number"`+"\n")
}
