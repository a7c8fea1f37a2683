// Package doctest reads the code a guide shows, for the tests of an example
// program that the README or a guide shows verbatim.
package doctest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FirstGoBlock returns the first ```go block of the section of the
// Markdown file doc whose heading is the line heading (up to the next
// level-2 heading), with its final newline.
func FirstGoBlock(t testing.TB, doc, heading string) string {
	t.Helper()
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n"+heading+"\n")
	require.True(t, ok, "%s has no %q section", doc, heading)
	section, _, _ = strings.Cut(section, "\n## ")
	_, code, ok := strings.Cut(section, "\n```go\n")
	require.True(t, ok, "the %q section of %s has no ```go block", heading, doc)
	code, _, ok = strings.Cut(code, "\n```\n")
	require.True(t, ok, "the ```go block of %q in %s is not closed", heading, doc)
	return code + "\n"
}
