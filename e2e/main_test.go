package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/testport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// everythingBin is the path of the examples/everything binary built once by
// TestMain; buildErr is set instead when the build failed, and every test
// that needs the binary reports it.
var (
	everythingBin string
	buildErr      error
	// binDir holds the binaries the tests build (removed at exit).
	binDir string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpchain-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		os.Exit(1)
	}
	binDir = dir
	// The servers and commands the tests start are built with -race, whose
	// runtime sleeps 1 s as a program exits (for goroutines still running to
	// report a race); hundreds of starts made that minutes of idle wall time.
	// Go's own tests of the programs they start set the same.
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		_ = os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
	if bin := os.Getenv("E2E_EVERYTHING_BIN"); bin != "" {
		everythingBin = bin // a prebuilt server, e.g. from CI
	} else {
		everythingBin, buildErr = buildEverything(dir)
	}

	// goleak checks the test process itself: every client, HTTP connection
	// and process-wait goroutine the tests start must be gone at the end.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		stopSharedCluster()
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// buildEverything builds ../examples/everything with the race detector into
// dir and returns the binary's path.
func buildEverything(dir string) (string, error) { return buildExample(dir, "everything") }

// buildExample builds ../examples/<name> with the race detector into dir
// and returns the binary's path.
func buildExample(dir, name string) (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-race", "-o", bin, "./examples/"+name)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build -race ./examples/%s (in %s): %v\n%s", name, root, err, out)
	}
	return bin, nil
}

// exampleBuild is one example's binary, built once for the package.
type exampleBuild struct {
	once sync.Once
	bin  string
	err  error
}

var exampleBuilds sync.Map // name -> *exampleBuild

// exampleBinary builds examples/<name> with the race detector once, and
// fails t when it does not build.
func exampleBinary(t testing.TB, name string) string {
	t.Helper()
	v, _ := exampleBuilds.LoadOrStore(name, &exampleBuild{})
	b := v.(*exampleBuild)
	b.once.Do(func() { b.bin, b.err = buildExample(binDir, name) })
	require.NoError(t, b.err, "examples/%s must build", name)
	return b.bin
}

// requireBinary fails t when the example server could not be built.
func requireBinary(t testing.TB) string {
	t.Helper()
	require.NoError(t, buildErr, "the example server must build")
	return everythingBin
}

// syncBuffer is a goroutine-safe bytes.Buffer for a child's stderr.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// dumpStderrOnFailure logs the server's stderr when t failed, so the server
// side of a failure is visible.
func dumpStderrOnFailure(t testing.TB, stderr *syncBuffer) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
}

// checkRaces fails t when the race-enabled server reported a data race.
// Call it once the process has exited (the report comes at exit).
func checkRaces(t testing.TB, stderr *syncBuffer) {
	t.Helper()
	if out := stderr.String(); strings.Contains(out, "WARNING: DATA RACE") {
		t.Errorf("the server reported a data race:\n%s", out)
	}
}

// stdioServer returns a go-sdk CommandTransport that starts a fresh
// everything server over stdio. The process is started by Client.Connect and
// stopped by ClientSession.Close (stdin closed, then SIGTERM, then SIGKILL);
// a cleanup kills it by PID should the session never close.
func stdioServer(t testing.TB) *mcp.CommandTransport {
	t.Helper()
	bin := requireBinary(t)
	stderr := &syncBuffer{}
	dumpStderrOnFailure(t, stderr)
	cmd := exec.Command(bin)
	cmd.Stderr = stderr
	t.Cleanup(func() {
		// Runs after the session's cleanup has closed it and reaped the process.
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			return
		}
		checkRaces(t, stderr)
	})
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
}

// httpServer starts a fresh everything server with the Streamable HTTP
// transport on a free loopback port, waits until it accepts TCP connections,
// and returns the MCP endpoint URL. The process is stopped at cleanup. args
// are extra flags of the server.
func httpServer(t testing.TB, args ...string) string {
	t.Helper()
	return startHTTPServer(t, args...).url
}

// serverProc is an examples/everything process started by startHTTPServer.
type serverProc struct {
	url    string // the MCP endpoint
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has been reaped
	stderr *syncBuffer
}

// kill sends SIGKILL to the process (by its PID: a process this test
// started) and waits until it is reaped, so that the kernel has closed its
// sockets when kill returns.
func (p *serverProc) kill(t testing.TB) {
	t.Helper()
	require.NoError(t, syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL))
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("server %d still running 5s after SIGKILL", p.cmd.Process.Pid)
	}
}

// startHTTPServer is httpServer returning the process too. At cleanup the
// process gets SIGTERM, then SIGKILL after 5 s (an error), unless it has
// already exited.
func startHTTPServer(t testing.TB, args ...string) *serverProc {
	t.Helper()
	return startHTTPServerEnv(t, nil, args...)
}

// startHTTPServerEnv is startHTTPServer with env (KEY=value) added to the
// server's environment. A "-port N" among args overrides the default -1.
func startHTTPServerEnv(t testing.TB, env []string, args ...string) *serverProc {
	t.Helper()
	return startHTTPServerBin(t, requireBinary(t), env, args...)
}

// startHTTPServerBin is startHTTPServerEnv with bin as the server: an
// examples/everything binary (or one taking its flags).
func startHTTPServerBin(t testing.TB, bin string, env []string, args ...string) *serverProc {
	t.Helper()
	stderr := &syncBuffer{}
	dumpStderrOnFailure(t, stderr)
	cmd := exec.Command(bin, append([]string{"-transport", "httpStream", "-host", "127.0.0.1", "-port", "-1"}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())

	p := &serverProc{cmd: cmd, exited: make(chan struct{}), stderr: stderr}
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			// Graceful first, then by force.
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(5 * time.Second):
				t.Errorf("server did not exit within 5s of SIGTERM; killing it")
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				<-p.exited
			}
		}
		checkRaces(t, stderr)
	})

	// The server picks its own port (-port -1) and logs its URL: a port
	// chosen here and closed before the server binds it could be taken by
	// any of the many connections the parallel tests open meanwhile.
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-p.exited:
			t.Fatalf("server exited before listening: %v\n%s", waitErr, stderr.String())
		default:
		}
		if m := listeningURL.FindStringSubmatch(stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not log its URL within 10s:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listeningURL finds the endpoint in the line the server logs once it
// listens ("MCP server listening url=http://127.0.0.1:PORT/mcp ...").
var listeningURL = regexp.MustCompile(`MCP server listening url=(http://\S+)`)

// freePort returns a TCP port free on loopback for a server that must be
// told its port up front (see internal/testport for why not port 0).
func freePort(t testing.TB) int {
	t.Helper()
	port, err := testport.Free()
	require.NoError(t, err)
	return port
}

// testContext returns a context bounded by d (at most 10 s) and cancelled at
// the end of the test.
func testContext(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	if d > 10*time.Second {
		d = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
