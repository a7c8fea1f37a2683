package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/internal/doctest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "s3cret"

// serve starts the app in-process and returns its URL.
func serve(t *testing.T) string {
	t.Helper()
	mux, h := newApp(token)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return ts.URL
}

// post sends one JSON-RPC message to /mcp with the given Authorization
// header ("" for none) and session ID.
func post(t *testing.T, url, auth, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestToolCallWithToken: with the right token a client initializes and
// calls the tool, which sees the caller's auth data.
func TestToolCallWithToken(t *testing.T) {
	url := serve(t)
	resp := post(t, url, "Bearer "+token, "", initialize)
	require.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)

	resp = post(t, url, "Bearer "+token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, readBody(t, resp))
	resp = post(t, url, "Bearer "+token, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body := readBody(t, resp)
	assert.Contains(t, body, "You are ada")
	assert.NotContains(t, body, `"isError":true`)
}

// TestRefusedWithoutValidToken: no token, or a wrong one, gets 401 with a
// WWW-Authenticate challenge, on the MCP endpoint and on the app's route;
// a wrong token is reported as invalid_token (RFC 6750 §3.1).
func TestRefusedWithoutValidToken(t *testing.T) {
	url := serve(t)
	for _, tc := range []struct{ name, auth, challenge string }{
		{"no token", "", "Bearer"},
		{"wrong token", "Bearer wrong", `Bearer error="invalid_token"`},
		{"not bearer", "Basic " + token, `Bearer error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, url, tc.auth, "", initialize)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			assert.Equal(t, tc.challenge, resp.Header.Get("WWW-Authenticate"))
			assert.NotContains(t, readBody(t, resp), "serverInfo")

			req, err := http.NewRequest(http.MethodGet, url+"/api/hello", nil)
			require.NoError(t, err)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			app, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = app.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, app.StatusCode)
			assert.Equal(t, tc.challenge, app.Header.Get("WWW-Authenticate"))
		})
	}
}

// TestAppRouteWithToken: the app's own route answers a caller with the token.
func TestAppRouteWithToken(t *testing.T) {
	url := serve(t)
	req, err := http.NewRequest(http.MethodGet, url+"/api/hello", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "hello from the app\n", readBody(t, resp))
}

// TestDocShowsThisFile: docs/transports.md's whole app is main.go verbatim,
// so what a reader copies is what the tests above run.
func TestDocShowsThisFile(t *testing.T) {
	file, err := os.ReadFile("main.go")
	require.NoError(t, err)
	require.Equal(t, string(file), doctest.FirstGoBlock(t, "../../docs/transports.md", "## A whole app behind one bearer token"),
		"docs/transports.md's whole app must be examples/bearer/main.go verbatim; copy the file into it")
}
