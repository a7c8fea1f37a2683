package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/internal/wiretest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestParse: flags, their environment defaults, and -dev-idp's loopback rule.
func TestParse(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := parse([]string{"-scopes", "a, b", "-port", "9000"}, env(map[string]string{"RS_ISSUER": "https://id.example.com"}))
	require.NoError(t, err)
	cfg := s.config()
	assert.Equal(t, "https://id.example.com", cfg.Issuer)
	assert.Equal(t, "http://localhost:9000/mcp", cfg.Resource)
	assert.Equal(t, []string{"a", "b"}, cfg.RequiredScopes)
	assert.Nil(t, cfg.Introspection)
	s, err = parse([]string{"-introspection-url", "https://id/introspect", "-audience", "api://x"}, env(nil))
	require.NoError(t, err)
	assert.Equal(t, "https://id/introspect", s.config().Introspection.Endpoint)
	assert.Equal(t, []string{"api://x"}, s.config().Audiences)
	_, err = parse([]string{"-dev-idp", "-host", "0.0.0.0"}, env(nil))
	require.ErrorIs(t, err, errConfig)
	s, err = parse([]string{"-dev-idp"}, env(nil))
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", s.host)
}

// TestRunWithoutIssuerFails: no issuer is a configuration error, before
// anything listens.
func TestRunWithoutIssuerFails(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"-port", "0"}, func(string) string { return "" }, io.Discard, slog.New(slog.DiscardHandler))
	require.ErrorIs(t, err, errConfig)
	assert.Contains(t, err.Error(), "Issuer is required")
}

// TestDevIdP: with -dev-idp the printed token opens a session and whoami
// shows the dev user; a request without a token is pointed at the
// metadata, which names the dev provider.
func TestDevIdP(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ctx, cancel := context.WithCancel(context.Background())
	var out wiretest.SyncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-dev-idp", "-port", fmt.Sprint(port), "-resource", base + "/mcp"},
			func(string) string { return "" }, &out, slog.New(slog.DiscardHandler))
	}()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	var tok string
	require.Eventually(t, func() bool {
		m := regexp.MustCompile(`(?m)^  (ey[\w.-]+)$`).FindStringSubmatch(out.String())
		if m == nil {
			return false
		}
		tok = m[1]
		resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}, 10*time.Second, 20*time.Millisecond, out.String())
	issuer := regexp.MustCompile(`RS_ISSUER=(\S+)`).FindStringSubmatch(out.String())[1]

	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	var md map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&md))
	resp.Body.Close()
	assert.Equal(t, []any{issuer}, md["authorization_servers"])

	call := func(authz, sid, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp, _ = call("", "", init)
	require.Equal(t, 401, resp.StatusCode)
	assert.Equal(t, `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`, resp.Header.Get("WWW-Authenticate"))
	resp, _ = call("Bearer "+tok+"x", "", init)
	require.Equal(t, 401, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`)

	resp, body := call("Bearer "+tok, "", init)
	require.Equal(t, 200, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	resp, _ = call("Bearer "+tok, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, 202, resp.StatusCode)
	resp, body = call("Bearer "+tok, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
	require.Equal(t, 200, resp.StatusCode, body)
	assert.Contains(t, body, `\"subject\":\"dev-user-1\"`)
	assert.Contains(t, body, `mcp:tools`)
}
