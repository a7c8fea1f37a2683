package e2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conformanceAlpha is the 0.2.0-alpha line of the official conformance
// suite, installed next to the pinned 0.1.16 under an npm alias (see
// node/package.json): only the alpha line has the `authorization`
// command, which tests an authorization server.
const conformanceAlpha = "node_modules/@modelcontextprotocol/conformance-alpha/dist/index.js"

// The authorization-server scenarios of the suite, and the checks each
// must pass. authorization-server-metadata-endpoint checks the metadata
// and, second, that it advertises client_id_metadata_document_supported
// (Client ID Metadata Documents); no scenario of the suite drives a login
// with a metadata-document client, which providers/cimd_test.go does.
var authScenarios = map[string]int{
	"authorization-server-metadata-endpoint": 2,
	"authorization-code-grant":               1,
}

// TestConformanceAuthorization runs `conformance authorization` (both
// scenarios) against the OAuth proxy of examples/oauth, in front of
// mockoidc. The suite prints an authorization URL for a person to open
// and waits for the redirect on its own loopback listener; the test is
// that person: it registers the suite's redirect URI beforehand (dynamic
// registration, a public client), opens the URL in the scripted browser,
// approves the consent page, and lets the last redirect reach the suite.
// `make conformance` runs this test; `make e2e` skips it.
func TestConformanceAuthorization(t *testing.T) {
	dir, bin := nodePaths(t)
	_, err := os.Stat(filepath.Join(dir, conformanceAlpha))
	require.NoError(t, err, "the conformance suite's alpha line is missing: run `cd e2e/node && npm ci`")
	oauthBinary(t)

	up := newUpstream(t, "generic")
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	env := up.env()
	env["MCP_BASE_URL"] = base
	startOAuthServer(t, port, env)
	cbPort := freePort(t)
	redirect := "http://127.0.0.1:" + strconv.Itoa(cbPort) + "/callback"
	clientID := registerPublicClient(t, base, redirect)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{conformanceAlpha, "authorization",
		"--url", base, "--client-id", clientID, "--resource", base + "/mcp", "--port", strconv.Itoa(cbPort)}
	args = append(args, strings.Fields(os.Getenv("CONFORMANCE_ARGS"))...) // e.g. --verbose, as for e2e/conformance.sh
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "node"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	// Read the suite's output; the line with our authorization URL is the
	// cue to log in. The browser runs here, not in the reader, so that
	// require's FailNow stays on the test goroutine.
	authURLs := make(chan string, 1)
	listening := make(chan struct{})
	var listenOnce sync.Once
	var out strings.Builder
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			out.WriteString(line + "\n")
			if strings.HasPrefix(line, "Callback server started") {
				listenOnce.Do(func() { close(listening) })
			}
			if strings.HasPrefix(line, base+"/oauth/authorize?") {
				select {
				case authURLs <- line:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-authURLs:
		b := newFormBrowser(t)
		back := b.login(u, redirect)
		require.NotEmpty(t, back.Query().Get("code"), "the login gave the suite a code: %s", back)
		select { // the suite binds its listener asynchronously and says so
		case <-listening:
		case <-ctx.Done():
		}
		assert.Equal(t, 200, b.get(back.String()), "the suite's callback listener took the code")
	case <-readDone:
	case <-ctx.Done():
	}
	<-readDone
	waitErr := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	output := out.String()
	t.Logf("conformance authorization (%s):\n%s", conformanceVersion(t, dir), output)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("suite stderr:\n%s", stderr)
		}
	})
	require.NoError(t, ctx.Err(), "the suite did not finish within 60 s")

	got := scenarioCounts(output)
	for name, checks := range authScenarios {
		c, ok := got[name]
		if assert.True(t, ok, "the summary lists %s", name) {
			assert.Equal(t, [2]int{checks, 0}, c, "%s: passed, failed", name)
		}
	}
	assert.Len(t, got, len(authScenarios), "scenarios in the summary: %v", got)
	assert.Regexp(t, `(?m)^Total: 3 passed, 0 failed`, output)
	assert.NoError(t, waitErr, "the suite exits 0 when every check passed")
}

var scenarioLine = regexp.MustCompile(`(?m)^\S+ ([A-Za-z0-9_./-]+): (\d+) passed, (\d+) failed`)

// scenarioCounts reads the summary lines "✓ name: P passed, F failed".
func scenarioCounts(out string) map[string][2]int {
	m := map[string][2]int{}
	for _, s := range scenarioLine.FindAllStringSubmatch(summaryOf(out), -1) {
		p, _ := strconv.Atoi(s[2])
		f, _ := strconv.Atoi(s[3])
		m[s[1]] = [2]int{p, f}
	}
	return m
}

func summaryOf(out string) string {
	if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
		return out[i:]
	}
	return out
}

func conformanceVersion(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules/@modelcontextprotocol/conformance-alpha/package.json"))
	if err != nil {
		return "unknown version"
	}
	m := regexp.MustCompile(`"version":\s*"([^"]+)"`).FindSubmatch(b)
	if m == nil {
		return "unknown version"
	}
	return "@modelcontextprotocol/conformance " + string(m[1])
}
