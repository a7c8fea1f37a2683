package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// startDevIdP runs mcpchain dev-idp with args and returns the settings it
// printed (unquoted), its stdout, its stderr and the process.
func startDevIdP(t *testing.T, args ...string) (map[string]string, *syncBuffer, *syncBuffer, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(mcpchainBin, append([]string{"dev-idp"}, args...)...)
	cmd.Env = testEnv("")
	out, errb := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_, last := out.waitLine(t, 0, "OAUTH_SCOPES=", 30*time.Second)
	env := map[string]string{}
	out.mu.Lock()
	for _, l := range out.lines[:last+1] {
		k, v, _ := strings.Cut(l.text, "=")
		env[k] = strings.Trim(v, "'")
	}
	out.mu.Unlock()
	return env, out, errb, cmd
}

// TestDevIdPCommand: mcpchain dev-idp prints a server's settings; with
// --auto-approve a relying party's login (golang.org/x/oauth2, an HTTP
// client that follows redirects, go-oidc verifying the ID token)
// completes as the first --user; SIGINT and SIGTERM stop it with exit
// status 0. Without --auto-approve the consent page is shown; a host that
// is not loopback is refused.
func TestDevIdPCommand(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var back url.Values
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		back = r.URL.Query()
		mu.Unlock()
	}))
	defer cb.Close()

	env, out, errb, cmd := startDevIdP(t, "--auto-approve", "--user", "alice@example.com,Alice", "--user", "bob@example.com,Bob,bob-7",
		"--client-id", "mine", "--client-secret", "s3cret")
	assert.Equal(t, "generic", env["OAUTH_PROVIDER"])
	assert.Equal(t, "mine", env["OAUTH_CLIENT_ID"])
	assert.Equal(t, "s3cret", env["OAUTH_CLIENT_SECRET"])
	assert.Equal(t, "openid profile email", env["OAUTH_SCOPES"])
	assert.Contains(t, out.String(), "OAUTH_SCOPES='openid profile email'\n", "quoted for sh")
	require.True(t, strings.HasPrefix(env["OAUTH_ISSUER"], "http://127.0.0.1:"), env["OAUTH_ISSUER"])
	assert.Equal(t, env["OAUTH_ISSUER"]+"/token", env["OAUTH_TOKEN_ENDPOINT"])
	errb.waitLine(t, 0, "serving "+env["OAUTH_ISSUER"], 10*time.Second)
	assert.Contains(t, errb.String(), "level=WARN")
	assert.Contains(t, errb.String(), "alice@example.com <alice@example.com> (auto-approved)")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(ctx, env["OAUTH_ISSUER"])
	require.NoError(t, err)
	conf := &oauth2.Config{ClientID: env["OAUTH_CLIENT_ID"], ClientSecret: env["OAUTH_CLIENT_SECRET"], Endpoint: op.Endpoint(),
		RedirectURL: cb.URL + "/oauth/callback", Scopes: []string{oidc.ScopeOpenID, "email"}}
	verifier := oauth2.GenerateVerifier()
	resp, err := http.Get(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oidc.Nonce("n")))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	mu.Lock()
	code := back.Get("code")
	mu.Unlock()
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	raw, _ := tok.Extra("id_token").(string)
	idt, err := op.Verifier(&oidc.Config{ClientID: "mine"}).Verify(ctx, raw)
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", idt.Subject)

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	assert.Contains(t, errb.String(), "stopped")
	noRace(t, errb.String())

	// Without --auto-approve: the consent page; SIGTERM.
	env, _, errb, cmd = startDevIdP(t)
	resp, err = http.Get(env["OAUTH_AUTHORIZATION_ENDPOINT"] + "?" + url.Values{"client_id": {env["OAUTH_CLIENT_ID"]},
		"response_type": {"code"}, "redirect_uri": {cb.URL + "/cb"}, "code_challenge_method": {"S256"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}}.Encode())
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Sign in to the development identity provider")
	assert.Contains(t, string(page), "dev@example.com")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
	assert.Contains(t, errb.String(), "stopped")

	r := run(t, "", "", "dev-idp", "--host", "0.0.0.0")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "not a loopback address")
	r = run(t, "", "", "dev-idp", "--user", "a,b,c,d")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "EMAIL[,NAME[,SUBJECT]]")
}
