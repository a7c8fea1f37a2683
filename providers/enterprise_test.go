package providers

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
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

	"github.com/mcpchain/mcp/resourceserver"
)

// jagIdP is an enterprise IdP that signs ID-JAGs: OpenID Connect
// discovery and a JWKS with one ES256 key.
type jagIdP struct {
	*httptest.Server
	key  *ecdsa.PrivateKey
	down atomic.Bool // the JWKS answers 503
}

func newJagIdP(t *testing.T) *jagIdP {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	idp := &jagIdP{key: k}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": idp.URL, "jwks_uri": idp.URL + "/jwks", "token_endpoint": idp.URL + "/token"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		if idp.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "idp-1", Algorithm: "ES256", Use: "sig"}}})
	})
	idp.Server = httptest.NewServer(mux)
	t.Cleanup(idp.Close)
	return idp
}

// claims are a valid ID-JAG's for the proxy of e and enterprise client c.
func (idp *jagIdP) claims(e *env, clientID string) map[string]any {
	now := time.Now()
	return map[string]any{"iss": idp.URL, "sub": "user-42", "aud": e.p.Issuer(), "resource": e.p.Resource(),
		"client_id": clientID, "jti": randomToken(12), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"scope": "read", "email": "ada@example.com"}
}

func (idp *jagIdP) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: idp.key},
		(&jose.SignerOptions{}).WithType("oauth-id-jag+jwt").WithHeader("kid", "idp-1"))
	require.NoError(t, err)
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	require.NoError(t, err)
	return tok
}

const (
	entClient = "xaa-client"
	entSecret = "xaa-secret-0123456789"
)

// enterpriseEnv is a proxy that trusts idp for ID-JAGs of entClient.
func enterpriseEnv(t *testing.T, idp *jagIdP, mod func(*OAuthProviderConfig)) *env {
	t.Helper()
	return newEnv(t, func(c *OAuthProviderConfig) {
		c.EnterpriseAuth = &EnterpriseAuth{IdPs: []resourceserver.EnterpriseIdP{{Issuer: idp.URL}},
			Clients: []resourceserver.AssertionClient{{ID: entClient, Secret: entSecret}}}
		if mod != nil {
			mod(c)
		}
	})
}

// assertionToken presents assertion at e's token endpoint as entClient
// (HTTP Basic) with extra form values.
func (e *env) assertionToken(id, secret, assertion string, extra url.Values) (int, map[string]any) {
	e.t.Helper()
	form := url.Values{"grant_type": {resourceserver.JWTBearerGrant}, "assertion": {assertion}}
	for k, v := range extra {
		form[k] = v
	}
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+TokenPath, strings.NewReader(form.Encode()))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// TestEnterpriseAssertionLogin: the proxy advertises the JWT-bearer grant;
// an enterprise client's ID-JAG gets an access token (no refresh token),
// which names the IdP's user qualified by its issuer, carries the
// assertion's claims to tools as a plain OAuthSession, and can be revoked.
func TestEnterpriseAssertionLogin(t *testing.T) {
	t.Parallel()
	idp := newJagIdP(t)
	e := enterpriseEnv(t, idp, nil)
	assert.Contains(t, e.p.OAuthMetadata().AuthorizationServer.GrantTypesSupported, resourceserver.JWTBearerGrant)

	status, tok := e.assertionToken(entClient, entSecret, idp.sign(t, idp.claims(e, entClient)), nil)
	require.Equal(t, 200, status, tok)
	assert.Equal(t, "read", tok["scope"])
	assert.NotContains(t, tok, "refresh_token")
	at := tok["access_token"].(string)

	resp := do(t, http.DefaultClient, "GET", e.ts.URL+"/mcp", nil, http.Header{"Authorization": {"Bearer " + at}})
	b := readBody(t, resp)
	require.Equal(t, 200, resp.StatusCode, b)
	var s OAuthSession
	require.NoError(t, json.Unmarshal([]byte(b), &s))
	assert.Equal(t, "idjag:"+idp.URL+"|user-42", s.UserID)
	assert.Equal(t, entClient, s.ClientID)
	assert.Equal(t, []string{"read"}, s.Scopes)
	assert.Equal(t, "ada@example.com", s.Claims["email"])

	r, err := e.p.VerifyRequest(httptest.NewRequest("GET", "/mcp", nil).WithContext(t.Context()))
	assert.Nil(t, r)
	assert.Error(t, err)
	req := httptest.NewRequest("GET", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+at)
	sess, err := e.p.VerifyRequest(req)
	require.NoError(t, err)
	assert.IsType(t, &OAuthSession{}, sess, "an enterprise user is not the upstream provider's")

	resp = do(t, http.DefaultClient, "POST", e.ts.URL+RevokePath,
		url.Values{"token": {at}, "client_id": {entClient}, "client_secret": {entSecret}}, nil)
	require.Equal(t, 200, resp.StatusCode)
	resp = do(t, http.DefaultClient, "GET", e.ts.URL+"/mcp", nil, http.Header{"Authorization": {"Bearer " + at}})
	assert.Equal(t, 401, resp.StatusCode)
}

