package multiauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/devidp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/multiauth"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
)

var quiet = slog.New(slog.DiscardHandler)

// testIdP is an identity provider of the test: its discovery document,
// a JWKS of one RSA key, and an RFC 7662 introspection endpoint that
// knows the opaque tokens in active. down makes its keys and
// introspection answer 500; introspections counts the calls.
type testIdP struct {
	ts             *httptest.Server
	key            *rsa.PrivateKey
	signer         jose.Signer
	down           atomic.Bool
	introspections atomic.Int64
	mu             sync.Mutex
	active         map[string]map[string]any
}

func newTestIdP(t *testing.T) *testIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	require.NoError(t, err)
	idp := &testIdP{key: key, signer: signer, active: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": idp.ts.URL, "jwks_uri": idp.ts.URL + "/jwks",
			"introspection_endpoint": idp.ts.URL + "/introspect"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		if idp.down.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		idp.introspections.Add(1)
		if idp.down.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		idp.mu.Lock()
		c, ok := idp.active[r.PostFormValue("token")]
		idp.mu.Unlock()
		if !ok {
			writeJSON(w, map[string]any{"active": false})
			return
		}
		writeJSON(w, c)
	})
	idp.ts = httptest.NewServer(mux)
	t.Cleanup(idp.ts.Close)
	return idp
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (idp *testIdP) issuer() string { return idp.ts.URL }

// jwt signs claims with the IdP's key; claims left out get the defaults
// of a good token for resource (iss, sub, aud, exp, iat).
func (idp *testIdP) jwt(t *testing.T, resource string, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"iss": idp.issuer(), "sub": "alice", "aud": resource, "iat": time.Now().Unix(),
		"exp": time.Now().Add(time.Hour).Unix(), "scope": "mcp:use"}
	for k, v := range claims {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	tok, err := jwt.Signed(idp.signer).Claims(c).Serialize()
	require.NoError(t, err)
	return tok
}

// opaque registers an opaque token the introspection endpoint calls
// active, with the claims of a good token for resource.
func (idp *testIdP) opaque(resource, sub string) string {
	tok := "op_" + rand.Text()
	idp.mu.Lock()
	idp.active[tok] = map[string]any{"active": true, "iss": idp.issuer(), "sub": sub, "aud": resource,
		"exp": time.Now().Add(time.Hour).Unix(), "scope": "mcp:use", "token_type": "Bearer"}
	idp.mu.Unlock()
	return tok
}

// stack is one MCP server taking four kinds of credentials: the tokens
// of its OAuth proxy (in front of devidp), the JWTs of idp, API keys,
// and idp's opaque tokens by introspection, in that order.
type stack struct {
	base     string // the MCP server's origin
	idp      *testIdP
	auth     *multiauth.Auth
	apiKey   string
	upstream *devidp.Provider
}

func (s *stack) resource() string { return s.base + "/mcp" }

func newStack(t *testing.T) *stack {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	s := &stack{base: "http://" + ts.Listener.Addr().String(), idp: newTestIdP(t)}
	up, err := devidp.Start(devidp.Config{RedirectURIs: []string{s.base + "/oauth/callback"}, AutoApprove: true, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = up.Close() })
	s.upstream = up
	proxy, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{BaseURL: s.base, ClientID: up.ClientID(), ClientSecret: up.ClientSecret(),
			Scopes: []string{"openid", "profile", "email"}, DisableConsent: true,
			AllowedRedirectURIPatterns: []string{"http://127.0.0.1:*"}, Logger: quiet},
		AuthorizationEndpoint: up.Issuer() + "/authorize", TokenEndpoint: up.Issuer() + "/token", Issuer: up.Issuer(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })
	ctx := context.Background()
	jwtV, err := resourceserver.New(ctx, resourceserver.Config{Issuer: s.idp.issuer(), Resource: s.resource(),
		ScopesSupported: []string{"mcp:use", "mcp:admin"}, RoleClaims: []string{"realm_access.roles"}})
	require.NoError(t, err)
	introV, err := resourceserver.New(ctx, resourceserver.Config{Issuer: s.idp.issuer(), Resource: s.resource(),
		Introspection: &resourceserver.IntrospectionConfig{ClientID: "rs", ClientSecret: "secret"}})
	require.NoError(t, err)
	key, hash, err := multiauth.NewAPIKey("mcpk_")
	require.NoError(t, err)
	s.apiKey = key
	keys, err := multiauth.NewAPIKeys("mcpk_", multiauth.APIKey{Hash: hash, Name: "billing", Scopes: []string{"mcp:use"}, Roles: []string{"service"}})
	require.NoError(t, err)
	s.auth, err = multiauth.New(proxy, jwtV, keys, introV)
	require.NoError(t, err)

	srv := mcp.NewServer(mcp.Options{Name: "multi", Version: "1.0.0", Auth: s.auth, Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		sub, _ := c.Session.(mcp.Subject)
		if sub == nil {
			return "", fmt.Errorf("no subject")
		}
		return sub.Subject(), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "admin", CanAccess: access.Roles("admin")},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "admin", nil })
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ts.Config.Handler = mcphttp.NewMux(h, nil)
	ts.Start()
	t.Cleanup(ts.Close)
	return s
}

// login signs in through the proxy with package client/oauth (devidp
// signs the user in with no page; consent is off) and returns the
// proxy's access token.
func (s *stack) login(t *testing.T) string {
	t.Helper()
	loop, err := oauth.ListenLoopback("/callback")
	require.NoError(t, err)
	defer loop.Close()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	h := oauth.New(oauth.Config{ClientName: "multiauth-test", RedirectURL: loop.RedirectURL(),
		Authorize: loop.Authorize(func(authURL string) error {
			go func() {
				if resp, err := browser.Get(authURL); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			return nil
		}, 10*time.Second)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.HTTP(s.resource(), &client.HTTPOptions{Auth: h}), &client.Options{Logger: quiet})
	require.NoError(t, err)
	res, err := c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "generic:"+devidp.DefaultUser().Subject, res.Text())
	require.NoError(t, c.Close())
	tok, err := h.Token(ctx, s.resource())
	require.NoError(t, err)
	return tok.AccessToken
}

// post sends an initialize with the Authorization header authz (none
// when empty) and returns the status, WWW-Authenticate and body.
func (s *stack) post(t *testing.T, authz string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.resource(), strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// call connects with the Authorization header authz and calls tool.
func (s *stack) call(t *testing.T, authz, tool string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.HTTP(s.resource(), &client.HTTPOptions{Header: http.Header{"Authorization": {authz}}}),
		&client.Options{Logger: quiet})
	if err != nil {
		return "", err
	}
	defer c.Close()
	res, err := c.CallTool(ctx, tool, nil, nil)
	if err != nil {
		return "", err
	}
	return res.Text(), nil
}
