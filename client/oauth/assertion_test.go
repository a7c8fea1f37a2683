package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/resourceserver"
)

const (
	idpClient    = "agent-at-idp"
	idpSecret    = "agent-idp-secret"
	asClient     = "agent-at-mcp"
	asSecret     = "agent-mcp-secret-0123"
	userIDToken  = "id-token-of-ada" // what the IdP's sign-in gave the client
	jwtBearerURN = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// enterpriseIdP is an enterprise IdP's token-exchange side (SEP-990 §4):
// for the ID token of its user, presented by idpClient, it issues an
// ID-JAG (typ oauth-id-jag+jwt, ES256) for the audience and resource
// asked for, naming asClient as the client.
type enterpriseIdP struct {
	*httptest.Server
	key      *ecdsa.PrivateKey
	mu       sync.Mutex
	requests []url.Values
	refuse   atomic.Bool // answer invalid_grant
}

func newEnterpriseIdP(t *testing.T) *enterpriseIdP {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	idp := &enterpriseIdP{key: k}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": idp.URL, "jwks_uri": idp.URL + "/jwks",
			"token_endpoint": idp.URL + "/token", "grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:token-exchange"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "e1", Algorithm: "ES256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f := r.PostForm
		idp.mu.Lock()
		idp.requests = append(idp.requests, f)
		idp.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		id, sec, _ := r.BasicAuth()
		if idp.refuse.Load() || id != idpClient || sec != idpSecret || f.Get("subject_token") != userIDToken ||
			f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
			f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" {
			w.WriteHeader(400)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": "policy refuses"})
			return
		}
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k},
			(&jose.SignerOptions{}).WithType("oauth-id-jag+jwt").WithHeader("kid", "e1"))
		require.NoError(t, err)
		jti := make([]byte, 12)
		_, _ = rand.Read(jti)
		now := time.Now()
		jag, err := jwt.Signed(s).Claims(map[string]any{"iss": idp.URL, "sub": "ada", "aud": f.Get("audience"),
			"resource": f.Get("resource"), "client_id": asClient, "jti": base64.RawURLEncoding.EncodeToString(jti),
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "scope": f.Get("scope")}).Serialize()
		require.NoError(t, err)
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": jag, "token_type": "N_A",
			"issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "expires_in": 300})
	})
	idp.Server = httptest.NewServer(mux)
	t.Cleanup(idp.Close)
	return idp
}

// enterpriseServer is an MCP server in resource-server mode whose own
// provider is the IdP (it lists it first) and which is the authorization
// server of enterprise-managed authorization for itself.
func enterpriseServer(t *testing.T, idp *enterpriseIdP) string {
	var h atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	v, err := resourceserver.New(context.Background(), resourceserver.Config{Issuer: idp.URL, Resource: ts.URL + "/mcp",
		ScopesSupported: []string{"notes:read"},
		EnterpriseAuth: &resourceserver.EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: idp.URL}},
			Clients: []resourceserver.AssertionClient{{ID: asClient, Secret: asSecret}}, Logger: slog.New(slog.DiscardHandler)}})
	require.NoError(t, err)
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Auth: v, Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		s, _ := c.Session.(*resourceserver.Session)
		return s.Sub + " " + s.ClientID, nil
	})
	mh := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = mh.Close() })
	var handler http.Handler = mcphttp.NewMux(mh, nil)
	h.Store(&handler)
	return ts.URL + "/mcp"
}

// TestEnterpriseManagedAuthorization: the client signs in to an MCP server
// with enterprise-managed authorization (SEP-990), with no browser: it
// picks the authorization server that offers the JWT-bearer grant, gets
// an ID-JAG for it from the enterprise IdP by token exchange (audience
// the authorization server, resource the MCP server, subject the user's
// ID token), and presents it with its client secret; the tool sees the
// IdP's user.
func TestEnterpriseManagedAuthorization(t *testing.T) {
	t.Parallel()
	idp := newEnterpriseIdP(t)
	endpoint := enterpriseServer(t, idp)
	u, _ := url.Parse(endpoint)
	h := oauth.New(oauth.Config{ClientID: asClient, ClientSecret: asSecret,
		EnterpriseIdP: &oauth.EnterpriseIdP{Issuer: idp.URL, ClientID: idpClient, ClientSecret: idpSecret,
			IDToken: func(context.Context) (string, error) { return userIDToken, nil }}})
	ctx := context.Background()
	c, err := client.Connect(ctx, client.HTTP(endpoint, &client.HTTPOptions{Auth: h}), nil)
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, idp.URL+"|ada "+asClient, res.Text())

	idp.mu.Lock()
	defer idp.mu.Unlock()
	require.Len(t, idp.requests, 1)
	f := idp.requests[0]
	assert.Equal(t, "urn:ietf:params:oauth:grant-type:token-exchange", f.Get("grant_type"))
	assert.Equal(t, u.Scheme+"://"+u.Host, f.Get("audience"), "the authorization server that offers the grant, not the first listed")
	assert.Equal(t, endpoint, f.Get("resource"))
	assert.Equal(t, "notes:read", f.Get("scope"))
	tok, err := h.Token(ctx, endpoint)
	require.NoError(t, err)
	assert.Empty(t, tok.RefreshToken)
}

