package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The enterprise identity provider of the enterprise-identity e2e tests:
// an OpenID Provider built on github.com/zitadel/oidc/v3 (package op, with
// the in-memory storage of its example server), in process on 127.0.0.1.
// What is zitadel's own: discovery, the JWKS, the authorization code flow
// with PKCE, ID tokens, JWT access tokens, and OAuth 2.0 Token Exchange
// (RFC 8693). What is added here, as an IdP administrator configures it:
//
//   - the clients (confidential, JWT access tokens) and which audiences
//     each may exchange a token for (token exchange policy);
//   - for the client credentials grant (zitadel's own), what a client's
//     access token says: the client as subject, the resource it was
//     registered for as audience, its groups, and its lifetime;
//   - a login page that signs the example's user in at once;
//   - the ID-JAG of enterprise-managed authorization (SEP-990 §4), which
//     zitadel's token exchange does not issue (it issues only access,
//     refresh and ID tokens): a token exchange request for
//     urn:ietf:params:oauth:token-type:id-jag is answered here, after the
//     ID token is verified with zitadel's own ID token verifier, signed
//     with the provider's current signing key;
//   - key rotation: rotate() makes a new signing key current, and the
//     JWKS keeps publishing the old one.
//
// A real OpenID provider library rather than a server binary: Ory Hydra
// costs about 194 CPU-seconds to build cold (docs/security.md,
// "Enterprise identity"), too much for the CI budget.
type zitadelIdP struct {
	*httptest.Server
	store    *idpStore
	provider *op.Provider

	// jagLifetime is the lifetime of the ID-JAGs issued (negative: they
	// are issued expired, as a stolen old one would be).
	jagLifetime atomic.Int64
}

// idpClient is a client registered at the IdP.
type idpClient struct {
	id, secret   string
	redirectURIs []string
	grants       []oidc.GrantType
	// audiences the client may exchange a token for; resource is the
	// audience of the tokens the client itself receives (a resource
	// server's), which it may exchange.
	audiences []string
	resource  string
	// groups is the "groups" claim of the client's own access tokens
	// (client credentials grant), as an IdP administrator assigns a
	// service account to groups.
	groups []string
	// lifetime, when set, is the lifetime of the client's own access
	// tokens (negative: they are issued expired, as a stolen old one
	// would be); otherwise the example storage's five minutes.
	lifetime time.Duration
}

func (c *idpClient) GetID() string                       { return c.id }
func (c *idpClient) RedirectURIs() []string              { return c.redirectURIs }
func (c *idpClient) PostLogoutRedirectURIs() []string    { return nil }
func (c *idpClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *idpClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *idpClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *idpClient) GrantTypes() []oidc.GrantType        { return c.grants }
func (c *idpClient) LoginURL(id string) string           { return "/login?authRequestID=" + url.QueryEscape(id) }
func (c *idpClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c *idpClient) IDTokenLifetime() time.Duration      { return time.Hour }
func (c *idpClient) DevMode() bool                       { return true }
func (c *idpClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *idpClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *idpClient) IsScopeAllowed(string) bool           { return true }
func (c *idpClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *idpClient) ClockSkew() time.Duration             { return 0 }

// idpKey is an RSA signing key of the provider.
type idpKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *idpKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *idpKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k *idpKey) Use() string                                 { return "sig" }
func (k *idpKey) ID() string                                  { return k.id }

// publicKey is idpKey as the JWKS lists it.
type publicKey struct{ *idpKey }

func (k publicKey) Key() any { return &k.key.PublicKey }

// signingKey is idpKey as the signer uses it.
type signingKey struct{ *idpKey }

func (k signingKey) Key() any { return k.key }

// idpStore is zitadel's example storage with this test's clients, keys
// and token exchange policy.
type idpStore struct {
	*storage.Storage
	mu      sync.Mutex
	keys    []*idpKey // the current one first
	clients map[string]*idpClient
}

func (s *idpStore) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("client %q not found", id)
}

func (s *idpStore) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok && c.secret == secret {
		return nil
	}
	return errors.New("invalid client credentials")
}

func (s *idpStore) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return signingKey{s.keys[0]}, nil
}

func (s *idpStore) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *idpStore) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]op.Key, len(s.keys))
	for i, k := range s.keys {
		out[i] = publicKey{k}
	}
	return out, nil
}

// ClientCredentials authenticates a client of the client credentials
// grant (op checks the client's grant types).
func (s *idpStore) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	if err := s.AuthorizeClientIDSecret(ctx, id, secret); err != nil {
		return nil, err
	}
	return s.GetClientByClientID(ctx, id)
}

// ClientCredentialsTokenRequest: the client's own access token names the
// client as its subject and the resource it was registered for as its
// audience.
func (s *idpStore) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[id]
	if c == nil || c.resource == "" {
		return nil, oidc.ErrInvalidClient().WithDescription("no resource is registered for this client")
	}
	return &oidc.JWTTokenRequest{Subject: c.id, Audience: []string{c.resource}, Scopes: scopes}, nil
}

