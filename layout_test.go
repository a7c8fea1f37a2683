package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publicPackages are the repository's public packages, by directory: those
// api/*.txt records (TestAPISurface keeps that list whole), and the
// command.
func publicPackages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("api/*.txt")
	require.NoError(t, err)
	pkgs := []string{"cmd/mcpchain"}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if name != "mcp" {
			pkgs = append(pkgs, strings.ReplaceAll(name, "_", "/"))
		}
	}
	return pkgs
}

// section is the text of the Markdown file's section under heading (a
// whole line), up to the next heading of the same level.
func section(t *testing.T, file, heading string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	_, s, ok := strings.Cut(string(b), "\n"+heading+"\n")
	require.True(t, ok, "%s has no %q section", file, heading)
	level := heading[:strings.IndexByte(heading, ' ')+1]
	s, _, _ = strings.Cut(s, "\n"+level)
	return s
}

// TestLayoutListed: the README's package table links every public
// package, and CONTRIBUTING's layout table names every top-level
// directory and every public package, so neither falls behind the tree.
func TestLayoutListed(t *testing.T) {
	t.Parallel()
	readme := section(t, "README.md", "## Packages")
	contributing := section(t, "CONTRIBUTING.md", "## Layout")
	for _, p := range publicPackages(t) {
		assert.Contains(t, readme, "](./"+p+")", "README.md's package table has no link to %s", p)
		assert.Contains(t, contributing, "`"+p, "CONTRIBUTING.md's layout table does not name %s", p)
	}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			assert.Contains(t, contributing, "`"+e.Name()+"/`", "CONTRIBUTING.md's layout table does not name the directory %s/", e.Name())
		}
	}
}
