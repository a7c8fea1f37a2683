package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/pkg/oidc"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
	"github.com/mcpchain/mcp/tokenexchange"
)

const (
	agentID        = "agent" // the MCP client at the IdP
	agentSecret    = "agent-secret-at-the-idp"
	agentAtMCP     = "agent-at-mcp" // the same client at the MCP server's authorization server
	agentMCPSecret = "agent-secret-at-the-mcp-server"
	jagType        = "urn:ietf:params:oauth:token-type:id-jag"
	jwtBearer      = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

func agentClient(audiences ...string) *idpClient {
	return &idpClient{id: agentID, secret: agentSecret, redirectURIs: []string{"http://127.0.0.1:9/cb"}, audiences: audiences,
		grants: []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken, oidc.GrantTypeTokenExchange}}
}

// lateServer is an httptest server whose handler is set once its URL is
// known (the MCP server's configuration names its own URL).
func lateServer(t *testing.T) (*httptest.Server, func(http.Handler)) {
	var h atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	return ts, func(handler http.Handler) { h.Store(&handler) }
}

// whoamiServer serves an MCP server with auth and a whoami tool that
// returns the caller's subject and client.
func whoamiServer(t *testing.T, auth mcp.AuthProvider, set func(http.Handler)) {
	srv := mcp.NewServer(mcp.Options{Name: "enterprise", Version: "1.0.0", Auth: auth, Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		if s, ok := providers.SessionOf(c.Session); ok {
			return s.UserID + " " + s.ClientID, nil
		}
		if s, ok := c.Session.(*resourceserver.Session); ok {
			return s.Subject() + " " + s.ClientID, nil
		}
		return "", fmt.Errorf("no session")
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	set(mcphttp.NewMux(h, nil))
}

// jagFrom asks idp, as the agent with the user's ID token, for an ID-JAG
// for audience and resource (the raw token exchange the client makes).
func jagFrom(t *testing.T, idp *zitadelIdP, idToken, audience, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "requested_token_type": {jagType},
		"subject_token": {idToken}, "subject_token_type": {"urn:ietf:params:oauth:token-type:id_token"},
		"audience": {audience}, "resource": {resource}}
	req, err := http.NewRequest(http.MethodPost, idp.URL+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(agentID, agentSecret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, 200, resp.StatusCode, out)
	require.Equal(t, jagType, out["issued_token_type"])
	return out["access_token"].(string)
}

// presentJAG posts an ID-JAG to the MCP server's token endpoint as the
// agent and returns the status and answer.
func presentJAG(t *testing.T, base, assertion string) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {jwtBearer}, "assertion": {assertion}}
	req, err := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(agentAtMCP, agentMCPSecret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// TestEnterpriseIDJAGLogin: enterprise-managed authorization (SEP-990)
// against a real OpenID Provider (zitadel/oidc): the user signs in to the
// MCP client at the IdP (authorization code, PKCE, ID token); package
// client/oauth exchanges the ID token at the IdP for an ID-JAG and
// presents it to the MCP server, whose authorization server is the OAuth
// proxy or resource-server mode's own; the tool sees the IdP's user. Then
// assertions the IdP really issued are refused for the wrong issuer (a
// second, untrusted IdP), the wrong audience, a replay and an expired
// one; and after the IdP rotates its signing key, a new assertion is
// accepted.
func TestEnterpriseIDJAGLogin(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"proxy", "resource server"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			idp := newZitadelIdP(t, agentClient())
			stranger := newZitadelIdP(t, agentClient())
			ts, set := lateServer(t)
			trusted := []resourceserver.EnterpriseIdP{{Issuer: idp.URL}}
			clients := []resourceserver.AssertionClient{{ID: agentAtMCP, Secret: agentMCPSecret}}
			var auth mcp.AuthProvider
			userPrefix := ""
			if kind == "proxy" {
				p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{Config: providers.Config{
					BaseURL: ts.URL, ClientID: "upstream", ClientSecret: "upstream-secret", Logger: slog.New(slog.DiscardHandler),
					EnterpriseAuth: &providers.EnterpriseAuth{IdPs: trusted, Clients: clients}},
					AuthorizationEndpoint: idp.URL + "/authorize", TokenEndpoint: idp.URL + "/oauth/token"})
				require.NoError(t, err)
				t.Cleanup(func() { _ = p.Close() })
				auth, userPrefix = p, "idjag:" // the proxy's namespace of ID-JAG users
			} else {
				v, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: idp.URL, Resource: ts.URL + "/mcp",
					EnterpriseAuth: &resourceserver.EnterpriseAuth{IdPs: trusted, Clients: clients, Logger: slog.New(slog.DiscardHandler)}})
				require.NoError(t, err)
				auth, userPrefix = v, ts.URL+"|" // the local authorization server issued the token
			}
			whoamiServer(t, auth, set)

			idToken := idp.signIn(t, agentClient())["id_token"].(string)
			h := oauth.New(oauth.Config{ClientID: agentAtMCP, ClientSecret: agentMCPSecret,
				EnterpriseIdP: &oauth.EnterpriseIdP{Issuer: idp.URL, ClientID: agentID, ClientSecret: agentSecret,
					IDToken: func(context.Context) (string, error) { return idToken, nil }}})
			ctx := withTimeout(t, 30*time.Second)
			c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", &client.HTTPOptions{Auth: h}), nil)
			require.NoError(t, err)
			defer c.Close()
			res, err := c.CallTool(ctx, "whoami", nil, nil)
			require.NoError(t, err)
			assert.Equal(t, userPrefix+idp.URL+"|"+idpUserID+" "+agentAtMCP, res.Text())

			resource := ts.URL + "/mcp"
			t.Run("wrong issuer", func(t *testing.T) {
				strangerID := stranger.signIn(t, agentClient())["id_token"].(string)
				status, body := presentJAG(t, ts.URL, jagFrom(t, stranger, strangerID, ts.URL, resource))
				assert.Equal(t, 400, status)
				assert.Equal(t, "invalid_grant", body["error"])
				assert.Contains(t, body["error_description"], "not a trusted identity provider")
			})
			t.Run("wrong audience", func(t *testing.T) {
				status, body := presentJAG(t, ts.URL, jagFrom(t, idp, idToken, "https://other-as.example", resource))
				assert.Equal(t, 400, status)
				assert.Contains(t, body["error_description"], "not for this authorization server")
			})
			t.Run("replayed assertion", func(t *testing.T) {
				jag := jagFrom(t, idp, idToken, ts.URL, resource)
				status, body := presentJAG(t, ts.URL, jag)
				require.Equal(t, 200, status, body)
				status, body = presentJAG(t, ts.URL, jag)
				assert.Equal(t, 400, status)
				assert.Contains(t, body["error_description"], "already used")
			})
			t.Run("expired", func(t *testing.T) {
				idp.jagLifetime.Store(int64(-time.Minute))
				defer idp.jagLifetime.Store(int64(5 * time.Minute))
				status, body := presentJAG(t, ts.URL, jagFrom(t, idp, idToken, ts.URL, resource))
				assert.Equal(t, 400, status)
				assert.Contains(t, body["error_description"], "expired")
			})
			t.Run("key rotation", func(t *testing.T) {
				idp.rotate(t)
				jag := jagFrom(t, idp, idToken, ts.URL, resource)
				hdr, err := jose.ParseSignedCompact(jag, []jose.SignatureAlgorithm{jose.RS256})
				require.NoError(t, err)
				require.NotEqual(t, "k1", hdr.Signatures[0].Header.KeyID)
				status, body := presentJAG(t, ts.URL, jag)
				assert.Equal(t, 200, status, body)
			})
		})
	}
}

