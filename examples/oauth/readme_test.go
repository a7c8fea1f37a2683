package main

import (
	"encoding/json"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/stretchr/testify/require"
)

// readmeOAuthCode returns the Go code blocks of the "OAuth" section of
// docs/auth.md (the OAuth guide the README points to), before its
// subsections, joined: a main package and the provider constructors.
func readmeOAuthCode(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../docs/auth.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## OAuth\n")
	require.True(t, ok, "docs/auth.md has no \"## OAuth\" section")
	section, _, _ = strings.Cut(section, "\n## ")
	section, _, _ = strings.Cut(section, "\n### ") // the section's own text, before its subsections
	var blocks []string
	for {
		var code string
		_, code, ok = strings.Cut(section, "\n```go\n")
		if !ok {
			break
		}
		code, section, ok = strings.Cut(code, "\n```\n")
		require.True(t, ok, "a Go block of the OAuth guide's section is not closed")
		blocks = append(blocks, code+"\n")
	}
	require.Len(t, blocks, 2, "the OAuth guide's section has a program and the providers' constructors")
	for _, b := range blocks {
		formatted, err := format.Source([]byte(b))
		require.NoError(t, err)
		require.Equal(t, string(formatted), b, "the OAuth guide's code must be gofmt'ed")
	}
	return strings.Join(blocks, "\n")
}

// TestOAuthGuideCodeBuilds: the OAuth guide's code compiles against this
// module (go build -overlay puts it in a package of its own without
// writing into the tree).
func TestOAuthGuideCodeBuilds(t *testing.T) {
	code := readmeOAuthCode(t)
	code = strings.Replace(code, "\nfunc main() {", "\nvar _ = newAuth\n\nfunc main() {", 1)
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(src, []byte(code), 0o600))
	target, err := filepath.Abs("readme_oauth_example/main.go") // does not exist on disk
	require.NoError(t, err)
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{target: src}})
	require.NoError(t, err)
	ov := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(ov, overlay, 0o600))
	out, err := gotool.Command("build", "-overlay", ov, "-o", filepath.Join(dir, "example"), "./readme_oauth_example").CombinedOutput()
	require.NoError(t, err, "the OAuth guide's code does not build:\n%s\n%s", out, code)
}
