package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// readmeHello returns the Go code block of the README's "Hello, world"
// section.
func readmeHello(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Hello, world\n")
	require.True(t, ok, "the README has no \"## Hello, world\" section")
	section, _, _ = strings.Cut(section, "\n## ")
	_, code, ok := strings.Cut(section, "\n```go\n")
	require.True(t, ok, "the README's hello world section has no ```go block")
	code, _, ok = strings.Cut(code, "\n```\n")
	require.True(t, ok, "the README's hello world code block is not closed")
	return code + "\n"
}

// TestREADMEShowsThisFile: the README's hello world is main.go verbatim,
// so what a reader copies is what the tests below run.
func TestREADMEShowsThisFile(t *testing.T) {
	file, err := os.ReadFile("main.go")
	require.NoError(t, err)
	require.Equal(t, string(file), readmeHello(t),
		"README.md's hello world must be examples/hello/main.go verbatim; copy the file into the README")
}

// TestExitsZeroWhenStdinCloses: a client that initializes, calls the tool
// and closes stdin leaves the server with exit status 0, and stdout holds
// nothing but JSON-RPC (no "<nil>", no logs).
func TestExitsZeroWhenStdinCloses(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hello")
	out, err := gotool.Command("build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait() // after stdout is read to its end, as exec requires
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			require.True(t, ok, "stdout ended early; stderr:\n%s", stderr.String())
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer within 20 s; stderr:\n%s", stderr.String())
			return ""
		}
	}
	var got []string
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
	} {
		_, err := io.WriteString(stdin, msg+"\n")
		require.NoError(t, err)
		if strings.Contains(msg, `"id"`) {
			got = append(got, next())
		}
	}
	require.NoError(t, stdin.Close())

	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("exit status %d after the end of stdin; stderr:\n%s", ee.ExitCode(), stderr.String())
		}
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after stdin closed; stderr:\n%s", stderr.String())
	}
	for l := range lines {
		got = append(got, l)
	}
	require.Len(t, got, 2, "one answer per request and nothing else")
	for _, l := range got {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "a stdout line that is not JSON: %q", l)
		assert.Equal(t, "2.0", m["jsonrpc"], l)
	}
	assert.Contains(t, got[0], `"serverInfo"`)
	assert.Contains(t, got[1], `Hello, Ada!`)
	assert.NotContains(t, stderr.String(), "<nil>")
}