// TestTokenExchangeOnBehalfOf: a tool calls a downstream API as the
// calling user through package tokenexchange, against a real OpenID
// Provider's token exchange (zitadel/oidc, RFC 8693): the user signs in
// to the agent, the agent exchanges the user's token for one for the MCP
// server (resource-server mode verifies it), the tool's client exchanges
// that one, as the MCP server's client, for one for the downstream API
// (which verifies it too) and reuses it for the next call. Refused: a
// subject token of another issuer, an expired one, an audience the IdP's
// policy does not allow the server, and, at the downstream API, a token
// exchanged for another audience.
func TestTokenExchangeOnBehalfOf(t *testing.T) {
	t.Parallel()
	down, setDown := lateServer(t)
	down2, setDown2 := lateServer(t)
	mcpTS, setMCP := lateServer(t)
	mcpResource := mcpTS.URL + "/mcp"
	server := &idpClient{id: "mcp-server", secret: "mcp-server-secret", resource: mcpResource,
		audiences: []string{down.URL, down2.URL}, grants: []oidc.GrantType{oidc.GrantTypeTokenExchange}}
	idp := newZitadelIdP(t, agentClient(mcpResource), server)
	other := newZitadelIdP(t, agentClient(mcpResource), server)

	// The downstream APIs: resource servers of the IdP for their own URL.
	for _, d := range []struct {
		ts  *httptest.Server
		set func(http.Handler)
	}{{down, setDown}, {down2, setDown2}} {
		v, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: idp.URL, Resource: d.ts.URL})
		require.NoError(t, err)
		d.set(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s, err := v.VerifyRequest(r)
			if err != nil {
				var ae *mcp.AuthError
				if assert.ErrorAs(t, err, &ae) {
					http.Error(w, ae.Description, http.StatusUnauthorized)
				}
				return
			}
			fmt.Fprintf(w, "hello %s via %s", s.(*resourceserver.Session).Sub, s.(*resourceserver.Session).ClientID)
		}))
	}

	x, err := tokenexchange.New(tokenexchange.Config{TokenURL: idp.URL + "/oauth/token", ClientID: server.id,
		ClientSecret: server.secret, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	v, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: idp.URL, Resource: mcpResource})
	require.NoError(t, err)
	srv := mcp.NewServer(mcp.Options{Name: "obo", Version: "1.0.0", Auth: v, Logger: slog.New(slog.DiscardHandler)})
	type args struct {
		Audience string `json:"audience"`
		URL      string `json:"url"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "profile"}, func(ctx context.Context, c *mcp.Context, a args) (string, error) {
		hc, err := x.Client(c, a.Audience) // the one line a tool writes
		if err != nil {
			return "", err
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b))), nil
	})
	mh := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = mh.Close() })
	setMCP(mcphttp.NewMux(mh, nil))

	userToken := idp.signIn(t, agentClient(mcpResource))["access_token"].(string)
	status, tok := idp.exchange(t, agentClient(mcpResource), userToken, mcpResource)
	require.Equal(t, 200, status, tok)
	ctx := withTimeout(t, 30*time.Second)
	c, err := client.Connect(ctx, client.HTTP(mcpResource, &client.HTTPOptions{
		Header: http.Header{"Authorization": {"Bearer " + tok["access_token"].(string)}}}), nil)
	require.NoError(t, err)
	defer c.Close()
	call := func(audience, target string) (string, error) {
		res, err := c.CallTool(ctx, "profile", args{Audience: audience, URL: target}, nil)
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("%s", res.Text())
		}
		return res.Text(), nil
	}
	for range 2 {
		got, err := call(down.URL, down.URL)
		require.NoError(t, err)
		assert.Equal(t, "200 hello "+idpUserID+" via "+server.id, got)
	}

	t.Run("token for another audience", func(t *testing.T) {
		got, err := call(down2.URL, down.URL)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(got, "401 "), got)
		assert.Contains(t, got, "not for this resource")
	})
	t.Run("audience the IdP does not allow", func(t *testing.T) {
		_, err := call("https://payroll.example", down.URL)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "invalid_target")
	})
	exchangeAs := func(token string) error {
		ts, err := x.TokenSource(&mcp.Context{Session: &subjectOnly{token}}, down.URL)
		require.NoError(t, err)
		_, err = ts.Token()
		return err
	}
	t.Run("subject token of another issuer", func(t *testing.T) {
		foreign := other.signIn(t, agentClient(mcpResource))["access_token"].(string)
		_, ft := other.exchange(t, agentClient(mcpResource), foreign, mcpResource)
		err := exchangeAs(ft["access_token"].(string))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "subject_token is invalid", "the IdP's refusal")
		assert.NotContains(t, err.Error(), ft["access_token"].(string), "never the token")
	})
	t.Run("expired subject token", func(t *testing.T) {
		key, err := idp.store.SigningKey(context.Background())
		require.NoError(t, err)
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key.Key()}, (&jose.SignerOptions{}).WithHeader("kid", key.ID()))
		require.NoError(t, err)
		past := time.Now().Add(-time.Hour)
		expired, err := jwt.Signed(s).Claims(map[string]any{"iss": idp.URL, "sub": idpUserID, "aud": []string{mcpResource},
			"exp": past.Add(5 * time.Minute).Unix(), "iat": past.Unix(), "jti": "old", "client_id": agentID}).Serialize()
		require.NoError(t, err)
		err = exchangeAs(expired)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "subject_token is invalid", "the IdP's refusal")
	})
}

// subjectOnly is auth data holding a token at the IdP and nothing else.
type subjectOnly struct{ token string }

func (s *subjectOnly) SubjectToken() (string, string) {
	return s.token, "urn:ietf:params:oauth:token-type:access_token"
}