// CreateAccessToken is the example storage's, with the lifetime of the
// client's own tokens when it has one.
func (s *idpStore) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, exp, err := s.Storage.CreateAccessToken(ctx, req)
	if _, own := req.(*oidc.JWTTokenRequest); own && err == nil {
		s.mu.Lock()
		if c := s.clients[req.GetSubject()]; c != nil && c.lifetime != 0 {
			exp = time.Now().Add(c.lifetime)
		}
		s.mu.Unlock()
	}
	return id, exp, err
}

// GetPrivateClaimsFromScopes adds the client's groups (and the scope, as
// most providers do) to its access tokens.
func (s *idpStore) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[clientID]; c != nil && len(c.groups) > 0 {
		if claims == nil {
			claims = map[string]any{}
		}
		claims["groups"] = c.groups
		claims["scope"] = strings.Join(scopes, " ")
	}
	return claims, nil
}

// ValidateTokenExchangeRequest is the IdP's token exchange policy: an
// access token for the client itself or for the resource the client
// serves, exchanged for an access token of an audience the client may
// ask for.
func (s *idpStore) ValidateTokenExchangeRequest(ctx context.Context, req op.TokenExchangeRequest) error {
	s.mu.Lock()
	c := s.clients[req.GetClientID()]
	s.mu.Unlock()
	if c == nil {
		return errors.New("unknown client")
	}
	if req.GetRequestedTokenType() == "" {
		req.SetRequestedTokenType(oidc.AccessTokenType)
	}
	if req.GetRequestedTokenType() != oidc.AccessTokenType || req.GetExchangeSubjectTokenType() != oidc.AccessTokenType {
		return oidc.ErrInvalidRequest().WithDescription("only access tokens are exchanged here")
	}
	var aud []string
	switch a := req.GetExchangeSubjectTokenClaims()["aud"].(type) {
	case string:
		aud = []string{a}
	case []any:
		for _, v := range a {
			if s, ok := v.(string); ok {
				aud = append(aud, s)
			}
		}
	}
	if !slices.Contains(aud, c.id) && (c.resource == "" || !slices.Contains(aud, c.resource)) {
		return oidc.ErrInvalidGrant().WithDescription("the subject token is not for this client")
	}
	if len(req.GetAudience()) == 0 {
		return oidc.ErrInvalidTarget().WithDescription("audience is required")
	}
	for _, a := range req.GetAudience() {
		if !slices.Contains(c.audiences, a) {
			return oidc.ErrInvalidTarget().WithDescription("this client may not get tokens for %s", a)
		}
	}
	req.SetCurrentScopes(req.GetScopes())
	return nil
}

func (s *idpStore) GetPrivateClaimsFromTokenExchangeRequest(ctx context.Context, req op.TokenExchangeRequest) (map[string]any, error) {
	return map[string]any{"scope": strings.Join(req.GetScopes(), " ")}, nil
}

// idpUser is the example storage's user, whose ID is the subject of its
// tokens.
const (
	idpUser     = "test-user@" // and the issuer's host
	idpPassword = "verysecure"
	idpUserID   = "id1"
)

// newZitadelIdP starts the provider with clients.
func newZitadelIdP(t *testing.T, clients ...*idpClient) *zitadelIdP {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	idp := &zitadelIdP{store: &idpStore{keys: []*idpKey{{id: "k1", key: k}}, clients: map[string]*idpClient{}}}
	idp.jagLifetime.Store(int64(5 * time.Minute))
	for _, c := range clients {
		idp.store.clients[c.id] = c
	}
	mux := http.NewServeMux()
	idp.Server = httptest.NewServer(mux)
	t.Cleanup(idp.Close)
	idp.store.Storage = storage.NewStorage(storage.NewUserStore(idp.URL))
	idp.provider, err = op.NewProvider(&op.Config{CryptoKey: sha256.Sum256([]byte("e2e")), CodeMethodS256: true,
		AuthMethodPost: true, GrantTypeRefreshToken: true, SupportedUILocales: nil},
		idp.store, op.StaticIssuer(idp.URL), op.WithAllowInsecure())
	require.NoError(t, err)
	interceptor := op.NewIssuerInterceptor(idp.provider.IssuerFromRequest)
	// The login page: the example's user signs in at once.
	mux.HandleFunc("/login", interceptor.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("authRequestID")
		u, _ := url.Parse(idp.URL)
		if err := idp.store.CheckUsernamePassword(idpUser+u.Hostname(), idpPassword, id); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, op.AuthCallbackURL(idp.provider)(r.Context(), id), http.StatusFound)
	}))
	mux.Handle("POST /oauth/token", interceptor.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err == nil && r.PostForm.Get("grant_type") == string(oidc.GrantTypeTokenExchange) &&
			r.PostForm.Get("requested_token_type") == "urn:ietf:params:oauth:token-type:id-jag" {
			idp.issueIDJAG(w, r)
			return
		}
		idp.provider.ServeHTTP(w, r)
	}))
	mux.Handle("/", idp.provider)
	return idp
}

