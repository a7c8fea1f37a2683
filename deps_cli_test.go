package mcp_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIModulesStayInTheCommand: the modules of the mcpchain command
// (its CLI library, file watching, terminal detection) are linked by
// cmd/mcpchain and internal/cli only, never by a server or a client.
func TestCLIModulesStayInTheCommand(t *testing.T) {
	t.Parallel()
	cliModules := []string{"github.com/spf13/", "github.com/fsnotify/", "golang.org/x/term", "github.com/inconshreveable/mousetrap"}
	for _, pkg := range []string{"./examples/everything", "./client", "./mcphttp", "./stdio", "./mcptest"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		require.NoError(t, err, "go list -deps %s: %s", pkg, out)
		for dep := range strings.Lines(string(out)) {
			for _, m := range cliModules {
				if strings.HasPrefix(dep, m) {
					t.Errorf("%s links %s, a module of the mcpchain command", pkg, strings.TrimSpace(dep))
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", "./cmd/mcpchain").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, m := range cliModules[:2] {
		require.Contains(t, string(out), m, "the check names modules the command does link")
	}
}
