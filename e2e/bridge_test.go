package e2e

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBridgeOAuth runs mcpchain bridge as a desktop client that speaks
// only stdio does: the TypeScript SDK's StdioClientTransport
// (node/bridge-client.mjs) spawns `mcpchain bridge URL --oauth
// --no-browser` against examples/oauth (in front of mockoidc) with a
// fresh HOME. The bridge prints the authorization URL on stderr; the test
// is the user: it opens the URL in Chromium, approves the consent page,
// and the browser lands on the bridge's loopback redirect. The TS client
// then lists and calls tools; the tokens are in the user's config
// directory with mode 0600, and a second start calls a tool without any
// login. `call --oauth` is then run with a fresh HOME (its own login in
// Chromium), and call, inspect, read and prompt --oauth with the bridge's
// HOME (its cached token, no login).
func TestBridgeOAuth(t *testing.T) {
	cli, err := mcpchainCLI()
	require.NoError(t, err, "go build ./cmd/mcpchain")
	oauthBinary(t)
	up := newUpstream(t, "generic")
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	env := up.env()
	env["MCP_BASE_URL"] = base
	srv := startOAuthServer(t, port, env)
	mcpURL := base + "/mcp"

	// mockoidc's user, as examples/oauth names it.
	const mockUser = `"sub":"generic:1234567890"`
	home := t.TempDir()
	tokens := filepath.Join(home, ".config", "mcpchain", "tokens.json")

	t.Run("first start logs in", func(t *testing.T) {
		run := startBridgeClient(t, home, cli, "bridge", mcpURL, "--oauth", "--no-browser")
		loginInBrowser(t, run.stderr, base)
		out := run.wait(t)
		assertBridgeCalls(t, out, mockUser)
		fi, err := os.Stat(tokens)
		require.NoError(t, err, "the tokens are kept in the user's config directory")
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "token file mode")
		di, err := os.Stat(filepath.Dir(tokens))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), di.Mode().Perm(), "token directory mode")
		b, err := os.ReadFile(tokens)
		require.NoError(t, err)
		assert.Contains(t, string(b), `"`+mcpURL+`"`, "the token is kept under the server's URL")
		assert.Contains(t, srv.stderr.String(), "client registered", "the bridge registered itself (dynamic registration)")
	})

	t.Run("second start needs no login", func(t *testing.T) {
		registered := strings.Count(srv.stderr.String(), "client registered")
		logins := strings.Count(srv.stderr.String(), "user logged in")
		run := startBridgeClient(t, home, cli, "bridge", mcpURL, "--oauth", "--no-browser")
		out := run.wait(t)
		assertBridgeCalls(t, out, mockUser)
		assert.NotContains(t, run.stderr.String(), "log in at this URL", "no login on the second start")
		assert.Equal(t, registered, strings.Count(srv.stderr.String(), "client registered"), "no new registration")
		assert.Equal(t, logins, strings.Count(srv.stderr.String(), "user logged in"), "no new login")
	})

	t.Run("call --oauth logs in", func(t *testing.T) {
		// Without --no-browser: a stand-in xdg-open records the URL it is
		// given (the test's Chromium is the browser).
		fresh, bin := t.TempDir(), t.TempDir()
		opened := filepath.Join(bin, "opened")
		require.NoError(t, os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" > "+opened+"\n"), 0o755))
		cmd := exec.Command(cli, "call", "--oauth", mcpURL, "add", "a=20", "b=22")
		cmd.Env = append(homeEnv(fresh), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stdout bytes.Buffer
		stderr := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = &stdout, stderr
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		authURL := loginInBrowser(t, stderr, base)
		var b []byte
		var err error
		require.Eventually(t, func() bool { b, err = os.ReadFile(opened); return err == nil && len(b) > 0 },
			5*time.Second, 20*time.Millisecond, "xdg-open was started: %v", err)
		assert.Equal(t, authURL+"\n", string(b), "the browser was opened on the printed URL")
		select {
		case err := <-done:
			require.NoError(t, err, "stderr:\n%s", stderr)
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("call did not end after the login:\n%s", stderr)
		}
		assert.Equal(t, "42\n", stdout.String())
		assert.Contains(t, stderr.String(), "mcpchain: the browser came back; getting the token (kept in "+filepath.Join(fresh, ".config", "mcpchain", "tokens.json")+")")
		assert.NotContains(t, stderr.String(), "WARNING: DATA RACE")
		_, err = os.Stat(filepath.Join(fresh, ".config", "mcpchain", "tokens.json"))
		assert.NoError(t, err, "call keeps its token too")
	})

	t.Run("with the bridge's token", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args []string
			want string
		}{
			{"call", []string{"call", "--oauth", "--no-browser", "--timeout", "30s", mcpURL, "whoami"}, mockUser},
			{"inspect", []string{"inspect", "--oauth", "--no-browser", "--timeout", "30s", mcpURL}, "whoami"},
			{"read", []string{"read", "--oauth", "--no-browser", "--timeout", "30s", mcpURL, "file:///hello.txt"}, "hello"},
			{"prompt", []string{"prompt", "--oauth", "--no-browser", "--timeout", "30s", mcpURL, "greet", "name=Bob"}, "Bob"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cmd := exec.Command(cli, tc.args...)
				cmd.Env = homeEnv(home)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				require.NoError(t, cmd.Run(), "stderr:\n%s", stderr.String())
				assert.Contains(t, stdout.String(), tc.want)
				assert.NotContains(t, stderr.String(), "log in at this URL", "the cached token is used")
				assert.NotContains(t, stderr.String(), "WARNING: DATA RACE")
			})
		}
	})
}