// TestAssertionFailures: a refused token exchange, an ID token the
// program cannot give, an Assertion that fails, and an authorization
// server that refuses the assertion or the client are each an
// *oauth.AuthError naming the step, after one attempt: a JWT-bearer
// failure is not retried, nor another grant tried.
func TestAssertionFailures(t *testing.T) {
	t.Parallel()
	idp := newEnterpriseIdP(t)
	endpoint := enterpriseServer(t, idp)
	tests := []struct {
		name      string
		idp       *oauth.EnterpriseIdP // or
		assertion oauth.AssertionFunc
		idToken   error // IDToken's error
		secret    string
		step, msg string
	}{
		{name: "the IdP refuses the exchange", idp: &oauth.EnterpriseIdP{TokenURL: idp.URL + "/token", ClientID: idpClient, ClientSecret: "wrong"},
			secret: asSecret, step: "assertion", msg: "invalid_grant: policy refuses"},
		{name: "no ID token", idp: &oauth.EnterpriseIdP{TokenURL: idp.URL + "/token", ClientID: idpClient, ClientSecret: idpSecret},
			idToken: errors.New("the user is signed out"), secret: asSecret, step: "assertion", msg: "signed out"},
		{name: "an empty assertion", assertion: func(context.Context, oauth.AssertionRequest) (string, error) { return "", nil },
			secret: asSecret, step: "assertion", msg: "empty"},
		{name: "the server refuses the assertion", assertion: func(context.Context, oauth.AssertionRequest) (string, error) { return "not.a.jag", nil },
			secret: asSecret, step: "token", msg: "invalid_grant"},
		{name: "a wrong client secret at the server", idp: &oauth.EnterpriseIdP{TokenURL: idp.URL + "/token", ClientID: idpClient, ClientSecret: idpSecret},
			secret: "wrong-secret-0123456789", step: "token", msg: "invalid_client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			cfg := oauth.Config{ClientID: asClient, ClientSecret: tt.secret}
			if tt.idp != nil {
				e := *tt.idp
				e.IDToken = func(context.Context) (string, error) {
					calls.Add(1)
					return userIDToken, tt.idToken
				}
				cfg.EnterpriseIdP = &e
			} else {
				cfg.Assertion = func(ctx context.Context, r oauth.AssertionRequest) (string, error) {
					calls.Add(1)
					return tt.assertion(ctx, r)
				}
			}
			_, err := client.Connect(context.Background(), client.HTTP(endpoint, &client.HTTPOptions{Auth: oauth.New(cfg)}), nil)
			var ae *oauth.AuthError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tt.step, ae.Step)
			assert.ErrorContains(t, err, tt.msg)
			assert.NotContains(t, err.Error(), userIDToken, "never the ID token")
			assert.EqualValues(t, 1, calls.Load(), "one assertion, no retry")
		})
	}
}

// TestWorkloadAssertion: workload identity federation: the assertion is
// the workload's own JWT, presented with its client_id and no secret, and
// with no client_id when none is configured.
func TestWorkloadAssertion(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var forms []url.Values
	var asURL string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": asURL, "token_endpoint": asURL + "/token",
				"grant_types_supported": []string{jwtBearerURN}, "token_endpoint_auth_methods_supported": []string{"none"}})
		case "/token":
			_ = r.ParseForm()
			mu.Lock()
			forms = append(forms, r.PostForm)
			mu.Unlock()
			_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "wif-token", "token_type": "Bearer", "expires_in": 60})
		}
	}))
	t.Cleanup(as.Close)
	asURL = as.URL
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": "http://" + r.Host + "/mcp", "authorization_servers": []string{asURL}})
			return
		}
		if r.Header.Get("Authorization") != "Bearer wif-token" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(rs.Close)
	for _, id := range []string{"workload-7", ""} {
		h := oauth.New(oauth.Config{ClientID: id, Assertion: func(_ context.Context, r oauth.AssertionRequest) (string, error) {
			assert.Equal(t, asURL, r.Issuer)
			return "workload.jwt.sig", nil
		}})
		hc := &http.Client{Transport: h.Wrap(rs.URL+"/mcp", http.DefaultTransport)}
		resp, err := hc.Get(rs.URL + "/mcp")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, forms, 2)
	for i, want := range []string{"workload-7", ""} {
		assert.Equal(t, jwtBearerURN, forms[i].Get("grant_type"))
		assert.Equal(t, "workload.jwt.sig", forms[i].Get("assertion"))
		assert.Equal(t, rs.URL+"/mcp", forms[i].Get("resource"))
		assert.Equal(t, want, forms[i].Get("client_id"))
		assert.Equal(t, want != "", forms[i].Has("client_id"))
		assert.False(t, forms[i].Has("client_secret"))
	}
}

// TestEnterpriseIdPNeedsHTTPS: the user's ID token is never sent to an
// IdP token endpoint over plain http on another host than loopback
// (SEP-990 §6.3); the program is not even asked for it.
func TestEnterpriseIdPNeedsHTTPS(t *testing.T) {
	t.Parallel()
	idp := newEnterpriseIdP(t)
	endpoint := enterpriseServer(t, idp)
	var asked atomic.Bool
	h := oauth.New(oauth.Config{ClientID: asClient, ClientSecret: asSecret, EnterpriseIdP: &oauth.EnterpriseIdP{
		TokenURL: "http://idp.example.com/token", ClientID: idpClient, ClientSecret: idpSecret,
		IDToken: func(context.Context) (string, error) { asked.Store(true); return userIDToken, nil }}})
	_, err := client.Connect(context.Background(), client.HTTP(endpoint, &client.HTTPOptions{Auth: h}), nil)
	var ae *oauth.AuthError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "assertion", ae.Step)
	assert.ErrorContains(t, err, "not an https URL")
	assert.False(t, asked.Load())
}
