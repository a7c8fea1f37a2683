package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Real balancers for the replica tests: nginx and HAProxy (Debian's
// packages; .ci/run installs them), each run as a process of the test with
// the configuration shipped in deploy/, only its ports changed.

// publicHost is the name clients reach the balancers by, and the one the
// replicas list in MCP_ALLOWED_HOSTS, as a deployment behind a public name
// does. The clients' HTTP transports dial the balancer for it.
const publicHost = "mcp.example.com"

// realBalancer is a running nginx or HAProxy process in front of replicas.
type realBalancer struct {
	name     string
	port     int
	log      string                            // its access log, one line per request
	parse    func(line string) (logLine, bool) // reads one line of that log
	errorLog string                            // nginx's error log ("" for HAProxy)
	hc       *http.Client                      // reaches the balancer as publicHost
	exited   chan struct{}                     // closed once the process is reaped
	// Before a replica is stopped and after it is back: how the balancer
	// takes it out of its rotation and puts it back, where it can (nil:
	// it cannot, and learns only from refused connections).
	remove, restore func(t *testing.T, replica int)
}

// logLine is what a balancer logged about one request.
type logLine struct {
	method, uri string
	status      int
	replica     int       // the replica that answered (index), -1 for none
	tried       int       // replicas tried before it (refused connects)
	cut         bool      // ended abnormally (HAProxy's termination state is not ----)
	accepted    time.Time // when HAProxy accepted the request (zero for nginx), to the millisecond
}

// endpoint is the MCP endpoint through the balancer, by its public name.
func (b *realBalancer) endpoint() string { return fmt.Sprintf("http://%s:%d/mcp", publicHost, b.port) }

// loopback is the MCP endpoint through the balancer at 127.0.0.1 (a
// loopback Host, accepted by the replicas without a list).
func (b *realBalancer) loopback() string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", b.port) }

// offset is the size of the access log now: lines from there on are
// requests that ended later.
func (b *realBalancer) offset(t testing.TB) int64 {
	t.Helper()
	fi, err := os.Stat(b.log)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	require.NoError(t, err)
	return fi.Size()
}

// lines returns the access log's requests from offset on.
func (b *realBalancer) lines(t testing.TB, offset int64) []logLine {
	t.Helper()
	f, err := os.Open(b.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Seek(offset, 0)
	require.NoError(t, err)
	var out []logLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l, ok := b.parse(sc.Text()); ok {
			out = append(out, l)
		}
	}
	return out
}

// deployConfig reads deploy/<name> and makes each replacement, which
// must match exactly once: the shipped file changes only where the test
// says, and a change to it that the test does not expect fails here.
func deployConfig(t testing.TB, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "deploy", name))
	require.NoError(t, err)
	s := string(b)
	for i := 0; i < len(replace); i += 2 {
		require.Equal(t, 1, strings.Count(s, replace[i]), "deploy/%s must hold %q once", name, replace[i])
		s = strings.Replace(s, replace[i], replace[i+1], 1)
	}
	return s
}

// replicaPlaceholders are the replicas' addresses in the shipped
// configurations, in order.
var replicaPlaceholders = []string{"127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"}

// withReplicas adds the replacements of the replicas' addresses to
// replace.
func withReplicas(ports []int, replace ...string) []string {
	for i, p := range ports {
		replace = append(replace, replicaPlaceholders[i], "127.0.0.1:"+strconv.Itoa(p))
	}
	return replace
}

// nginxMain is the test's nginx.conf around deploy/nginx/mcp.conf: in the
// foreground, with its pid, logs and temporary files in the test's
// directory (%[1]s), and an access log that names the replica of each
// request.
const nginxMain = `daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
events { worker_connections 1024; }
http {
    log_format balancer '$request_method $request_uri $status "$upstream_addr" "$upstream_status"';
    access_log %[1]s/access.log balancer;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include %[1]s/mcp.conf;
}
`

var nginxLog = regexp.MustCompile(`^(\S+) (\S+) (\d{3}) "([^"]*)" "([^"]*)"$`)

