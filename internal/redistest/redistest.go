// Package redistest runs a throwaway redis-server for tests: the real
// server, on a free 127.0.0.1 port, stopped when the test ends.
package redistest

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/testport"
	"github.com/redis/go-redis/v9"
)

// Start runs redis-server for t and returns its address (host:port). The
// test fails when redis-server is not installed (apt-get install -y
// redis-server; .ci/run installs it) or does not answer within 10 s.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redistest: redis-server is not installed (apt-get install -y redis-server): %v", err)
	}
	port, err := testport.Free()
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--protected-mode", "yes", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("redistest: starting redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: redis-server on %s did not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Server is a redis-server that a test may stop and start again on the
// same address, keeping its data across restarts (an append-only file
// written on every command), as a real outage and recovery would.
type Server struct {
	// Addr is the server's host:port, the same across restarts.
	Addr string
	tb   testing.TB
	bin  string
	dir  string
	cmd  *exec.Cmd
}

// StartServer runs a restartable redis-server for tb; it is stopped when
// the test ends.
func StartServer(tb testing.TB) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("redistest: redis-server is not installed (apt-get install -y redis-server): %v", err)
	}
	port, err := testport.Free()
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), tb: tb, bin: bin, dir: tb.TempDir()}
	tb.Cleanup(s.Stop)
	s.Start()
	return s
}

// Start starts the server again after Stop, with the data it had.
func (s *Server) Start() {
	s.tb.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "yes", "--dir", s.dir)
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("redistest: starting redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("redistest: redis-server on %s did not answer: %v", s.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (SIGKILL, as a crash would) and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused process dies too
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Pause stops the server process (SIGSTOP) without closing its
// connections: a hung Redis, as a network partition looks to a client.
func (s *Server) Pause() { _ = s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }

// UsedMemory is the used_memory of the Redis c talks to (INFO memory), in
// bytes: what the memory benchmarks measure the growth of.
func UsedMemory(tb testing.TB, c *redis.Client) int64 {
	tb.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		tb.Fatalf("redistest: INFO memory: %v", err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				tb.Fatalf("redistest: used_memory %q: %v", v, err)
			}
			return n
		}
	}
	tb.Fatalf("redistest: INFO memory has no used_memory: %q", info)
	return 0
}