// TestEnterpriseAssertionRefusals: at the proxy's token endpoint, an
// ID-JAG of an untrusted issuer, for another audience or resource,
// expired, issued to another client, or replayed is invalid_grant; an
// enterprise client is refused the other grants and other clients this
// one; a wrong secret is invalid_client; an IdP whose keys cannot be read
// is 503, never a token.
func TestEnterpriseAssertionRefusals(t *testing.T) {
	t.Parallel()
	idp, stranger := newJagIdP(t), newJagIdP(t)
	e := enterpriseEnv(t, idp, nil)
	dcr := e.register("client_secret_post")
	signed := func(mod func(map[string]any)) string {
		c := idp.claims(e, entClient)
		mod(c)
		return idp.sign(t, c)
	}
	replayed := signed(func(map[string]any) {})
	status, body := e.assertionToken(entClient, entSecret, replayed, nil)
	require.Equal(t, 200, status, body)
	tests := []struct {
		name       string
		id, secret string
		assertion  string
		extra      url.Values
		status     int
		code, desc string
	}{
		{name: "wrong issuer", assertion: func() string {
			c := stranger.claims(e, entClient)
			return stranger.sign(t, c)
		}(), status: 400, code: "invalid_grant", desc: "not a trusted identity provider"},
		{name: "issuer named, key of a stranger", assertion: func() string {
			c := idp.claims(e, entClient)
			return stranger.sign(t, c)
		}(), status: 400, code: "invalid_grant", desc: "signature does not verify"},
		{name: "wrong audience (the resource, not the issuer)", assertion: signed(func(c map[string]any) { c["aud"] = e.p.Resource() }),
			status: 400, code: "invalid_grant", desc: "not for this authorization server"},
		{name: "another resource", assertion: signed(func(c map[string]any) { c["resource"] = "https://other.example/mcp" }),
			status: 400, code: "invalid_grant", desc: "another resource"},
		{name: "expired", assertion: signed(func(c map[string]any) {
			c["iat"], c["exp"] = time.Now().Add(-10*time.Minute).Unix(), time.Now().Add(-2*time.Minute).Unix()
		}), status: 400, code: "invalid_grant", desc: "expired"},
		{name: "issued to another client", assertion: signed(func(c map[string]any) { c["client_id"] = dcr.ID }),
			status: 400, code: "invalid_grant", desc: "another client"},
		{name: "replayed", assertion: replayed, status: 400, code: "invalid_grant", desc: "already used"},
		{name: "a scope the proxy does not offer", assertion: signed(func(c map[string]any) { c["scope"] = "admin" }),
			status: 400, code: "invalid_grant", desc: "does not offer"},
		{name: "another resource asked for", assertion: signed(func(map[string]any) {}),
			extra: url.Values{"resource": {"https://other.example/mcp"}}, status: 400, code: "invalid_target", desc: "resource must be"},
		{name: "wrong secret", secret: "not-the-secret-0123", assertion: signed(func(map[string]any) {}),
			status: 401, code: "invalid_client", desc: "client_secret"},
		{name: "a registered client", id: dcr.ID, secret: dcr.Secret, assertion: signed(func(c map[string]any) { c["client_id"] = dcr.ID }),
			status: 400, code: "unauthorized_client", desc: "did not register"},
		{name: "the enterprise client, code grant", assertion: "", extra: url.Values{"grant_type": {"authorization_code"}, "code": {"x.y"}},
			status: 400, code: "unauthorized_client", desc: "did not register"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id, secret := tt.id, tt.secret
			if id == "" {
				id = entClient
			}
			if secret == "" {
				secret = entSecret
			}
			status, body := e.assertionToken(id, secret, tt.assertion, tt.extra)
			assert.Equal(t, tt.status, status, body)
			assert.Equal(t, tt.code, body["error"], body)
			assert.Contains(t, body["error_description"], tt.desc)
			if tt.assertion != "" {
				b, _ := json.Marshal(body)
				assert.NotContains(t, string(b), tt.assertion)
			}
		})
	}

	down := newJagIdP(t)
	ed := enterpriseEnv(t, down, nil)
	down.down.Store(true)
	status, body = ed.assertionToken(entClient, entSecret, down.sign(t, down.claims(ed, entClient)), nil)
	assert.Equal(t, 503, status, body)
	assert.Equal(t, "temporarily_unavailable", body["error"])
}