// startNginx runs nginx with deploy/nginx/mcp.conf in front of the
// replicas on ports.
func startNginx(t *testing.T, ports []int) *realBalancer {
	t.Helper()
	bin := sbin(t, "nginx")
	dir := t.TempDir()
	// The worker runs as nobody when nginx starts as root: it must reach
	// the temporary files' directories.
	require.NoError(t, os.Chmod(dir, 0o755))
	port := freePort(t)
	conf := deployConfig(t, "nginx/mcp.conf", withReplicas(ports, "listen 8080;", fmt.Sprintf("listen 127.0.0.1:%d;", port))...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mcp.conf"), []byte(conf), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(fmt.Sprintf(nginxMain, dir)), 0o644))
	byAddr := map[string]int{}
	for i, p := range ports {
		byAddr["127.0.0.1:"+strconv.Itoa(p)] = i
	}
	b := &realBalancer{name: "nginx", port: port, log: filepath.Join(dir, "access.log"), errorLog: filepath.Join(dir, "error.log"),
		parse: func(line string) (logLine, bool) {
			m := nginxLog.FindStringSubmatch(line)
			if m == nil {
				return logLine{}, false
			}
			l := logLine{method: m[1], uri: m[2], replica: -1}
			l.status, _ = strconv.Atoi(m[3])
			// "$upstream_addr": every replica tried, in order, the last
			// one answered ("127.0.0.1:a, 127.0.0.1:b").
			addrs := strings.Split(m[4], ", ")
			l.tried = len(addrs) - 1
			if i, ok := byAddr[addrs[len(addrs)-1]]; ok {
				l.replica = i
			}
			return l, true
		}}
	runBalancer(t, b, exec.Command(bin, "-c", filepath.Join(dir, "nginx.conf"), "-p", dir, "-e", filepath.Join(dir, "error.log")), nil,
		filepath.Join(dir, "error.log"))
	return b
}

// sbin finds a balancer's binary: on PATH, or in /usr/sbin, where Debian
// installs it (not on a user's PATH).
func sbin(t *testing.T, name string) string {
	t.Helper()
	if bin, err := exec.LookPath(name); err == nil {
		return bin
	}
	bin := filepath.Join("/usr/sbin", name)
	_, err := os.Stat(bin)
	require.NoError(t, err, "%s is not installed (apt-get install -y %s; .ci/run installs it)", name, name)
	return bin
}

// haproxyGlobal is the test's global section before deploy/haproxy/mcp.cfg:
// the log on stdout, which the test writes to a file, and the runtime API
// on a socket in the test's directory (%s), as Debian's haproxy.cfg has it
// in /run/haproxy.
const haproxyGlobal = `global
    log stdout format raw local0
    stats socket %s mode 600 level admin
`

// haproxyLog reads option httplog's line: "... mcp mcp_replicas/r1
// 0/0/0/1/1 200 148 - - ---- 1/1/0/0/0 0/0 "POST /mcp HTTP/1.1"", where
// the last field of 1/1/0/0/0 counts the retries (+N after a redispatch).
var haproxyLog = regexp.MustCompile(`\[(\S+)\] mcp mcp_replicas/(\S+) \S+ (-?\d+) \S+ \S+ \S+ (\S+) \d+/\d+/\d+/\d+/\+?(\d+) \S+ "(\S+) (\S+)`)

// startHAProxy runs HAProxy with deploy/haproxy/mcp.cfg in front of the
// replicas on ports.
func startHAProxy(t *testing.T, ports []int) *realBalancer {
	t.Helper()
	bin := sbin(t, "haproxy")
	dir := t.TempDir()
	port := freePort(t)
	conf := deployConfig(t, "haproxy/mcp.cfg", withReplicas(ports, "bind :8080", fmt.Sprintf("bind 127.0.0.1:%d", port))...)
	global := filepath.Join(dir, "global.cfg")
	sock := filepath.Join(dir, "admin.sock")
	require.NoError(t, os.WriteFile(global, []byte(fmt.Sprintf(haproxyGlobal, sock)), 0o644))
	cfg := filepath.Join(dir, "mcp.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte(conf), 0o644))
	logPath := filepath.Join(dir, "access.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	b := &realBalancer{name: "haproxy", port: port, log: logPath,
		parse: func(line string) (logLine, bool) {
			m := haproxyLog.FindStringSubmatch(line)
			if m == nil {
				return logLine{}, false
			}
			l := logLine{method: m[6], uri: m[7], replica: -1, cut: m[4] != "----"}
			// HAProxy logs its local time.
			l.accepted, _ = time.ParseInLocation("02/Jan/2006:15:04:05.000", m[1], time.Local)
			l.status, _ = strconv.Atoi(m[3])
			l.tried, _ = strconv.Atoi(m[5])
			if n, ok := strings.CutPrefix(m[2], "r"); ok {
				if i, err := strconv.Atoi(n); err == nil && i >= 1 && i <= len(ports) {
					l.replica = i - 1
				}
			}
			return l, true
		}}
	// A replica is drained before it is stopped, and made ready again once
	// it is back: HAProxy then sends it no new request while it shuts down.
	b.remove = func(t *testing.T, i int) {
		haproxyCommand(t, sock, fmt.Sprintf("set server mcp_replicas/r%d state drain", i+1))
	}
	b.restore = func(t *testing.T, i int) {
		haproxyCommand(t, sock, fmt.Sprintf("set server mcp_replicas/r%d state ready", i+1))
	}
	// -db: in the foreground; the global section first, as a deployment's.
	runBalancer(t, b, exec.Command(bin, "-db", "-f", global, "-f", cfg), logFile, "")
	return b
}

// haproxyCommand runs one command of HAProxy's runtime API on its socket;
// a command that succeeds prints nothing.
func haproxyCommand(t *testing.T, sock, cmd string) {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = io.WriteString(c, cmd+"\n")
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Empty(t, strings.TrimSpace(string(out)), "haproxy: %s", cmd)
}

// runBalancer starts cmd (stdout to stdout when not nil), waits until it
// accepts connections on b.port, and stops it (SIGTERM, then SIGKILL) when
// the test ends. errorLog is a file the process logs its errors to, shown
// when the test fails.
func runBalancer(t *testing.T, b *realBalancer, cmd *exec.Cmd, stdout *os.File, errorLog string) {
	t.Helper()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if stdout != nil {
		cmd.Stdout = stdout
	} else {
		cmd.Stdout = stderr
	}
	require.NoError(t, cmd.Start(), "start %s", b.name)
	if stdout != nil {
		_ = stdout.Close() // the child has its own descriptor
	}
	b.exited = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-b.exited:
		default:
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-b.exited:
			case <-time.After(5 * time.Second):
				t.Errorf("%s did not exit within 5s of SIGTERM; killing it", b.name)
				_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				<-b.exited
			}
		}
		if t.Failed() {
			more := ""
			if errorLog != "" {
				e, _ := os.ReadFile(errorLog)
				more = string(e)
			}
			l, _ := os.ReadFile(b.log)
			// The requests that did not end well, and the lines that name
			// no replica (a connection closed before its request, a
			// request no replica took).
			var odd []string
			for _, line := range strings.Split(string(l), "\n") {
				p, ok := b.parse(line)
				if line != "" && (!ok || p.status/100 != 2 || p.tried > 0 || p.cut) {
					odd = append(odd, line)
				}
			}
			t.Logf("%s stderr:\n%s%s\n%s access log, requests not answered 2xx in full or passed on, and lines naming no replica:\n%s",
				b.name, stderr.String(), more, b.name, strings.Join(odd, "\n"))
		}
	})

	// The clients reach the balancer by its public name.
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(b.port))
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 32,
	}
	t.Cleanup(tr.CloseIdleConnections)
	b.hc = &http.Client{Transport: tr}

	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-b.exited:
			t.Fatalf("%s exited at start: %s", b.name, stderr.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not accept connections on %s within 10s: %s", b.name, addr, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// replica is one examples/everything process of a fleet, on a port of its
// own that it keeps across restarts.
type replica struct {
	port int
	env  []string
	args []string
	proc *serverProc
}

// start starts the process on the replica's port.
func (r *replica) start(t *testing.T) {
	t.Helper()
	r.proc = startHTTPServerEnv(t, r.env, append(slices.Clone(r.args), "-port", strconv.Itoa(r.port))...)
}

// stop sends SIGTERM and waits until the process has drained and exited,
// which must be a clean stop (exit 0) within the grace period; it returns
// how long that took.
func (r *replica) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	require.NoError(t, syscall.Kill(r.proc.cmd.Process.Pid, syscall.SIGTERM))
	select {
	case <-r.proc.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("replica on %d still running 15s after SIGTERM", r.port)
	}
	require.Equal(t, 0, r.proc.cmd.ProcessState.ExitCode(), "replica on %d: a clean stop after SIGTERM:\n%s", r.port, r.proc.stderr.String())
	return time.Since(start)
}

// healthy reports whether the replica answers GET /health with 200.
func (r *replica) healthy() bool {
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/health", r.port))
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
