package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/testport"
)

var updateCapture = flag.Bool("update-capture", false, "write the terminal capture to docs/cli-capture.txt")

// stepsTool is a tool for the terminal capture: five progress reports,
// 300 ms apart.
const stepsTool = `	mcp.AddTool(srv, mcp.Tool{Name: "steps", Description: "Five steps with progress"}, func(ctx context.Context, c *mcp.Context, _ in) (string, error) {
		for i := 1; i <= 5; i++ {
			time.Sleep(300 * time.Millisecond)
			c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 5, Message: fmt.Sprintf("step %d of 5", i)})
		}
		return "all 5 steps done", nil
	})
`

// tmux drives a private tmux server (its own socket, no user config).
type tmux struct {
	t      *testing.T
	socket string
}

func (m *tmux) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", m.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	require.NoError(m.t, err, "tmux %v: %s", args, out)
	return string(out)
}

func (m *tmux) capture(pane string) string {
	return m.run("capture-pane", "-p", "-S", "-", "-t", pane)
}

func (m *tmux) waitFor(pane, s string, d time.Duration) string {
	m.t.Helper()
	deadline := time.Now().Add(d)
	for {
		out := m.capture(pane)
		if strings.Contains(out, s) {
			return out
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("pane %s never showed %q:\n%s", pane, s, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTerminalCapture runs `mcpchain dev` (HTTP, logging proxy) in one
// tmux pane and `mcpchain call` in another, as a person would, and checks
// what the terminal shows: dev's build, restart and request lines, and
// call's progress bar drawn in place (stderr is a terminal there). With
// -update-capture it writes the screens to docs/cli-capture.txt.
func TestTerminalCapture(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("tmux")
	require.NoError(t, err, "tmux is needed (apt-get install tmux; .ci/run installs it)")
	dir := tempModule(t)
	src := strings.Replace(serverSource("first"), "\tctx, stop :=", stepsTool+"\tctx, stop :=", 1)
	src = strings.Replace(src, "import (\n", "import (\n\t\"fmt\"\n\t\"time\"\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644))

	m := &tmux{t: t, socket: fmt.Sprintf("mcpchain-test-%d", os.Getpid())}
	m.run("new-session", "-d", "-s", "cli", "-x", "160", "-y", "60", "-c", dir)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
	m.run("split-window", "-v", "-t", "cli", "-c", dir)
	devPane, callPane := "cli:0.0", "cli:0.1"

	port, err := testport.Free()
	require.NoError(t, err)
	proxyPort, err := testport.Free()
	require.NoError(t, err)
	// Short names in the panes: the binary's directory is on PATH, before
	// the test's own PATH (where go is), not the one a login shell's profile
	// sets, which on some machines lacks the Go toolchain.
	path := "export PS1='$ ' PATH=" + shellQuote(binDir+string(os.PathListSeparator)+os.Getenv("PATH")) + "; clear"
	m.run("send-keys", "-t", devPane, path, "Enter")
	m.run("send-keys", "-t", callPane, path, "Enter")
	time.Sleep(200 * time.Millisecond)
	m.run("send-keys", "-t", devPane, "mcpchain dev --http http://127.0.0.1:"+strconv.Itoa(port)+"/mcp --proxy-port "+strconv.Itoa(proxyPort)+" -- -http -port "+strconv.Itoa(port), "Enter")
	m.waitFor(devPane, "server 1 listening", time.Minute)

	proxy := "http://127.0.0.1:" + strconv.Itoa(proxyPort) + "/mcp"
	m.run("send-keys", "-t", callPane, "mcpchain call "+proxy+" steps", "Enter")
	mid := m.waitFor(callPane, "60% 3/5 step 3 of 5", 30*time.Second)
	end := m.waitFor(callPane, "all 5 steps done", 30*time.Second)
	require.Regexp(t, `\[#{18}-{12}\]  60% 3/5 step 3 of 5`, mid, "a bar drawn in place")
	require.Contains(t, end, "[##############################] 100% 5/5 step 5 of 5\nall 5 steps done")
	require.NotContains(t, end, "step 4 of 5\n", "the bar is redrawn on one line, not one line per report")

	// An edit that adds a tool, then one that does not build.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.ReplaceAll(src, "first", "second")), 0o644))
	m.waitFor(devPane, "server 2 listening", time.Minute)
	m.run("send-keys", "-t", callPane, "mcpchain call "+proxy+" second", "Enter")
	m.waitFor(callPane, "second says hi", 30*time.Second)
	time.Sleep(300 * time.Millisecond) // the prompt is back before the next command
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(src+"\nfunc broken() { undefined() }\n"), 0o644))
	m.waitFor(devPane, "undefined: undefined", time.Minute)
	m.run("send-keys", "-t", callPane, "mcpchain call "+proxy+" nope", "Enter")
	devScreen := m.waitFor(devPane, "rpc  tools/call nope", 30*time.Second)
	callScreen := m.capture(callPane)

	for _, re := range []string{
		`dev  built \. in \S+`,
		`dev  server 1 listening at http://127\.0\.0\.1:\d+/mcp`,
		`rpc  initialize\s+\S+  ok`,
		`rpc  tools/list\s+\S+  ok`,
		`rpc  tools/call steps\s+1\.\d+s  ok`,
		`dev  server 2 listening`,
		`rpc  tools/call second\s+\S+  ok`,
		`dev  build failed \(\S+\); the last good server keeps running:`,
		`rpc  tools/call nope\s+\S+  error -32602`,
	} {
		require.Regexp(t, re, devScreen)
	}
	m.run("send-keys", "-t", devPane, "C-c", "")
	m.waitFor(devPane, "$ ", 10*time.Second)

	if *updateCapture {
		clean := func(s string) string {
			s = regexp.MustCompile(`(?m)[ \t]+$`).ReplaceAllString(s, "")
			s = strings.ReplaceAll(s, dir, "~/weather")
			s = strings.ReplaceAll(s, binDir, "~/go/bin")
			// A command typed while the shell redraws its prompt shows
			// twice (the tty's echo, then readline's); keep readline's.
			lines := strings.Split(s, "\n")
			var kept []string
			for i, l := range lines {
				if i+1 < len(lines) && l != "" && lines[i+1] == "$ "+l {
					continue
				}
				kept = append(kept, l)
			}
			return strings.TrimSpace(strings.Join(kept, "\n"))
		}
		doc := "# Terminal capture of the mcpchain command (tmux capture-pane)\n" +
			"# Written by: go test ./cmd/mcpchain -run TestTerminalCapture -update-capture\n" +
			"# A temp module's server (tools first/second and steps); dev in the top pane, call in the bottom one.\n\n" +
			"== top pane: mcpchain dev over HTTP, logging proxy ==\n" + clean(devScreen) + "\n\n" +
			"== bottom pane, while `mcpchain call ... steps` runs (the bar is redrawn in place with \\r) ==\n" + clean(mid) + "\n\n" +
			"== bottom pane, at the end ==\n" + clean(callScreen) + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(repoRoot, "docs", "cli-capture.txt"), []byte(doc), 0o644))
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
