package providers

import (
	"log/slog"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/wiretest"
)

// A code exchange the provider refuses says, in the log and to the
// client, which setting to check, without any secret: here the provider
// wants client_secret_basic and the server sends client_secret_post.
func TestUpstreamTokenFailureNamesTheSetting(t *testing.T) {
	t.Parallel()
	var logs wiretest.SyncBuffer
	e := newEnv(t, func(c *OAuthProviderConfig) {
		c.TokenEndpointAuthMethod = "client_secret_post"
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	c := e.register("none")
	b := browser(t)
	f := e.consent(b, e.authorizeURL(c, nil))
	f.Set("action", "approve")
	resp := do(t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(t, 303, resp.StatusCode)
	resp = do(t, b, "GET", resp.Header.Get("Location"), nil, nil)
	resp = do(t, b, "GET", resp.Header.Get("Location"), nil, nil)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	desc := loc.Query().Get("error_description")
	assert.Equal(t, "server_error", loc.Query().Get("error"))
	assert.Contains(t, desc, "client_secret_basic or client_secret_post")
	assert.Contains(t, desc, "OAUTH_TOKEN_ENDPOINT_AUTH_METHOD")
	assert.NotContains(t, desc, "up-secret", "never the secret")
	assert.Contains(t, logs.String(), "TokenEndpointAuthMethod")
	assert.NotContains(t, logs.String(), "up-secret")
}
