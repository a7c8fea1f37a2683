package providers

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An error found at /authorize before the user has
// interacted must not redirect to a URI anyone could register (RFC 9700
// §4.11.2); only to loopback URIs and to URIs the operator listed with an
// exact host.
func TestThreatAuthorizeErrorsDoNotRedirectToStrangers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *OAuthProviderConfig) {
		c.AllowedRedirectURIPatterns = []string{"http://localhost:*", "https://app.example/cb", "https://*"}
	})
	phish := e.register("none", "https://evil.example/phish")
	listed := e.register("none", "https://app.example/cb")
	local := e.register("none", "http://127.0.0.1:9999/cb")
	bad := map[string]url.Values{
		"response_type":  {"response_type": {"token"}},
		"no challenge":   {"code_challenge": {""}},
		"plain":          {"code_challenge_method": {"plain"}},
		"resource":       {"resource": {"https://other.example/mcp"}},
		"scope":          {"scope": {"admin"}},
		"state too long": {"state": {strings.Repeat("s", maxState+1)}},
	}
	for name, extra := range bad {
		resp := do(t, browser(t), "GET", e.authorizeURL(phish, extra), nil, nil)
		body := readBody(t, resp)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, name)
		assert.Empty(t, resp.Header.Get("Location"), "%s: no redirect to a URI anyone may register", name)
		assert.Contains(t, body, "evil.example", "%s: the page says where the request came from", name)
		for _, c := range []regd{listed, local} {
			resp := do(t, browser(t), "GET", e.authorizeURL(c, extra), nil, nil)
			require.Equal(t, http.StatusFound, resp.StatusCode, "%s: %s", name, c.Redirect)
			loc, err := url.Parse(resp.Header.Get("Location"))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(loc.String(), c.Redirect), "%s: %s", name, loc)
			assert.NotEmpty(t, loc.Query().Get("error"), name)
		}
	}
	// A good request from the same client still goes to consent.
	resp := do(t, browser(t), "GET", e.authorizeURL(phish, nil), nil, nil)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.True(t, strings.HasPrefix(resp.Header.Get("Location"), ConsentPath))
}

// Consent may be turned off only when every redirect
// pattern is loopback http or an exact https host.
func TestThreatDisableConsentNeedsExactPatterns(t *testing.T) {
	t.Parallel()
	build := func(patterns ...string) error {
		p, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: "https://mcp.example", ClientID: "x", DisableConsent: true,
			AllowedRedirectURIPatterns: patterns},
			AuthorizationEndpoint: "https://idp/a", TokenEndpoint: "https://idp/t"})
		if err == nil {
			_ = p.Close()
		}
		return err
	}
	for _, ok := range [][]string{
		{"http://localhost:*"},
		{"http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"},
		{"https://app.example/cb", "https://app.example:8443/cb", "https://claude.ai/api/mcp/auth_callback"},
	} {
		assert.NoError(t, build(ok...), "%v", ok)
	}
	for _, bad := range []string{"https://*", "http://*", "https://*.ngrok-free.app", "cursor://*", "cursor://callback",
		"http://app.example/cb", "http://*.localhost:*"} {
		err := build("http://localhost:*", bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), `"`+bad+`"`, "the error names the pattern")
	}
}

// TestDefaultRedirectURIPatternsIsACopy: a program that changes the
// slice it got changes no later proxy's defaults.
func TestDefaultRedirectURIPatternsIsACopy(t *testing.T) {
	t.Parallel()
	got := DefaultRedirectURIPatterns()
	require.Equal(t, []string{"http://localhost:*", "https://*"}, got)
	got[0] = "http://*"
	assert.Equal(t, []string{"http://localhost:*", "https://*"}, DefaultRedirectURIPatterns())
}
