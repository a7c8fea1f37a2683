package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/stretchr/testify/require"
)

// TestMakeRunPrintsOnlyJSONRPC: `make run` is a client's server command,
// so its stdout must carry JSON-RPC and nothing else: not the recipe make
// echoes, not make's "Entering directory", not go's own messages.
func TestMakeRunPrintsOnlyJSONRPC(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed to test `make run`: %v", err)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		dir  string // "" is the repository root
		args []string
	}{
		{"make -s run", "", []string{"-s", "run"}},
		{"make run", "", []string{"run"}},
		{"make -s -C <root> run from elsewhere", t.TempDir(), []string{"-s", "-C", root, "run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("make", tc.args...)
			cmd.Dir = tc.dir
			// As a client starts it: not inside another make. Under `make
			// test` the environment carries MAKELEVEL and MAKEFLAGS, and a
			// sub-make prints "Entering directory" whatever its flags.
			cmd.Env = withoutMakeVars(os.Environ())
			if cmd.Dir == "" {
				cmd.Dir = root
			}
			// make, go run and the server form one group, ended together
			// if the test fails midway.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			stderr := &wiretest.SyncBuffer{}
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

			lines := make(chan string, 64)
			exited := make(chan error, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
				exited <- cmd.Wait()
			}()
			_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"make-test","version":"1"}}}`+"\n")
			require.NoError(t, err)

			var got []string
			select { // the first run compiles the example: allow for a busy machine
			case l, ok := <-lines:
				require.True(t, ok, "stdout ended without an answer; stderr:\n%s", stderr.String())
				got = append(got, l)
			case <-time.After(3 * time.Minute):
				t.Fatalf("no answer to initialize within 3 min; stderr:\n%s", stderr.String())
			}
			require.NoError(t, stdin.Close())
			select {
			case err := <-exited:
				require.NoError(t, err, "make must exit 0 when stdin ends; stderr:\n%s", stderr.String())
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s after stdin closed; stderr:\n%s", stderr.String())
			}
			for l := range lines {
				got = append(got, l)
			}
			for _, l := range got {
				var m struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Method  string          `json:"method"`
				}
				require.NoError(t, json.Unmarshal([]byte(l), &m), "a stdout line that is not JSON-RPC: %q", l)
				require.Equal(t, "2.0", m.JSONRPC, "a stdout line that is not JSON-RPC: %q", l)
			}
			require.True(t, strings.Contains(got[0], `"serverInfo"`), "the first line answers initialize: %q", got[0])
		})
	}
}

// withoutMakeVars returns env without the variables a parent make passes to
// its children.
func withoutMakeVars(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "MAKELEVEL" || name == "MAKEFLAGS" || name == "MFLAGS" || name == "MAKEOVERRIDES"
	})
}
