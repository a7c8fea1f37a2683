package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDevInspector: `mcpchain dev --inspector` starts the MCP Inspector
// through npx with this very dev command (without --inspector) as its
// stdio server, and says what is missing without Node.
func TestDevInspector(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "args")
	npx := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + record + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npx"), []byte(npx), 0o755))

	dir := t.TempDir()
	pkg := filepath.Join(dir, "cmd", "server")
	run := func(path string) (string, error) {
		cmd := exec.Command(mcpchainBin, "dev", "--inspector", "./cmd/server", "--", "-v")
		cmd.Dir = dir
		cmd.Env = append(testEnv(""), "PATH="+path)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := run(bin + string(os.PathListSeparator) + os.Getenv("PATH"))
	require.NoError(t, err, out)
	require.Contains(t, out, "mcpchain dev: starting the MCP Inspector on "+mcpchainBin+" dev "+pkg+" -- -v")
	args, err := os.ReadFile(record)
	require.NoError(t, err)
	require.Equal(t, []string{"-y", "@modelcontextprotocol/inspector", mcpchainBin, "dev", pkg, "--", "-v"},
		strings.Split(strings.TrimSpace(string(args)), "\n"))

	out, err = run(t.TempDir())
	require.Error(t, err)
	require.Contains(t, out, "--inspector needs Node.js (npx not found in PATH)")
}