// TestBridgeNoAuthTypeScript: a plain bridge (no auth) to examples/everything
// over Streamable HTTP, used by the TypeScript SDK's stdio client.
func TestBridgeNoAuthTypeScript(t *testing.T) {
	t.Parallel()
	cli, err := mcpchainCLI()
	require.NoError(t, err, "go build ./cmd/mcpchain")
	url := startHTTPServer(t).url
	run := startBridgeClient(t, t.TempDir(), cli, "bridge", "-H", "Authorization: Bearer alice", url)
	out := run.wait(t)
	assertBridgeCalls(t, out, `"alice"`)
	assert.NotContains(t, run.stderr.String(), "log in at this URL")
}

// bridgeOut is what bridge-client.mjs prints.
type bridgeOut struct {
	Connect json.RawMessage `json:"connect"`
	Tools   json.RawMessage `json:"tools"`
	Add     json.RawMessage `json:"add"`
	Whoami  json.RawMessage `json:"whoami"`
}

// assertBridgeCalls checks the client's steps: the tools listed, add
// called, and whoami naming user.
func assertBridgeCalls(t *testing.T, out bridgeOut, user string) {
	t.Helper()
	var tools []string
	require.NoError(t, json.Unmarshal(out.Tools, &tools), "tools: %s (connect: %s)", out.Tools, out.Connect)
	assert.Contains(t, tools, "add")
	assert.Contains(t, tools, "whoami")
	assert.JSONEq(t, `"5"`, string(out.Add))
	var who struct {
		IsError bool `json:"isError"`
		Text    string
	}
	require.NoError(t, json.Unmarshal(out.Whoami, &who), "whoami: %s", out.Whoami)
	assert.False(t, who.IsError, "whoami: %s", out.Whoami)
	assert.Contains(t, string(out.Whoami), user, "whoami names the user")
}

// bridgeRun is a running bridge-client.mjs.
type bridgeRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr *syncBuffer // node's, with the bridge's inherited
	done   chan error
}

// startBridgeClient starts node bridge-client.mjs with HOME (and
// XDG_CONFIG_HOME) set to home; it spawns cli with args.
func startBridgeClient(t *testing.T, home, cli string, args ...string) *bridgeRun {
	t.Helper()
	dir, bin := nodePaths(t)
	r := &bridgeRun{stderr: &syncBuffer{}, done: make(chan error, 1)}
	r.cmd = exec.Command(filepath.Join(bin, "node"), append([]string{"bridge-client.mjs", cli}, args...)...)
	r.cmd.Dir = dir
	r.cmd.Env = homeEnv(home)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, r.stderr
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, r.cmd.Start())
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL) })
	return r
}

// wait waits for the client to exit and decodes what it printed.
func (r *bridgeRun) wait(t *testing.T) bridgeOut {
	t.Helper()
	select {
	case err := <-r.done:
		require.NoError(t, err, "bridge-client.mjs:\n%s", r.stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("bridge-client.mjs did not exit within 60 s:\n%s", r.stderr)
	}
	assert.NotContains(t, r.stderr.String(), "WARNING: DATA RACE")
	var out bridgeOut
	require.NoError(t, json.Unmarshal(r.stdout.Bytes(), &out), "one JSON object: %s\nstderr:\n%s", r.stdout.String(), r.stderr)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge-client.mjs stdout: %s\nstderr:\n%s", r.stdout.String(), r.stderr)
		}
	})
	return out
}

// homeEnv is this process's environment with HOME and XDG_CONFIG_HOME
// in home.
func homeEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "XDG_CONFIG_HOME" {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}

var authURLLine = regexp.MustCompile(`(?m)^(http://127\.0\.0\.1:\d+/oauth/authorize\?\S+)$`)

// loginInBrowser is the user: it waits for the authorization URL on
// stderr (the line after "log in at this URL"), opens it in Chromium,
// approves the consent page, and checks the browser ends on the
// command's loopback redirect, which says the window may be closed. It
// returns the URL.
func loginInBrowser(t *testing.T, stderr *syncBuffer, base string) string {
	t.Helper()
	var authURL string
	require.Eventually(t, func() bool {
		m := authURLLine.FindStringSubmatch(stderr.String())
		if m == nil {
			return false
		}
		authURL = m[1]
		return true
	}, 30*time.Second, 20*time.Millisecond, "the authorization URL on stderr:\n%s", stderr)
	require.Contains(t, stderr.String(), "mcpchain: log in at this URL")
	require.True(t, strings.HasPrefix(authURL, base+"/"), authURL)
	u, err := url.Parse(authURL)
	require.NoError(t, err)
	redirect, err := url.Parse(u.Query().Get("redirect_uri"))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", redirect.Hostname(), "a loopback redirect: %s", redirect)

	ctx := newChromium(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(authURL), chromedp.WaitVisible(chromedp.ID("approve"))))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve"))))
	var loc string
	require.Eventually(t, func() bool {
		loc, err = chromedp.Run(ctx, chromedp.Location())
		return err == nil && strings.HasPrefix(loc, redirect.String())
	}, 20*time.Second, 50*time.Millisecond, "the browser reaches the loopback redirect (at %s)", loc)
	var body string
	require.Eventually(t, func() bool {
		body, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		return err == nil && strings.Contains(body, "You may close this window.")
	}, 10*time.Second, 50*time.Millisecond, "the loopback page: %q", body)
	lq, err := url.Parse(loc)
	require.NoError(t, err)
	assert.NotEmpty(t, lq.Query().Get("code"), "the redirect carries a code")
	return authURL
}