// TestEnterpriseAssertionReplayAcrossReplicas: two proxies sharing one
// storage (memory, and a real redis-server) refuse at the second an
// ID-JAG the first accepted.
func TestEnterpriseAssertionReplayAcrossReplicas(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			store := sc.open(t)
			idp := newJagIdP(t)
			shared := func(c *OAuthProviderConfig) { c.TokenStorage = store }
			a := enterpriseEnv(t, idp, shared)
			b := enterpriseEnv(t, idp, func(c *OAuthProviderConfig) {
				shared(c)
				c.BaseURL = a.ts.URL // one issuer for both replicas
			})
			assertion := idp.sign(t, idp.claims(a, entClient))
			status, body := a.assertionToken(entClient, entSecret, assertion, nil)
			require.Equal(t, 200, status, body)
			status, body = b.assertionToken(entClient, entSecret, assertion, nil)
			assert.Equal(t, 400, status)
			assert.Contains(t, body["error_description"], "already used")
		})
	}
}

// TestEnterpriseAuthConfigRefused: an enterprise configuration without
// clients, with a public or metadata-document client, or without IdPs is
// refused by the constructor.
func TestEnterpriseAuthConfigRefused(t *testing.T) {
	t.Parallel()
	idp := []resourceserver.EnterpriseIdP{{Issuer: "https://idp.example.com"}}
	tests := []struct {
		name string
		ea   EnterpriseAuth
		want string
	}{
		{"no clients", EnterpriseAuth{IdPs: idp}, "Clients is empty"},
		{"no IdP", EnterpriseAuth{Clients: []resourceserver.AssertionClient{{ID: "c", Secret: entSecret}}}, "at least one IdP"},
		{"short secret", EnterpriseAuth{IdPs: idp, Clients: []resourceserver.AssertionClient{{ID: "c", Secret: "s"}}}, "confidential"},
		{"document URL", EnterpriseAuth{IdPs: idp, Clients: []resourceserver.AssertionClient{{ID: "https://app.example/client.json", Secret: entSecret}}}, "metadata document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ea := tt.ea
			_, err := NewOAuthProvider(OAuthProviderConfig{Config: Config{BaseURL: "https://mcp.example.com", ClientID: "c",
				EnterpriseAuth: &ea, Logger: slog.New(slog.DiscardHandler)}, AuthorizationEndpoint: "https://idp.example.com/a", TokenEndpoint: "https://idp.example.com/t"})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestEnterpriseClientCannotAuthorize: a client of EnterpriseAuth has no
// redirect URI and takes only the JWT-bearer grant: an authorization
// request naming it gets this server's error page, never a redirect.
func TestEnterpriseClientCannotAuthorize(t *testing.T) {
	t.Parallel()
	e := enterpriseEnv(t, newJagIdP(t), nil)
	resp := do(t, browser(t), "GET", e.authorizeURL(regd{ID: entClient, Redirect: "http://127.0.0.1:9999/cb"}, nil), nil, nil)
	body := readBody(t, resp)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
	assert.Empty(t, resp.Header.Get("Location"))
}