// rotate makes a new signing key current; the old one stays published.
func (idp *zitadelIdP) rotate(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	idp.store.mu.Lock()
	defer idp.store.mu.Unlock()
	idp.store.keys = append([]*idpKey{{id: fmt.Sprintf("k%d", len(idp.store.keys)+1), key: k}}, idp.store.keys...)
}

func idpError(w http.ResponseWriter, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// issueIDJAG answers a token exchange for an ID-JAG (SEP-990 §4): the
// client authenticates, the subject token is an ID token of this
// provider issued to that client (zitadel's verifier: signature, issuer,
// expiry), audience and resource are given; the ID-JAG names the user,
// the audience, the resource, and the client as the MCP authorization
// server knows it (the IdP's mapping, here its client_id with an
// "-at-mcp" suffix: the client is registered at both).
func (idp *zitadelIdP) issueIDJAG(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	if idp.store.AuthorizeClientIDSecret(r.Context(), id, secret) != nil {
		idpError(w, "invalid_client", "client authentication failed")
		return
	}
	if f.Get("subject_token_type") != string(oidc.IDTokenType) || f.Get("audience") == "" || f.Get("resource") == "" {
		idpError(w, "invalid_request", "an ID token, an audience and a resource are required")
		return
	}
	claims, err := op.VerifyIDTokenHint[*oidc.IDTokenClaims](r.Context(), f.Get("subject_token"), idp.provider.IDTokenHintVerifier(r.Context()))
	if err != nil {
		idpError(w, "invalid_grant", "the ID token does not verify: "+err.Error())
		return
	}
	if !slices.Contains(claims.Audience, id) {
		idpError(w, "invalid_grant", "the ID token was not issued to this client")
		return
	}
	key, _ := idp.store.SigningKey(r.Context())
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key.Key()},
		(&jose.SignerOptions{}).WithType("oauth-id-jag+jwt").WithHeader("kid", key.ID()))
	if err != nil {
		idpError(w, "server_error", err.Error())
		return
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	now := time.Now()
	lifetime := time.Duration(idp.jagLifetime.Load())
	iat := now
	if lifetime < 0 {
		iat = now.Add(2 * lifetime) // issued long ago, expired -lifetime ago
	}
	jag := map[string]any{"iss": idp.URL, "sub": claims.Subject, "aud": f.Get("audience"), "resource": f.Get("resource"),
		"client_id": id + "-at-mcp", "jti": base64.RawURLEncoding.EncodeToString(jti), "iat": iat.Unix(),
		"exp": now.Add(lifetime).Unix(), "email": "test-user@zitadel.ch"}
	if sc := f.Get("scope"); sc != "" {
		jag["scope"] = sc
	}
	tok, err := jwt.Signed(s).Claims(jag).Serialize()
	if err != nil {
		idpError(w, "server_error", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		"token_type": "N_A", "expires_in": int(lifetime / time.Second)})
}

// signIn runs the authorization code flow with PKCE for client c (its
// first redirect URI, which need not answer: the redirect is read, not
// followed) and returns the token response: the ID token and the JWT
// access token.
func (idp *zitadelIdP) signIn(t *testing.T, c *idpClient) map[string]any {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	redirect := c.redirectURIs[0]
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	verifier := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("v", 40)))
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {redirect}, "scope": {"openid email"},
		"state": {"s1"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	resp, err := hc.Get(idp.URL + "/authorize?" + q.Encode())
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode, "%s: %s", resp.Request.URL, b)
	loc, err := resp.Location()
	require.NoError(t, err)
	code := loc.Query().Get("code")
	require.NotEmpty(t, code, loc.String())
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}}
	req, err := http.NewRequest(http.MethodPost, idp.URL+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(c.id, c.secret)
	resp, err = hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var tok map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	require.Equal(t, http.StatusOK, resp.StatusCode, tok)
	require.NotEmpty(t, tok["id_token"], tok)
	return tok
}

// exchange is an RFC 8693 request at the provider's token endpoint as
// client c, for audience.
func (idp *zitadelIdP) exchange(t *testing.T, c *idpClient, subject, audience string) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {string(oidc.GrantTypeTokenExchange)}, "subject_token": {subject},
		"subject_token_type": {string(oidc.AccessTokenType)}, "requested_token_type": {string(oidc.AccessTokenType)},
		"audience": {audience}}
	req, err := http.NewRequest(http.MethodPost, idp.URL+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(c.id, c.secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// clientToken runs the client credentials grant for client c and
// returns the status and the token response.
func (idp *zitadelIdP) clientToken(t *testing.T, c *idpClient, scope string) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {string(oidc.GrantTypeClientCredentials)}, "scope": {scope}}
	req, err := http.NewRequest(http.MethodPost, idp.URL+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(c.id, c.secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}
