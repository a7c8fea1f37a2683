package mcp_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSecurityTableNamesTests checks docs/security.md, the threat model:
// every row of its tables names at least one test or fuzz target in its last
// column, and every name there is a function of some _test.go file in the
// repository (e2e included), so the table cannot point at a test that was
// renamed or removed.
func TestSecurityTableNamesTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/security.md")
	require.NoError(t, err)

	defined := map[string]bool{}
	funcRE := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]*)\(`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcRE.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return nil
	})
	require.NoError(t, err)

	nameRE := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]*)(?:/[^`]*)?`")
	rows := 0
	for i, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "| threat ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		last := cells[len(cells)-1]
		names := nameRE.FindAllStringSubmatch(last, -1)
		if len(names) == 0 {
			t.Errorf("docs/security.md:%d: the row names no test in its last column: %s", i+1, line)
			continue
		}
		rows++
		for _, n := range names {
			if !defined[n[1]] {
				t.Errorf("docs/security.md:%d: %s is not a test of this repository", i+1, n[1])
			}
		}
	}
	t.Logf("%d rows, each naming a test", rows)
}
