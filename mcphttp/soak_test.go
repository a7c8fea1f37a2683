//go:build soak

package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The soak test (`make soak`, not part of `make test`): examples/everything
// built and run as its own process over Streamable HTTP on 127.0.0.1,
// SOAK_SESSIONS sessions (default 500) calling tools for SOAK_DURATION
// (default 60s), then ending their sessions with DELETE. It requires 0
// errors, and the server's RSS (/proc/<pid>/status VmRSS) back under
// SOAK_RSS_AFTER_MIB (default 32 MiB; it starts near 9 MiB and peaks near
// 40 MiB at 500 sessions) within SOAK_SETTLE (default 30s) after the
// sessions end, while four clients keep checking /health. A short local
// run:
//
//	SOAK_SESSIONS=50 SOAK_DURATION=5s make soak

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q", name, v)
	return n
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "%s=%q", name, v)
	return d
}

// rssKiB reads VmRSS of pid in KiB.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// soakSession is one client session of the soak.
type soakSession struct {
	hc  *http.Client
	url string
	sid string
}

func (s *soakSession) post(ctx context.Context, body string) (int, []byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

func (s *soakSession) open(ctx context.Context) error {
	status, b, hd, err := s.post(ctx, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	if err != nil {
		return err
	}
	if status != http.StatusOK || hd.Get("Mcp-Session-Id") == "" {
		return fmt.Errorf("initialize: %d %.200s", status, b)
	}
	s.sid = hd.Get("Mcp-Session-Id")
	status, b, _, err = s.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return err
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: %d %.200s", status, b)
	}
	return nil
}

// call runs tools/call add a+b and checks the answer.
func (s *soakSession) call(ctx context.Context, id, a, b int) error {
	status, body, _, err := s.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":%d}}}`, id, a, b))
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("tools/call: %d %.200s", status, body)
	}
	var m struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("tools/call: %w: %.200s", err, body)
	}
	if m.Error != nil || m.Result.IsError || m.ID != id || len(m.Result.Content) != 1 || m.Result.Content[0].Text != strconv.Itoa(a+b) {
		return fmt.Errorf("tools/call add %d+%d: unexpected answer %.200s", a, b, body)
	}
	return nil
}

func (s *soakSession) end(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", s.sid)
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("DELETE: %d", resp.StatusCode)
	}
	return nil
}

func TestSoak(t *testing.T) {
	sessions := envInt(t, "SOAK_SESSIONS", 500)
	duration := envDuration(t, "SOAK_DURATION", 60*time.Second)
	settle := envDuration(t, "SOAK_SETTLE", 30*time.Second)
	rssBoundKiB := envInt(t, "SOAK_RSS_AFTER_MIB", 32) << 10

	bin := filepath.Join(t.TempDir(), "everything")
	build := exec.Command("go", "build", "-o", bin, "../examples/everything")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run(), "building examples/everything")

	port := freePort(t)
	var stderr bytes.Buffer
	srv := exec.Command(bin, "-transport", "httpStream", "-host", "127.0.0.1", "-port", strconv.Itoa(port))
	srv.Stderr = &lockedWriter{w: &stderr}
	require.NoError(t, srv.Start())
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = srv.Process.Kill()
			<-exited
		}
	}()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/health")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "the server answers /health")
	http.DefaultClient.CloseIdleConnections()
	pid := srv.Process.Pid
	rssStart := rssKiB(t, pid)

	tr := &http.Transport{MaxIdleConns: sessions * 2, MaxIdleConnsPerHost: sessions * 2, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx := context.Background()

	var calls, errs atomic.Int64
	var firstErr sync.Once
	var firstErrMsg string
	fail := func(err error) {
		errs.Add(1)
		firstErr.Do(func() { firstErrMsg = err.Error() })
	}
	clients := make([]*soakSession, sessions)
	var wg sync.WaitGroup
	for i := range clients {
		clients[i] = &soakSession{hc: hc, url: base + "/mcp"}
		wg.Go(func() {
			if err := clients[i].open(ctx); err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	require.Zero(t, errs.Load(), "opening %d sessions: %s", sessions, firstErrMsg)

	peak := rssKiB(t, pid)
	stopRSS := make(chan struct{})
	rssDone := make(chan struct{})
	var peakMu sync.Mutex
	go func() {
		defer close(rssDone)
		for {
			select {
			case <-stopRSS:
				return
			case <-time.After(250 * time.Millisecond):
				if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
					for _, line := range strings.Split(string(b), "\n") {
						if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
							n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
							peakMu.Lock()
							peak = max(peak, n)
							peakMu.Unlock()
						}
					}
				}
			}
		}
	}()
	deadline := time.Now().Add(duration)
	start := time.Now()
	for i, c := range clients {
		if c.sid == "" {
			continue
		}
		wg.Go(func() {
			for n := 1; time.Now().Before(deadline); n++ {
				if err := c.call(ctx, n, i, n); err != nil {
					fail(err)
					continue
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopRSS)
	<-rssDone
	for _, c := range clients {
		wg.Go(func() {
			if err := c.end(ctx); err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	tr.CloseIdleConnections()

	// The sessions are gone: memory must come back under the bound. A
	// server is not left alone (a load balancer checks its health), and
	// the Go runtime collects, and returns memory to the system, only as
	// it allocates: a few clients keep checking /health while we wait.
	rssEnded := rssKiB(t, pid)
	rssAfter := rssEnded
	settleCtx, stopHealth := context.WithCancel(ctx)
	var health sync.WaitGroup
	for range 4 {
		health.Go(func() {
			for settleCtx.Err() == nil {
				req, _ := http.NewRequestWithContext(settleCtx, http.MethodGet, base+"/health", nil)
				if resp, err := hc.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
		})
	}
	settleStart := time.Now()
	settleBy := settleStart.Add(settle)
	for rssAfter > rssBoundKiB && time.Now().Before(settleBy) {
		time.Sleep(500 * time.Millisecond)
		rssAfter = rssKiB(t, pid)
	}
	settled := time.Since(settleStart).Round(100 * time.Millisecond)
	stopHealth()
	health.Wait()
	tr.CloseIdleConnections()
	peakMu.Lock()
	rssPeak := peak
	peakMu.Unlock()
	t.Logf("soak: %d sessions for %s: %d calls (%.0f/s), %d errors; server RSS %d MiB at start, %d MiB peak, %d MiB when the sessions ended, %d MiB %s later (bound %d MiB)",
		sessions, elapsed.Round(time.Millisecond), calls.Load(), float64(calls.Load())/elapsed.Seconds(), errs.Load(),
		rssStart>>10, rssPeak>>10, rssEnded>>10, rssAfter>>10, settled, rssBoundKiB>>10)
	assert.Zero(t, errs.Load(), "first error: %s", firstErrMsg)
	assert.Positive(t, calls.Load())
	assert.LessOrEqual(t, rssAfter, rssBoundKiB, "server RSS (KiB) after the sessions ended")

	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		stopped = true
		assert.NoError(t, err, "the server exits 0 on SIGTERM; its log:\n%s", tail(stderr.String(), 2000))
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not exit within 15 s of SIGTERM")
	}
}

// lockedWriter makes a writer safe for the process's output copier and
// the test reading it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
