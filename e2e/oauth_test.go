package e2e

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOAuthTypeScriptClient: for each provider, examples/oauth in front of
// a real identity provider library (mockoidc, see oauth_idp_test.go), and
// the official TypeScript SDK's OAuth client (node/oauth-client.mjs) doing
// the whole login with no human: discovery from the 401, dynamic
// registration, PKCE, the consent page approved like a browser would,
// the provider's login, the code exchange, then tools/call whoami showing
// the provider session; then a refresh (rotated), and the spent refresh
// token replayed, which must revoke the login.

// tsOAuthOut is what oauth-client.mjs prints.
type tsOAuthOut struct {
	SDKVersion   string `json:"sdkVersion"`
	AuthMethod   string `json:"authMethod"`
	Watchdog     string `json:"watchdog"`
	Fatal        *tsErr `json:"fatal"`
	Registration struct {
		ClientID     string   `json:"client_id"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		HasSecret    bool     `json:"hasSecret"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
	} `json:"registration"`
	AuthorizationRequests []map[string]string `json:"authorizationRequests"`
	Browser               []struct {
		Method string `json:"method"`
		URL    string `json:"url"`
		Status int    `json:"status"`
	} `json:"browser"`
	Consent *struct {
		URL               string   `json:"url"`
		Fields            []string `json:"fields"`
		Method            string   `json:"method"`
		Cookies           []string `json:"cookies"`
		ShowsClientName   bool     `json:"showsClientName"`
		ShowsRedirectHost bool     `json:"showsRedirectHost"`
		ClientHost        string   `json:"clientHost"`
	} `json:"consent"`
	Callback     map[string]string `json:"callback"`
	TokenHistory []struct {
		TokenType         string  `json:"token_type"`
		ExpiresIn         float64 `json:"expires_in"`
		Scope             string  `json:"scope"`
		HasRefreshToken   bool    `json:"hasRefreshToken"`
		RefreshTokenIsJWT bool    `json:"refreshTokenIsJWT"`
		AccessToken       *struct {
			Header map[string]any `json:"header"`
			Claims map[string]any `json:"claims"`
		} `json:"accessToken"`
	} `json:"tokenHistory"`
	Steps map[string]json.RawMessage `json:"steps"`
}

// step decodes one recorded step into v and returns its error part.
func (o *tsOAuthOut) step(t *testing.T, name string, v any) tsErr {
	t.Helper()
	raw, ok := o.Steps[name]
	require.True(t, ok, "step %s did not run", name)
	var e tsErr
	require.NoError(t, json.Unmarshal(raw, &e))
	if v != nil && !e.failed() {
		require.NoError(t, json.Unmarshal(raw, v), "step %s: %s", name, raw)
	}
	return e
}

type whoamiStep struct {
	IsError           bool `json:"isError"`
	StructuredContent struct {
		Provider string          `json:"provider"`
		Session  map[string]any  `json:"session"`
		Tokens   map[string]bool `json:"upstreamTokens"`
	} `json:"structuredContent"`
	Text string `json:"text"`
}

// runOAuthClient runs oauth-client.mjs against mcpURL.
func runOAuthClient(t *testing.T, mcpURL, authMethod string) *tsOAuthOut {
	t.Helper()
	run := runNodeEnv(t, 70*time.Second, []string{"OAUTH_CLIENT_AUTH=" + authMethod}, "oauth-client.mjs", mcpURL)
	t.Logf("oauth-client.mjs: exit %d after %v", run.exitCode, run.elapsed.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("oauth-client.mjs stderr:\n%s\nstdout:\n%s", run.stderr, run.stdout)
		}
	})
	var out tsOAuthOut
	require.NoError(t, json.Unmarshal(run.stdout, &out), "oauth-client.mjs must print one JSON object")
	require.Empty(t, out.Watchdog, "watchdog fired")
	require.Nil(t, out.Fatal, "oauth-client.mjs failed")
	require.Equal(t, 0, run.exitCode)
	return &out
}

// oauthCase is one provider of the e2e login.
type oauthCase struct {
	kind       string
	clientAuth string // how the MCP client authenticates at our token endpoint
	upstream   string // how our server authenticates at the provider's (basic or post)
	sub        string // the session's user id
	field      string // the provider session's own field, and its value
	value      string
	oidc       bool // the provider's ID token is verified (nonce included)
}

var oauthCases = []oauthCase{
	{kind: "generic", clientAuth: "none", upstream: "basic", sub: "generic:1234567890", oidc: true},
	{kind: "consumer", clientAuth: "client_secret_post", upstream: "post", sub: "consumer:1234567890",
		field: "email", value: "jane.doe@example.com", oidc: true},
	{kind: "codehost", clientAuth: "client_secret_basic", upstream: "post", sub: "codehost:" + strconv.Itoa(codeHostID),
		field: "username", value: codeHostUser},
	{kind: "enterprise", clientAuth: "none", upstream: "post", sub: "enterprise:" + entraTenant + ":" + entraOID,
		field: "upn", value: entraUPN, oidc: true},
}

