package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/mcpchain/mcp/internal/testport"
)

// The tests run mcpchain as a user does: the binary, built once, with a
// temporary HOME.
var (
	binDir      string
	mcpchainBin string // go build -o $tmp/mcpchain ./cmd/mcpchain
	everything  string // go build -o $tmp/everything ./examples/everything
	repoRoot    string
	goCaches    []string // GOPATH, GOMODCACHE, GOCACHE as the go command has them
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpchain-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// A program built with -race sleeps for a second as it exits (the race
	// runtime's atexit_sleep_ms, default 1000), which is most of the time
	// of a short run of mcpchain, which the tests here run over and over.
	// Races are reported as they happen, and the exit code still says so.
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		_ = os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
	repoRoot, _ = filepath.Abs("../..")
	mcpchainBin = filepath.Join(dir, "mcpchain")
	everything = filepath.Join(dir, "everything")
	// mcpchain is built with the race detector: dev's proxy goroutines
	// are checked as the tests drive them (see noRace).
	// everything is built as this test binary was (gotool), so its
	// packages are the ones go test compiled and come from the build cache.
	for _, b := range [][]string{{"build", "-race", "-o", mcpchainBin, "./cmd/mcpchain"}, gotool.Args("build", "-o", everything, "./examples/everything")} {
		cmd := exec.Command("go", b...)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", b[len(b)-1], err, out)
			os.Exit(1)
		}
	}
	out, err := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env:", err)
		os.Exit(1)
	}
	for i, v := range strings.Fields(string(out)) {
		goCaches = append(goCaches, []string{"GOPATH=", "GOMODCACHE=", "GOCACHE="}[i]+v)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of mcpchain printed.
type result struct {
	stdout, stderr string
	code           int
}

// run runs mcpchain with args in dir (the test's temp dir when ""), with
// HOME set to home when not "" (and XDG_CONFIG_HOME, APPDATA,
// XDG_DATA_HOME, LOCALAPPDATA unset, so they derive from it).
func run(t *testing.T, home, dir string, args ...string) result {
	t.Helper()
	return runInput(t, nil, home, dir, args...)
}

// runInput is run with stdin (none when nil).
func runInput(t *testing.T, stdin io.Reader, home, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpchainBin, args...)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = t.TempDir()
	}
	cmd.Env = testEnv(home)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	noRace(t, errb.String())
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// noRace fails t when the race detector reported in out.
func noRace(t *testing.T, out string) {
	t.Helper()
	require.NotContains(t, out, "WARNING: DATA RACE")
}

func testEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if home != "" && (k == "HOME" || k == "XDG_CONFIG_HOME" || k == "APPDATA" || k == "XDG_DATA_HOME" || k == "LOCALAPPDATA") {
			continue
		}
		env = append(env, kv)
	}
	if home != "" {
		// The go command keeps its caches where they are: a build that
		// install runs uses the modules already downloaded.
		env = append(env, "HOME="+home)
		env = append(env, goCaches...)
	}
	return env
}

// syncBuffer is a goroutine-safe buffer that also records when each
// line arrived.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines []timedLine
	part  string
}

type timedLine struct {
	at   time.Time
	text string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.buf.Write(p)
	b.part += string(p)
	for {
		i := strings.IndexByte(b.part, '\n')
		if i < 0 {
			break
		}
		b.lines = append(b.lines, timedLine{now, b.part[:i]})
		b.part = b.part[i+1:]
	}
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLine waits for a line after the first skip lines that contains
// s, and returns when it arrived and its index.
func (b *syncBuffer) waitLine(t *testing.T, from int, s string, d time.Duration) (time.Time, int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		for i := from; i < len(b.lines); i++ {
			if strings.Contains(b.lines[i].text, s) {
				at := b.lines[i].at
				b.mu.Unlock()
				return at, i
			}
		}
		b.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no line with %q within %s in:\n%s", s, d, b.String())
	return time.Time{}, 0
}

func (b *syncBuffer) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.lines)
}

// startEverything runs examples/everything over Streamable HTTP and
// returns its MCP URL.
func startEverything(t *testing.T) string {
	t.Helper()
	port, err := testport.Free()
	require.NoError(t, err)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(everything, "-transport", "httpStream", "-port", strconv.Itoa(port), "-public-url", "http://"+addr+"/mcp")
	cmd.Stdout, cmd.Stderr = &syncBuffer{}, &syncBuffer{}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitListening(t, addr)
	return "http://" + addr + "/mcp"
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 30*time.Second, 20*time.Millisecond, "%s listens", addr)
}
