package mcp_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFuzzTargetsListed: every fuzz test of the library's modules is in
// the Makefile's FUZZ_TARGETS or FUZZ_TARGETS_SHORT, once, and every
// entry there names a fuzz test that exists, so make fuzz runs each
// decoder's target and a rename cannot drop one silently. A name must
// be unique in its package: go test -fuzz refuses a pattern that
// matches two.
func TestFuzzTargetsListed(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	listed := append(makeList(t, string(mk), "FUZZ_TARGETS"), makeList(t, string(mk), "FUZZ_TARGETS_SHORT")...)

	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	var found []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == "e2e" || path == "perf" || d.Name() == "node_modules" || d.Name() == "testdata":
				return filepath.SkipDir
			case path != "." && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found = append(found, filepath.ToSlash(filepath.Dir(path))+":"+m[1])
		}
		return nil
	}))
	require.NotEmpty(t, found)

	for i, spec := range listed {
		require.NotContains(t, listed[i+1:], spec, "the Makefile lists %s twice", spec)
	}
	slices.Sort(found)
	require.Equal(t, slices.Compact(slices.Clone(found)), found, "a fuzz test's name is unique in its package")
	slices.Sort(listed)
	require.Equal(t, found, listed, "the Makefile's FUZZ_TARGETS and FUZZ_TARGETS_SHORT list every fuzz test (package:name)")
}

// makeList returns the words of a Makefile variable set with := over
// backslash-continued lines.
func makeList(t *testing.T, mk, name string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(mk, "\n"+name+" := ")
	require.True(t, ok, "the Makefile sets %s", name)
	var words []string
	for line := range strings.Lines(rest) {
		more := strings.HasSuffix(strings.TrimRight(line, "\n"), "\\")
		words = append(words, strings.Fields(strings.TrimSuffix(strings.TrimRight(line, "\n"), "\\"))...)
		if !more {
			break
		}
	}
	return words
}