func TestOAuthTypeScriptClient(t *testing.T) {
	oauthBinary(t)
	for _, tc := range oauthCases {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, tc.kind)
			port := freePort(t)
			base := "http://127.0.0.1:" + strconv.Itoa(port)
			env := up.env()
			env["MCP_BASE_URL"] = base
			startOAuthServer(t, port, env)
			out := runOAuthClient(t, base+"/mcp", tc.clientAuth)

			// Before any token: 401, then discovery and registration.
			first := out.step(t, "firstConnect", nil)
			assert.True(t, first.failed(), "connect without a token must fail (401)")
			assert.Equal(t, "UnauthorizedError", first.Name, first.Error)
			assert.Equal(t, tc.clientAuth, out.Registration.AuthMethod)
			assert.Equal(t, tc.clientAuth != "none", out.Registration.HasSecret, "a secret for confidential clients only")
			require.NotEmpty(t, out.AuthorizationRequests)
			ar := out.AuthorizationRequests[0]
			assert.Equal(t, base+"/oauth/authorize", ar["endpoint"])
			assert.Equal(t, "S256", ar["code_challenge_method"])
			assert.Equal(t, base+"/mcp", ar["resource"], "RFC 8707 resource from the protected resource metadata")
			assert.Equal(t, out.Registration.ClientID, ar["client_id"])

			// The browser: our consent page (approved), the provider, our callback, the client.
			require.NotNil(t, out.Consent, "the login passed through a consent page")
			assert.Equal(t, base+"/oauth/consent", out.Consent.URL)
			assert.Equal(t, "post", out.Consent.Method)
			assert.NotEmpty(t, out.Consent.Cookies, "the consent page sets its CSRF cookie")
			assert.True(t, out.Consent.ShowsClientName, "the consent page names the client")
			assert.True(t, out.Consent.ShowsRedirectHost, "the consent page shows the redirect host")
			var hosts []string
			for _, s := range out.Browser {
				hosts = append(hosts, s.Method+" "+s.URL)
			}
			upstreamAuth := up.m.AuthorizationEndpoint()
			if up.front != nil {
				upstreamAuth = up.front.URL
			}
			assert.True(t, containsPrefix(hosts, "GET "+upstreamAuth), "the browser went to the provider: %v", hosts)
			assert.Contains(t, hosts, "GET "+base+"/oauth/callback")
			require.NotEmpty(t, out.Browser)
			assert.Equal(t, 200, out.Browser[len(out.Browser)-1].Status, "the client's redirect URI got the code")
			assert.NotEmpty(t, out.Callback["code"])
			assert.NotEmpty(t, ar["state"])
			assert.Equal(t, ar["state"], out.Callback["state"], "state comes back")
			assert.Equal(t, base, out.Callback["iss"], "RFC 9207 iss in the authorization response")

			// Token swap: our own JWT for the MCP resource, an opaque refresh token.
			require.False(t, out.step(t, "finishAuth", nil).failed(), "%s", out.Steps["finishAuth"])
			require.NotEmpty(t, out.TokenHistory)
			tok := out.TokenHistory[0]
			assert.Equal(t, "Bearer", tok.TokenType)
			assert.True(t, tok.HasRefreshToken)
			assert.False(t, tok.RefreshTokenIsJWT, "refresh tokens are opaque")
			require.NotNil(t, tok.AccessToken, "the access token is a JWT")
			assert.Equal(t, "at+jwt", tok.AccessToken.Header["typ"])
			assert.Equal(t, "HS256", tok.AccessToken.Header["alg"])
			c := tok.AccessToken.Claims
			assert.Equal(t, base, c["iss"])
			assert.Contains(t, []any{base + "/mcp", []any{base + "/mcp"}}, c["aud"], "aud is the MCP resource")
			assert.Equal(t, out.Registration.ClientID, c["client_id"])
			assert.Equal(t, tc.sub, c["sub"])
			assert.NotEmpty(t, c["jti"])

			// whoami: the provider session, no token in it.
			require.False(t, out.step(t, "connect", nil).failed(), "%s", out.Steps["connect"])
			var tools struct{ Names []string }
			require.False(t, out.step(t, "tools", &tools).failed())
			assert.Subset(t, tools.Names, everythingTools)
			var who whoamiStep
			require.False(t, out.step(t, "whoami", &who).failed(), "%s", out.Steps["whoami"])
			require.False(t, who.IsError, who.Text)
			s := who.StructuredContent
			assert.Equal(t, tc.kind, s.Provider)
			assert.Equal(t, tc.sub, s.Session["sub"])
			assert.Equal(t, out.Registration.ClientID, s.Session["clientId"])
			assert.NotEmpty(t, s.Session["scopes"])
			if tc.field != "" {
				assert.Equal(t, tc.value, s.Session[tc.field], "the provider's own session field")
			}
			assert.True(t, s.Tokens["accessToken"], "the server holds the upstream access token")
			raw, _ := json.Marshal(s.Session)
			assert.NotContains(t, string(raw), "access_token")
			claims, _ := s.Session["claims"].(map[string]any)
			nonces := up.seen(&up.nonces)
			require.Len(t, nonces, 1, "one login at the provider")
			if tc.oidc {
				assert.True(t, s.Tokens["idToken"])
				assert.NotEmpty(t, nonces[0], "a nonce is sent upstream")
				assert.Equal(t, nonces[0], claims["nonce"], "the verified ID token carries this login's nonce")
			}
			for _, m := range up.seen(&up.tokenAuth) {
				assert.Equal(t, tc.upstream, m, "how our server authenticates at the provider")
			}
			switch tc.kind {
			case "codehost":
				assert.Equal(t, "octocat@example.com", claims["email"], "the primary verified address from /user/emails")
				up.recMu.Lock()
				for _, h := range up.apiHeaders {
					assert.Equal(t, "2022-11-28", h.Get("X-Github-Api-Version"))
				}
				up.recMu.Unlock()
			case "enterprise":
				assert.Equal(t, entraTenant, claims["tid"])
				assert.Equal(t, up.front.URL+"/"+entraTenant+"/v2.0", claims["iss"], "the issuer of the user's own tenant")
				for _, ten := range up.seen(&up.tenants) {
					assert.Equal(t, "common", ten)
				}
			}

			// Refresh: both tokens rotate, the new access token works.
			var ref struct {
				Result              string `json:"result"`
				AccessTokenChanged  bool   `json:"accessTokenChanged"`
				RefreshTokenChanged bool   `json:"refreshTokenChanged"`
			}
			require.False(t, out.step(t, "refresh", &ref).failed(), "%s", out.Steps["refresh"])
			assert.Equal(t, "AUTHORIZED", ref.Result)
			assert.True(t, ref.AccessTokenChanged)
			assert.True(t, ref.RefreshTokenChanged, "refresh tokens rotate")
			var who2 whoamiStep
			require.False(t, out.step(t, "whoamiAfterRefresh", &who2).failed(), "%s", out.Steps["whoamiAfterRefresh"])
			assert.False(t, who2.IsError, who2.Text)
			assert.Equal(t, tc.sub, who2.StructuredContent.Session["sub"])

			// The spent refresh token: refused, and the login is revoked.
			reuse := out.step(t, "reuseOldRefreshToken", nil)
			assert.True(t, reuse.failed(), "a spent refresh token must be refused: %s", out.Steps["reuseOldRefreshToken"])
			assert.Equal(t, "InvalidGrantError", reuse.Name, reuse.Error)
			after := out.step(t, "whoamiAfterReuse", nil)
			assert.True(t, after.failed(), "after a refresh token reuse every token of the login is dead: %s", out.Steps["whoamiAfterReuse"])
			assert.Len(t, out.AuthorizationRequests, 2, "the client has to log in again")
		})
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestOAuthIDTokenNonce: the consumer and enterprise providers verify the
// provider's ID token with go-oidc, nonce included. When the provider
// answers with an ID token minted for another login's nonce (a replayed
// ID token), the login fails: the client gets error=server_error, no code.
func TestOAuthIDTokenNonce(t *testing.T) {
	oauthBinary(t)
	for _, kind := range []string{"consumer", "enterprise"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, kind)
			port := freePort(t)
			base := "http://127.0.0.1:" + strconv.Itoa(port)
			env := up.env()
			env["MCP_BASE_URL"] = base
			srv := startOAuthServer(t, port, env)
			redirect := "http://127.0.0.1:9/cb"
			clientID := registerPublicClient(t, base, redirect)

			up.tamperNonce.Store(true)
			b := newFormBrowser(t)
			authURL, _ := authorizeURL(base, clientID, redirect, "st-1")
			back := b.login(authURL, redirect)
			q := back.Query()
			assert.Equal(t, "server_error", q.Get("error"), "a wrong nonce must fail the login: %s", back)
			assert.Empty(t, q.Get("code"))
			assert.Equal(t, "st-1", q.Get("state"))
			assert.Equal(t, base, q.Get("iss"))
			// The server's stderr reaches the test through a pipe, after the
			// redirect the browser already followed: wait for the line.
			assert.Eventually(t, func() bool { return strings.Contains(srv.stderr.String(), "nonce does not match") },
				5*time.Second, 20*time.Millisecond, "the server says why the login failed")

			up.tamperNonce.Store(false)
			b = newFormBrowser(t)
			authURL, verifier := authorizeURL(base, clientID, redirect, "st-2")
			back = b.login(authURL, redirect)
			require.NotEmpty(t, back.Query().Get("code"), "with the right nonce the login completes: %s", back)
			tok := exchangeCode(t, base, base+"/mcp", clientID, redirect, back.Query().Get("code"), verifier)
			assert.NotEmpty(t, tok.AccessToken)
		})
	}
}

// authorizeURL builds an authorization request with a fresh PKCE pair and
// returns it with the verifier.
func authorizeURL(base, clientID, redirect, state string) (string, string) {
	verifier := strings.Repeat("v", 20) + strconv.FormatInt(time.Now().UnixNano(), 36) + strings.Repeat("w", 20)
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {s256(verifier)}, "code_challenge_method": {"S256"}, "state": {state}, "resource": {base + "/mcp"}}
	return base + "/oauth/authorize?" + q.Encode(), verifier
}
