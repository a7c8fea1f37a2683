package mcp_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/stretchr/testify/require"
)

// serverCode matches the symbols of the engine's side of package mcp and
// of package mcphttp: the methods of Server and of the engine's view of
// it, and anything of mcphttp.
var serverCode = regexp.MustCompile(`mcp\.\(\*Server\)\.|mcp\.\(\*engineView\)\.|/mcp/mcphttp\.`)

// TestClientLinksNoServer: a program that only calls servers
// (examples/conformance-client: package client, client/oauth and the
// protocol's types of package mcp) links none of the server's code, while
// a server (examples/hello) does, which shows the test sees it. The
// engine reaches package mcp through one view (engine.go), which only a
// transport's interface calls keep alive in a binary.
func TestClientLinksNoServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		pkg    string
		server bool
	}{
		{"./examples/conformance-client", false},
		{"./examples/hello", true},
	} {
		exe := filepath.Join(dir, filepath.Base(tc.pkg))
		out, err := gotool.Command("build", "-o", exe, tc.pkg).CombinedOutput()
		require.NoError(t, err, "go build %s: %s", tc.pkg, out)
		out, err = exec.Command("go", "tool", "nm", exe).CombinedOutput()
		require.NoError(t, err, "go tool nm: %s", out)
		var found []string
		for line := range strings.Lines(string(out)) {
			if f := strings.Fields(line); len(f) >= 3 && serverCode.MatchString(f[2]) {
				found = append(found, f[2])
			}
		}
		if tc.server {
			require.Contains(t, found, "github.com/mcpchain/mcp.(*engineView).CallTool", "%s: the server's code is not seen", tc.pkg)
			continue
		}
		require.Empty(t, found, "%s links server code", tc.pkg)
	}
}
