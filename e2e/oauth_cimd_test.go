package e2e

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOAuthCIMDTypeScriptClient: the TypeScript SDK client identifies
// itself with a client ID metadata document (SEP-991) instead of
// registering. The document is served over TLS on 127.0.0.1 by this
// test; examples/oauth trusts the test's certificate (SSL_CERT_FILE) and
// may fetch from loopback (OAUTH_CIMD=allow-private-addresses, which
// the default refuses). The SDK sees client_id_metadata_document_supported
// in the metadata, uses the document's URL as client_id, and the login
// runs as with a registered client: consent (showing the document's
// name and host), the provider, the code exchange without a secret,
// whoami, a refresh, and the reuse of a spent refresh token revoking
// the login. No registration request is made.
func TestOAuthCIMDTypeScriptClient(t *testing.T) {
	t.Parallel()
	oauthBinary(t)
	cbPort := freePort(t)
	redirect := "http://127.0.0.1:" + strconv.Itoa(cbPort) + "/callback"
	var hits atomic.Int32
	docs := httptest.NewUnstartedServer(nil)
	docs.StartTLS()
	t.Cleanup(docs.Close)
	docURL := docs.URL + "/oauth/client-metadata.json"
	docs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/oauth/client-metadata.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=300")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"client_id": docURL, "client_name": "mcpchain e2e (TypeScript SDK)", "redirect_uris": []string{redirect},
			"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
			"token_endpoint_auth_method": "none",
		})
	})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: docs.Certificate().Raw}), 0o600))

	up := newUpstream(t, "generic")
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	env := up.env()
	env["MCP_BASE_URL"] = base
	env["OAUTH_CIMD"] = "allow-private-addresses"
	env["SSL_CERT_FILE"] = ca
	srv := startOAuthServer(t, port, env)

	run := runNodeEnv(t, 70*time.Second, []string{"OAUTH_CLIENT_AUTH=none", "OAUTH_CLIENT_METADATA_URL=" + docURL,
		"OAUTH_CALLBACK_PORT=" + strconv.Itoa(cbPort)}, "oauth-client.mjs", base+"/mcp")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("oauth-client.mjs stderr:\n%s\nstdout:\n%s", run.stderr, run.stdout)
		}
	})
	var out tsOAuthOut
	require.NoError(t, json.Unmarshal(run.stdout, &out), "oauth-client.mjs must print one JSON object")
	require.Empty(t, out.Watchdog)
	require.Nil(t, out.Fatal)

	assert.True(t, out.step(t, "firstConnect", nil).failed(), "connect without a token must fail (401)")
	require.NotEmpty(t, out.AuthorizationRequests)
	ar := out.AuthorizationRequests[0]
	assert.Equal(t, docURL, ar["client_id"], "the SDK used the document's URL as its client_id")
	assert.Equal(t, redirect, ar["redirect_uri"])
	assert.NotContains(t, srv.stderr.String(), "client registered", "no dynamic registration")

	require.NotNil(t, out.Consent, "the login passed through the consent page")
	assert.True(t, out.Consent.ShowsClientName, "the consent page names the client from its document")
	assert.Equal(t, strings.TrimPrefix(docs.URL, "https://"), out.Consent.ClientHost, "and the host publishing it")

	require.False(t, out.step(t, "finishAuth", nil).failed(), "%s", out.Steps["finishAuth"])
	require.NotEmpty(t, out.TokenHistory)
	require.NotNil(t, out.TokenHistory[0].AccessToken)
	assert.Equal(t, docURL, out.TokenHistory[0].AccessToken.Claims["client_id"])

	var who whoamiStep
	require.False(t, out.step(t, "whoami", &who).failed(), "%s", out.Steps["whoami"])
	require.False(t, who.IsError, who.Text)
	assert.Equal(t, docURL, who.StructuredContent.Session["clientId"])
	assert.Equal(t, "generic:1234567890", who.StructuredContent.Session["sub"])

	var refresh struct {
		AccessTokenChanged bool `json:"accessTokenChanged"`
	}
	require.False(t, out.step(t, "refresh", &refresh).failed(), "%s", out.Steps["refresh"])
	assert.True(t, refresh.AccessTokenChanged)
	require.False(t, out.step(t, "whoamiAfterRefresh", nil).failed(), "%s", out.Steps["whoamiAfterRefresh"])
	assert.True(t, out.step(t, "reuseOldRefreshToken", nil).failed(), "a spent refresh token is refused")
	assert.EqualValues(t, 1, hits.Load(), "the document was fetched once and cached for its max-age")
}
