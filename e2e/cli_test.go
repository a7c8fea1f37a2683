package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mcpchainCLI builds the mcpchain command (../cmd/mcpchain) once.
var mcpchainCLI = sync.OnceValues(func() (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(binDir, "mcpchain")
	cmd := exec.Command("go", "build", "-race", "-o", bin, "./cmd/mcpchain")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/mcpchain: %v\n%s", err, out)
	}
	return bin, nil
})

// TestCLIAgainstTypeScriptServer runs mcpchain inspect and call against
// the official TypeScript SDK's server (node/ref-server.mjs) over stdio
// and Streamable HTTP: the command is not tied to mcpchain servers.
func TestCLIAgainstTypeScriptServer(t *testing.T) {
	t.Parallel()
	cli, err := mcpchainCLI()
	require.NoError(t, err, "go build ./cmd/mcpchain")
	dir, bin := nodePaths(t)
	node, script := filepath.Join(bin, "node"), filepath.Join(dir, "ref-server.mjs")

	port := freePort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	srv := exec.Command(node, script, "--http", addr)
	srv.Stdout, srv.Stderr = &syncBuffer{}, &syncBuffer{}
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL); _ = srv.Wait() })
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "ref-server.mjs listens")
	url := "http://" + addr + "/mcp"

	run := func(t *testing.T, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(cli, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		require.NotContains(t, errb.String(), "WARNING: DATA RACE")
		return out.String(), errb.String(), code
	}
	for _, tc := range []struct {
		name   string
		target func(args ...string) []string
	}{
		{"stdio", func(args ...string) []string { return append(args, "--", node, script) }},
		{"http", func(args ...string) []string { return append([]string{args[0], url}, args[1:]...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(t, tc.target("inspect")...)
			require.Equal(t, 0, code, errs)
			for _, want := range []string{
				"Server        ref-everything 0.0.1\n",
				"Capabilities  completions, logging, prompts, resources, tools\n",
				"  add — Add two numbers\n    in:  {a: number, b: number}\n",
				"Resources (1)\n  file:///hello.txt",
				"Prompts (1)\n  greet(",
			} {
				require.Contains(t, out, want)
			}
			out, errs, code = run(t, tc.target("call", "add", "a=2", "b=40")...)
			require.Equal(t, 0, code, errs)
			require.Equal(t, "42\n", out)
			// No log lines: the tool's "progress started" may land between two progress lines.
			out, errs, code = run(t, tc.target("call", "--log-level", "off", "progress")...)
			require.Equal(t, 0, code, errs)
			require.Contains(t, errs, "progress 1/3 step 1\nprogress 2/3 step 2\nprogress 3/3 step 3\n")
			require.NotEmpty(t, out)
			out, errs, code = run(t, tc.target("call", "fail_user")...)
			require.Equal(t, 1, code, "a tool error exits 1: %s %s", out, errs)
		})
	}
	t.Run("json is the same over both transports", func(t *testing.T) {
		a, errs, code := run(t, "inspect", "--json", "--", node, script)
		require.Equal(t, 0, code, errs)
		b, errs, code := run(t, "inspect", "--json", url)
		require.Equal(t, 0, code, errs)
		require.Equal(t, a, b)
	})
}

// TestInspectorThroughDev: the MCP Inspector's CLI (a TypeScript SDK
// client) starts `mcpchain dev` as its stdio server, as dev's start-up
// hint says, and calls a tool of examples/everything through it; dev logs
// the call.
func TestInspectorThroughDev(t *testing.T) {
	t.Parallel()
	cli, err := mcpchainCLI()
	require.NoError(t, err, "go build ./cmd/mcpchain")
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	// The Inspector starts dev in its own directory (e2e/node, another
	// module), as a client does: dev builds the package from the
	// package's directory.
	// dev compiles the example before it answers initialize: on a loaded
	// machine that takes longer than the Inspector's 15 s connection
	// default. The Inspector also waits at most 60 s for the answer to
	// initialize, and no flag changes that. It starts its server with a
	// few variables of the environment (HOME, PATH, ...), so dev's go
	// would not see the GOTOOLCHAIN make exports and would build with the
	// machine's own release: a cold build of the whole graph, 53 s alone
	// with an empty cache, which failed the test beside the other e2e
	// tests. dev gets the tests' GOTOOLCHAIN (-e), and the example is
	// built here first, as dev builds it (no race detector), so that dev's
	// build finds every package in the build cache and only links.
	prebuild := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "everything"), "./examples/everything")
	prebuild.Dir = root
	out, err := prebuild.CombinedOutput()
	require.NoError(t, err, "go build ./examples/everything: %s", out)
	args := []string{inspectorLauncher, "--cli", "--connect-timeout", "150000",
		"--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "--tool-arg", "b=2"}
	if tc := os.Getenv("GOTOOLCHAIN"); tc != "" {
		args = append(args, "-e", "GOTOOLCHAIN="+tc)
	}
	run := runNode(t, 3*time.Minute, append(args, "--", cli, "dev", filepath.Join(root, "examples", "everything"))...)
	stderr := run.stderr.String()
	require.Equal(t, 0, run.exitCode, "stdout: %s\nstderr: %s", run.stdout, stderr)
	var res inspectorCallResult
	require.NoError(t, json.Unmarshal(run.stdout, &res), "%s", run.stdout)
	require.Equal(t, []inspectorContent{{Type: "text", Text: "3"}}, res.Content)
	// dev watches the module of the package: examples is a module of
	// its own.
	require.Contains(t, stderr, "dev  watching "+filepath.Join(root, "examples")+"\n")
	require.Contains(t, stderr, "dev  built . in")
	require.Regexp(t, `rpc  initialize\s+\S+  ok`, stderr)
	require.Regexp(t, `rpc  tools/call add\s+\S+  ok`, stderr)
	require.NotContains(t, stderr, "WARNING: DATA RACE")
}
