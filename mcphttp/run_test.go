package mcphttp_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/testport"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// runHelperEnv, when set, makes the test binary a server that calls
// mcphttp.Run (see TestMain): the signal tests run it as a process of its
// own, so that a signal never reaches the test binary itself.
const runHelperEnv = "MCPHTTP_RUN_HELPER"

// runHelper is the main of that process: a server with a tool that holds
// its call until its context ends, served by Run; it exits 0 when Run
// returns nil, 1 otherwise. The tool says on stderr that it holds a call.
func runHelper() int {
	srv := mcp.NewServer(mcp.Options{Name: "run", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		_, _ = os.Stderr.WriteString("holding a call\n")
		<-ctx.Done()
		return "", ctx.Err()
	})
	if err := mcphttp.Run(context.Background(), srv, nil); err != nil {
		os.Stderr.WriteString("run: " + err.Error() + "\n")
		return 1
	}
	return 0
}

// TestRunStdioEndOfInput: with no MCP_TRANSPORT, Run serves stdio, and
// the end of its input is a clean stop: nil.
func TestRunStdioEndOfInput(t *testing.T) {
	t.Setenv("MCP_TRANSPORT", "")
	srv := mcp.NewServer(mcp.Options{Name: "run", Version: "1.0.0"})
	var out strings.Builder
	err := mcphttp.Run(context.Background(), srv, &mcphttp.StartOptions{
		Stdin: strings.NewReader(initBody + "\n"), Stdout: &out})
	require.NoError(t, err)
	assert.Contains(t, out.String(), `"serverInfo"`, "initialize was answered over stdio")
}

// TestRunHTTPFromEnvironment: MCP_TRANSPORT=http with MCP_HOST and
// MCP_PORT serves Streamable HTTP there, which answers initialize; the
// end of Run's ctx stops it cleanly (nil).
func TestRunHTTPFromEnvironment(t *testing.T) {
	port, err := testport.Free()
	require.NoError(t, err)
	t.Setenv("MCP_TRANSPORT", "http")
	t.Setenv("MCP_HOST", "127.0.0.1")
	t.Setenv("MCP_PORT", strconv.Itoa(port))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := mcp.NewServer(mcp.Options{Name: "run", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	done := make(chan error, 1)
	go func() { done <- mcphttp.Run(ctx, srv, nil) }()

	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	var status int
	require.Eventually(t, func() bool {
		status = postInitialize(url)
		return status != 0
	}, 10*time.Second, 10*time.Millisecond, "Run never listened on MCP_PORT")
	assert.Equal(t, http.StatusOK, status)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its ctx ended")
	}
}

// postInitialize posts initialize to url and returns the status, or 0
// when nothing answered.
func postInitialize(url string) int {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// runProcess starts the test binary as runHelper's server on a free port
// and waits until it answers, by which time Run has taken the signals.
func runProcess(t *testing.T) (cmd *exec.Cmd, port int, exited chan error, stderr *wiretest.SyncBuffer) {
	t.Helper()
	port, err := testport.Free()
	require.NoError(t, err)
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runHelperEnv+"=1", "MCP_TRANSPORT=http", "MCP_HOST=127.0.0.1", "MCP_PORT="+strconv.Itoa(port))
	stderr = &wiretest.SyncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	require.Eventually(t, func() bool { return postInitialize(url) == http.StatusOK }, 20*time.Second, 10*time.Millisecond,
		"the server never answered")
	return cmd, port, exited, stderr
}

// TestRunStopsOnSIGTERM: a SIGTERM stops a server run by Run gracefully
// and Run returns nil, so the process exits 0.
func TestRunStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	cmd, _, exited, stderr := runProcess(t)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		require.NoError(t, err, "Run must return nil after a clean stop; stderr:\n%s", stderr)
		assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not stop on SIGTERM")
	}
}

// TestRunSecondSignalEndsAtOnce: the first SIGTERM starts the drain of a
// call that would hold it for the whole grace period; Run releases the
// signals then, so a second SIGTERM ends the process at once.
func TestRunSecondSignalEndsAtOnce(t *testing.T) {
	t.Parallel()
	cmd, port, exited, stderr := runProcess(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	called := make(chan struct{})
	go func() {
		defer close(called)
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	}()
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "holding a call") }, 10*time.Second, 5*time.Millisecond,
		"the call never reached the tool")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	// The listener closes when the drain begins, and the signals are
	// released at the same moment.
	require.Eventually(t, func() bool {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			_ = conn.Close()
		}
		return err != nil
	}, 5*time.Second, 10*time.Millisecond, "the first SIGTERM did not close the listener")
	sent := time.Now()
	var err2 error
	require.Eventually(t, func() bool {
		select {
		case err2 = <-exited:
			exited <- err2
			return true
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return false
		}
	}, 10*time.Second, 100*time.Millisecond, "the second signal must end the process; stderr:\n%s", stderr)
	assert.Less(t, time.Since(sent), 5*time.Second, "ended by the signal, not by the grace period")
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ws.Signaled(), "the process ended by itself: %v", cmd.ProcessState)
	assert.Equal(t, syscall.SIGTERM, ws.Signal())
	<-called
}
