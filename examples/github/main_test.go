package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/internal/doctest"
	"github.com/mcpchain/mcp/mcphttp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// env is a configuration as a user would give it; nothing in it is
// contacted before a user signs in.
func env(k string) string {
	return map[string]string{
		"MCP_BASE_URL":         "http://localhost:8000",
		"GITHUB_CLIENT_ID":     "Iv1.test",
		"GITHUB_CLIENT_SECRET": "secret",
	}[k]
}

// TestServesDiscoveryOffline: the server builds its handler from the
// environment and serves the OAuth discovery documents and the 401
// challenge that lead a client to them, with no network access (GitHub is
// contacted only when a user signs in).
func TestServesDiscoveryOffline(t *testing.T) {
	srv, auth, err := newServer(env)
	require.NoError(t, err)
	t.Cleanup(func() { _ = auth.Close() })
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(mcphttp.NewMux(h, nil)) // the mux Start serves
	t.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})

	get := func(path string) map[string]any {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		var doc map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc), path)
		return doc
	}
	as := get("/.well-known/oauth-authorization-server")
	assert.Equal(t, "http://localhost:8000", as["issuer"])
	assert.Equal(t, "http://localhost:8000/oauth/authorize", as["authorization_endpoint"])
	assert.Equal(t, "http://localhost:8000/oauth/register", as["registration_endpoint"])
	pr := get("/.well-known/oauth-protected-resource/mcp")
	assert.Equal(t, "http://localhost:8000/mcp", pr["resource"])
	assert.Equal(t, []any{"http://localhost:8000"}, pr["authorization_servers"])

	resp, err := http.Post(ts.URL+"/mcp", "application/json", nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"),
		`resource_metadata="http://localhost:8000/.well-known/oauth-protected-resource/mcp"`)
}

// TestNeedsConfiguration: without the GitHub client credentials the
// server does not start.
func TestNeedsConfiguration(t *testing.T) {
	_, _, err := newServer(func(k string) string {
		if k == "GITHUB_CLIENT_ID" {
			return ""
		}
		return env(k)
	})
	require.Error(t, err)
}

// TestDocShowsThisFile: the OAuth guide's program is main.go verbatim,
// so what a reader copies is what the tests above run.
func TestDocShowsThisFile(t *testing.T) {
	file, err := os.ReadFile("main.go")
	require.NoError(t, err)
	require.Equal(t, string(file), doctest.FirstGoBlock(t, "../../docs/auth.md", "## OAuth"),
		"the OAuth guide's program must be examples/github/main.go verbatim; copy the file into it")
}
