package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// initLine is the runtime's inittrace line of package mcp, with the heap
// its package-level variables allocated.
var initLine = regexp.MustCompile(`(?m)^init github\.com/mcpchain/mcp @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestPackageInitHeap bounds the heap package mcp allocates at init, which
// every program that links it pays before main (a regexp compiled at
// init costs tens of kilobytes and milliseconds of a server's start; the
// checks are loops, and the figure is a few hundred bytes). It runs this test binary again with GODEBUG=inittrace=1
// and reads the runtime's line for the package; the binary's init also
// runs the package-level variables of this package's internal tests.
func TestPackageInitHeap(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := initLine.FindSubmatch(out)
	require.NotNil(t, m, "no inittrace line for package mcp in:\n%s", out)
	bytes, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	t.Logf("package mcp init: %d bytes, %s allocs", bytes, m[2])
	require.Less(t, bytes, 4096, "bytes allocated by package mcp's init")
}
