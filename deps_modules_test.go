package mcp_test

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/stretchr/testify/require"
)

// nestedOnlyModules are the modules a program that imports only mcp and
// mcphttp must not find in its module graph: each is required by a nested
// module of this repository (cmd/mcpchain, examples, openapi,
// middleware/telemetry), never by the root go.mod.
var nestedOnlyModules = []string{
	"github.com/spf13/cobra",
	"github.com/getkin/kin-openapi",
	"go.opentelemetry.io/",
}

// TestMinimalProgramModules: a program of its own module that imports mcp
// and mcphttp (the root module replaced by this checkout) has none of
// nestedOnlyModules in `go list -m all`, whose graph holds every
// requirement of the root go.mod, the test-only ones too. It runs the go
// command outside the workspace (GOWORK=off) with the module proxy of the
// environment; the root go.sum seeds the program's, so a machine whose
// module cache holds this module's dependencies needs no network.
func TestMinimalProgramModules(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import (
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

func main() {
	_ = mcp.NewServer(mcp.Options{Name: "minimal", Version: "1.0.0"})
	_ = mcphttp.StartOptions{}
}
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(`module example.com/minimal

go 1.26.0

require github.com/mcpchain/mcp v0.0.0-00010101000000-000000000000

replace github.com/mcpchain/mcp => `+root+"\n"), 0o644))
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	run("mod", "tidy")
	run(gotool.Args("build", "-o", os.DevNull, ".")...)
	list := run("list", "-m", "all")
	var modules []string
	for line := range strings.Lines(list) {
		if f := strings.Fields(line); len(f) > 0 {
			modules = append(modules, f[0])
		}
	}
	require.Contains(t, modules, "github.com/google/jsonschema-go", "the list holds the root module's requirements")
	for _, m := range modules {
		for _, heavy := range nestedOnlyModules {
			if strings.HasPrefix(m, heavy) || m == strings.TrimSuffix(heavy, "/") {
				t.Errorf("a program importing only mcp and mcphttp has %s in its module graph", m)
			}
		}
	}
	t.Logf("go list -m all: %d modules (the program's own included)", len(modules))
}

// TestWorkspaceListsEveryModule: every go.mod of the repository is a
// module go.work uses and the Makefile's MODULES names (so unit, lint and
// cover run it), except e2e and perf/bleve-compare, which have a go.work
// of their own; and every nested module replaces the root module by its
// relative path, so go mod tidy in it needs the root unpublished.
func TestWorkspaceListsEveryModule(t *testing.T) {
	t.Parallel()
	own := []string{"e2e", "perf/bleve-compare"}
	var found []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || (path != "." && strings.HasPrefix(d.Name(), "."))) {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			found = append(found, filepath.ToSlash(filepath.Dir(path)))
		}
		return nil
	}))
	var library []string
	for _, m := range found {
		if slices.Contains(own, m) {
			_, err := os.Stat(filepath.Join(m, "go.work"))
			require.NoError(t, err, "%s has its own go.work", m)
			continue
		}
		library = append(library, m)
		if m == "." {
			continue
		}
		mod, err := os.ReadFile(filepath.Join(m, "go.mod"))
		require.NoError(t, err)
		up := strings.TrimSuffix(strings.Repeat("../", strings.Count(m, "/")+1), "/")
		require.Contains(t, string(mod), "\nreplace github.com/mcpchain/mcp => "+up+"\n", "%s/go.mod replaces the root module by %s", m, up)
	}
	for _, m := range own {
		require.Contains(t, found, m)
	}

	work, err := os.Open("go.work")
	require.NoError(t, err)
	defer work.Close()
	var used []string
	in := false
	for sc := bufio.NewScanner(work); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "use (":
			in = true
		case in && line == ")":
			in = false
		case in && line != "" && !strings.HasPrefix(line, "//"):
			used = append(used, strings.TrimPrefix(line, "./"))
		}
	}
	mk, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(mk), "\nMODULES   := ")
	require.True(t, ok, "the Makefile sets MODULES")
	line, _, _ := strings.Cut(rest, "\n")
	made := strings.Fields(line)

	slices.Sort(library)
	slices.Sort(used)
	slices.Sort(made)
	require.Equal(t, library, used, "go.work uses every library module (every go.mod but e2e's and perf/bleve-compare's)")
	require.Equal(t, library, made, "the Makefile's MODULES names every library module")
}
