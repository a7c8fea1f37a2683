package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The process-level tests build the example and run it as a client would.

// shutdownGrace is mcphttp.StartOptions.ShutdownTimeout's default, which
// the example keeps.
const shutdownGrace = 10 * time.Second

// buildExample compiles the package in dir into a fresh temporary
// directory and returns the binary's path.
func buildExample(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	if dir == "." {
		bin = filepath.Join(filepath.Dir(bin), "example")
	}
	out, err := gotool.Command("build", "-o", bin, dir).CombinedOutput()
	require.NoError(t, err, "go build %s: %s", dir, out)
	return bin
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// process is a running example with its output captured.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *wiretest.SyncBuffer
	exited         chan struct{}
	err            error // cmd.Wait's result, once exited is closed
}

func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), stdout: &wiretest.SyncBuffer{}, stderr: &wiretest.SyncBuffer{}, exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	require.NoError(t, p.cmd.Start())
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// waitExit waits at most d for the process to end and returns its exit
// status.
func (p *process) waitExit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(d):
		t.Fatalf("the process is still running after %v; stderr:\n%s", d, p.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, p.err)
	return 0
}

// waitHealthy polls the health endpoint until it answers 200.
func (p *process) waitHealthy(t *testing.T, c *http.Client, base string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			t.Fatalf("the server exited at start-up (%v); stderr:\n%s", p.err, p.stderr.String())
		default:
		}
		if resp, err := c.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no healthy server at %s after 20 s; stderr:\n%s", base, p.stderr.String())
}

const protocolVersion = "2025-06-18"

// mcpPost sends one JSON-RPC message to the endpoint as a Streamable HTTP
// client does, in session sid ("" for none).
func mcpPost(ctx context.Context, c *http.Client, url, sid, body string) (*http.Response, string, error) {
	header := []string{"Mcp-Session-Id", sid}
	if sid != "" {
		header = append(header, "MCP-Protocol-Version", protocolVersion)
	}
	resp, b, err := wiretest.Do(c, wiretest.NewRequest(ctx, http.MethodPost, url, body, header...))
	return resp, string(b), err
}

// openSession initializes a session the way a client does (initialize,
// then notifications/initialized) and returns its ID.
func openSession(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	return openSessionWith(t, c, url, `{}`)
}

// openSessionWith is openSession with the client's capabilities.
func openSessionWith(t *testing.T, c *http.Client, url, capabilities string) string {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + protocolVersion +
		`","capabilities":` + capabilities + `,"clientInfo":{"name":"sigterm-test","version":"1"}}}`
	resp, body, err := mcpPost(context.Background(), c, url, "", init)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid, body)
	resp, body, err = mcpPost(context.Background(), c, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, body)
	return sid
}

