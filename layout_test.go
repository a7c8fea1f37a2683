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

// harnessTestFiles are mcphttp's test files that test no one source file:
// its test setup and shared helpers, its benchmarks, its fuzz target of the
// whole handler, its README check, and the files a build constraint sets
// apart (soak, and the bounds the race detector distorts). Its examples
// (example_test.go, example_*_test.go) are harness files too.
var harnessTestFiles = []string{
	"bench_test.go", "export_test.go", "fuzz_test.go", "helpers_test.go", "main_test.go",
	"norace_test.go", "readme_test.go", "soak_test.go",
}

// TestTestFilesNamedAfterSources: every test file of mcphttp is named
// after the source file it tests (x_test.go, x_internal_test.go or
// x_fuzz_test.go for x.go) or is one of its few harness files, so a test
// is found beside its source and a feature has one home.
func TestTestFilesNamedAfterSources(t *testing.T) {
	t.Parallel()
	const dir = "mcphttp"
	harness := map[string]bool{}
	for _, name := range harnessTestFiles {
		harness[name] = true
		_, err := os.Stat(filepath.Join(dir, name))
		assert.NoError(t, err, "harnessTestFiles names %s/%s, which is gone: take it off the list", dir, name)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := filepath.Base(f)
		if harness[name] || name == "example_test.go" || strings.HasPrefix(name, "example_") {
			continue
		}
		base := strings.TrimSuffix(name, "_test.go")
		for _, suffix := range []string{"_internal", "_fuzz"} {
			if b, ok := strings.CutSuffix(base, suffix); ok {
				base = b
				break
			}
		}
		if _, err := os.Stat(filepath.Join(dir, base+".go")); err != nil {
			t.Errorf("%s/%s is named after no source file: there is no %s/%s.go. Name it after the source it tests, or merge it into that source's test file", dir, name, dir, base)
		}
	}
}