// TestSIGTERMFinishesCallsInFlight: SIGTERM while 100 slow
// calls run must let every one of them finish, and the process must then
// exit 0 within the shutdown grace period.
//
// The calls are in flight when the signal comes by construction, not by
// timing: each is sent with "Expect: 100-continue", so its body goes out
// only once the server's handler reads it, and the signal waits until all
// 100 have been read. The tool is report, which sleeps with no limit of
// its own: slow's 1 s limit would race its sleep on a loaded machine.
func TestSIGTERMFinishesCallsInFlight(t *testing.T) {
	bin := buildExample(t, ".")
	for _, tc := range []struct {
		name     string
		sessions int // the calls are spread over this many sessions
	}{
		{"one session, 100 concurrent calls", 1},
		{"a session per call", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// ms is far longer than it takes the 100 calls to reach the
			// server, and far shorter than the grace period.
			const calls, ms = 100, 2000
			port := freePort(t)
			p := startProcess(t, bin, "-transport", "httpStream", "-host", "127.0.0.1", "-port", strconv.Itoa(port))
			base := "http://127.0.0.1:" + strconv.Itoa(port)
			// The client waits for 100 Continue before it sends a body; the
			// timeout (after which it would send the body unasked) is out
			// of reach.
			tr := &http.Transport{MaxIdleConnsPerHost: calls, ExpectContinueTimeout: time.Hour}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			p.waitHealthy(t, c, base)

			sids := make([]string, tc.sessions)
			for i := range sids {
				sids[i] = openSession(t, c, base+"/mcp")
			}

			var (
				wg      sync.WaitGroup
				reached sync.WaitGroup // a call is done here once the server reads its body, or once it ended
				read    atomic.Int32   // the calls whose body the server's handler read
				bodies  = make([]string, calls)
				errs    = make([]error, calls)
			)
			reached.Add(calls)
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var once sync.Once
					// A call that ends without reaching the server releases
					// the barrier too; its error is reported below.
					defer once.Do(reached.Done)
					ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
						Got100Continue: func() { read.Add(1); once.Do(reached.Done) },
					})
					call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"report","arguments":{"ms":%d}}}`, i+2, ms)
					req := wiretest.NewRequest(ctx, http.MethodPost, base+"/mcp", call,
						"Mcp-Session-Id", sids[i%len(sids)], "MCP-Protocol-Version", protocolVersion, "Expect", "100-continue")
					resp, body, err := wiretest.Do(c, req)
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
					}
					bodies[i], errs[i] = string(body), err
				}()
			}
			reached.Wait()
			if n := read.Load(); n != calls {
				wg.Wait()
				t.Fatalf("only %d of %d calls reached the server's handler: %v", n, calls, errors.Join(errs...))
			}
			sent := time.Now()
			require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			wg.Wait()

			failed := 0
			for i := range calls {
				if errs[i] != nil || !strings.Contains(bodies[i], `"report ready"`) || strings.Contains(bodies[i], `"isError":true`) {
					if failed < 3 {
						t.Errorf("call %d: err %v, body %q", i, errs[i], bodies[i])
					}
					failed++
				}
			}
			require.Zero(t, failed, "%d of %d calls in flight failed after SIGTERM; stderr:\n%s", failed, calls, p.stderr.String())
			require.Equal(t, 0, p.waitExit(t, shutdownGrace), "exit status; stderr:\n%s", p.stderr.String())
			require.Less(t, time.Since(sent), shutdownGrace, "the process must exit within the grace period")
			require.Empty(t, p.stdout.String(), "over HTTP nothing may be written to stdout")
		})
	}
}

// TestASecondSignalEndsTheProcessAtOnce: the first SIGTERM drains, and
// the signals are then released, so a second one ends the process without
// waiting for the call in flight (an operator's second Ctrl-C). The call
// in flight asks the client a question that is never answered, so it
// would hold the drain for the whole grace period.
func TestASecondSignalEndsTheProcessAtOnce(t *testing.T) {
	bin := buildExample(t, ".")
	port := freePort(t)
	p := startProcess(t, bin, "-transport", "httpStream", "-host", "127.0.0.1", "-port", strconv.Itoa(port))
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	p.waitHealthy(t, c, base)
	sid := openSessionWith(t, c, base+"/mcp", `{"elicitation":{}}`)

	// The call is in flight once its answer has begun (the stream that
	// carries the tool's question): a request only written may not have
	// been read when the signal comes, and the drain then has nothing to
	// wait for, so the process ends by itself.
	var started atomic.Bool
	replied := make(chan error, 1)
	go func() {
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotFirstResponseByte: func() { started.Store(true) },
		})
		_, body, err := mcpPost(ctx, c, base+"/mcp", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit","arguments":{}}}`)
		if err == nil {
			err = fmt.Errorf("the call was answered: %s", body)
		}
		replied <- err
	}()
	require.Eventually(t, started.Load, 10*time.Second, time.Millisecond)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	// The drain has begun once the listener is closed; the signals are
	// released at the same moment, so a second SIGTERM is sent until the
	// process ends (further ones are harmless), well inside the grace
	// period the unanswered call would otherwise hold it for.
	require.Eventually(t, func() bool {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			_ = conn.Close()
		}
		return err != nil
	}, shutdownGrace/2, 10*time.Millisecond, "the first SIGTERM did not close the listener")
	sent := time.Now()
	require.Eventually(t, func() bool {
		select {
		case <-p.exited:
			return true
		default:
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			return false
		}
	}, shutdownGrace, 200*time.Millisecond, "the second signal must end the process; stderr:\n%s", p.stderr.String())
	require.Less(t, time.Since(sent), shutdownGrace/2, "ended by the signal, not by the grace period")
	require.Equal(t, -1, p.waitExit(t, time.Second), "the second signal must end the process; stderr:\n%s", p.stderr.String())
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ws.Signaled(), "the process ended by itself: %v", p.cmd.ProcessState)
	require.Equal(t, syscall.SIGTERM, ws.Signal())
	require.Error(t, <-replied, "a killed process cannot answer")
}
