package resourceserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
)

// EnterpriseAuth makes a [Verifier] an authorization server of
// enterprise-managed authorization (SEP-990) for its resource, beside the
// identity provider whose tokens it accepts: a client that signed its
// user in at a trusted enterprise IdP presents the ID-JAG the IdP gave it
// at this server's token endpoint (the RFC 7523 JWT-bearer grant), and
// gets an access token of this server for Config.Resource. For a provider
// that does not accept ID-JAGs itself; one that does needs none of this.
type EnterpriseAuth struct {
	// IdPs are the enterprise identity providers trusted. At least one.
	IdPs []EnterpriseIdP
	// Clients are the clients that may present ID-JAGs, registered
	// beforehand (the enterprise IdP names them in client_id). At least
	// one.
	Clients []AssertionClient
	// Issuer is this authorization server's issuer identifier: the aud
	// the assertions must carry and the iss of the tokens issued. Its
	// metadata (RFC 8414) is served at
	// /.well-known/oauth-authorization-server followed by its path, and
	// its token endpoint at its path followed by /oauth/token. Default:
	// the scheme and host of Config.Resource. The protected-resource
	// metadata lists it after Config.AuthorizationServers.
	Issuer string
	// SigningKey (at least 32 bytes, the same on every replica) signs the
	// access tokens issued (HS256). Default: random per process, which
	// serves one replica only.
	SigningKey []byte
	// TokenLifetime is the lifetime of the access tokens issued; no
	// refresh token is issued, so the client asks its IdP again after
	// it, and the IdP's policy applies again. Default: 1 hour.
	TokenLifetime time.Duration
	// ReplayCache remembers the assertions accepted until they expire.
	// Default: Config.DPoP.ReplayCache when set, else in memory (one
	// process: replicas need a shared one, package
	// resourceserver/redisreplay).
	ReplayCache ReplayCache
	// Logger receives the refusals (never an assertion or a token).
	// Default: slog.Default().
	Logger *slog.Logger
}

// localAS is the token endpoint of EnterpriseAuth and the check of the
// tokens it issues.
type localAS struct {
	issuer    string
	tokenURL  string
	tokenPath string
	resource  string
	kid       string
	key       []byte
	signer    jose.Signer
	lifetime  time.Duration
	clients   map[string][32]byte // client_id → SHA-256 of its secret
	assertion *AssertionVerifier
	leeway    time.Duration
	now       func() time.Time
	log       *slog.Logger
}

// tokenEndpointPath is where the token endpoint lives under the issuer.
const tokenEndpointPath = "/oauth/token"

const defaultLocalTokenLifetime = time.Hour

func newLocalAS(cfg Config, ea EnterpriseAuth, replay ReplayCache) (*localAS, error) {
	if ea.Issuer == "" {
		u, _ := url.Parse(cfg.Resource)
		ea.Issuer = u.Scheme + "://" + u.Host
	}
	iu, err := parseIssuer(ea.Issuer)
	if err != nil {
		return nil, err
	}
	ea.Issuer = trimSlash(ea.Issuer)
	if len(ea.Clients) == 0 {
		return nil, errors.New("resourceserver: EnterpriseAuth.Clients is empty: the clients that may present ID-JAGs are registered beforehand")
	}
	key, err := localSigningKey(ea.SigningKey)
	if err != nil {
		return nil, err
	}
	if ea.TokenLifetime == 0 {
		ea.TokenLifetime = defaultLocalTokenLifetime
	}
	if ea.TokenLifetime < 0 {
		return nil, errors.New("resourceserver: EnterpriseAuth.TokenLifetime is negative")
	}
	if ea.ReplayCache != nil {
		replay = ea.ReplayCache
	}
	if ea.Logger == nil {
		ea.Logger = slog.Default()
	}
	scopes := cfg.ScopesSupported
	if len(scopes) == 0 {
		scopes = cfg.RequiredScopes
	}
	av, err := NewAssertionVerifier(AssertionVerifierConfig{IdPs: ea.IdPs, Audience: ea.Issuer,
		Resources: []string{cfg.Resource}, Scopes: scopes, ReplayCache: replay, Leeway: cfg.Leeway,
		HTTPClient: cfg.HTTPClient, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	as := &localAS{issuer: ea.Issuer, tokenPath: strings.TrimSuffix(iu.Path, "/") + tokenEndpointPath,
		resource: cfg.Resource, key: key, lifetime: ea.TokenLifetime, clients: map[string][32]byte{},
		assertion: av, leeway: cfg.Leeway, now: cfg.Now, log: ea.Logger.With("component", "enterprise-auth")}
	as.tokenURL = ea.Issuer + tokenEndpointPath
	if as.clients, err = hashClients(ea.Clients); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(key)
	as.kid = "ea-" + hex.EncodeToString(sum[:6])
	if as.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", as.kid)); err != nil {
		return nil, err
	}
	return as, nil
}

// parseIssuer parses EnterpriseAuth.Issuer: an absolute http(s) URL
// without query or fragment.
func parseIssuer(issuer string) (*url.URL, error) {
	iu, err := url.Parse(issuer)
	if err != nil || (iu.Scheme != "https" && iu.Scheme != "http") || iu.Host == "" || iu.RawQuery != "" || iu.Fragment != "" {
		return nil, fmt.Errorf("resourceserver: EnterpriseAuth.Issuer %q must be an absolute http(s) URL without query or fragment", issuer)
	}
	return iu, nil
}

// localSigningKey is the key the local authorization server signs its
// tokens with: EnterpriseAuth.SigningKey (at least 32 bytes), or 32
// random bytes when none is given.
func localSigningKey(key []byte) ([]byte, error) {
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
		return key, nil
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("resourceserver: EnterpriseAuth.SigningKey must be at least 32 bytes (it is %d)", len(key))
	}
	return key, nil
}

// hashClients checks EnterpriseAuth.Clients (an ID each, once, and a
// secret of at least 16 bytes: the extension is for confidential
// clients) and returns the SHA-256 of each one's secret by ID.
func hashClients(clients []AssertionClient) (map[string][32]byte, error) {
	hashed := map[string][32]byte{}
	for i, c := range clients {
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("resourceserver: EnterpriseAuth.Clients[%d] has no ID", i)
		case len(c.Secret) < 16:
			return nil, fmt.Errorf("resourceserver: EnterpriseAuth.Clients[%d] (%s): the secret must be at least 16 bytes: "+
				"the extension is for confidential clients", i, c.ID)
		}
		if _, dup := hashed[c.ID]; dup {
			return nil, fmt.Errorf("resourceserver: EnterpriseAuth.Clients: %s is listed twice", c.ID)
		}
		hashed[c.ID] = sha256.Sum256([]byte(c.Secret))
	}
	return hashed, nil
}

// metadata is the RFC 8414 document of the local authorization server:
// a token endpoint for the JWT-bearer grant, nothing else.
func (as *localAS) metadata(scopes []string) *discovery.AuthorizationServerMetadata {
	return &discovery.AuthorizationServerMetadata{
		Issuer: as.issuer, TokenEndpoint: as.tokenURL, ResponseTypesSupported: []string{},
		GrantTypesSupported:               []string{JWTBearerGrant},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post"},
		ScopesSupported:                   scopes,
	}
}

// localClaims are the claims of the tokens the local authorization
// server issues.
type localClaims struct {
	jwt.Claims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope,omitempty"`
	// IdP and IdPSubject name the user at the enterprise IdP.
	IdP        string `json:"idp"`
	IdPSubject string `json:"idp_sub"`
}

// handleToken is the token endpoint: the JWT-bearer grant with an ID-JAG
// (SEP-990 §5), for a client of EnterpriseAuth.Clients.
func (as *localAS) handleToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: use POST", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded (at most 64 KiB)")
		return
	}
	id, ok := as.authClient(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	switch gt := f.Get("grant_type"); gt {
	case JWTBearerGrant:
	case "":
		tokenError(w, http.StatusBadRequest, "invalid_request", "grant_type is required")
		return
	default:
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type", "this token endpoint takes the JWT-bearer grant ("+JWTBearerGrant+") with an ID-JAG only")
		return
	}
	for _, res := range f["resource"] {
		if trimSlash(res) != trimSlash(as.resource) {
			tokenError(w, http.StatusBadRequest, "invalid_target", "resource must be "+as.resource)
			return
		}
	}
	if len(f["assertion"]) > 1 {
		tokenError(w, http.StatusBadRequest, "invalid_request", "send one assertion")
		return
	}
	a, err := as.assertion.Verify(r.Context(), f.Get("assertion"), id, f.Get("scope"))
	var ae *AssertionError
	switch {
	case errors.As(err, &ae):
		as.log.Info("ID-JAG refused", "client_id", id, "reason", ae.Error())
		tokenError(w, http.StatusBadRequest, ae.Code, ae.Description)
		return
	case err != nil:
		as.log.Warn("ID-JAG could not be checked", "client_id", id, "err", err)
		w.Header().Set("Retry-After", "15")
		tokenError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the identity provider's keys cannot be read now; try again")
		return
	}
	now := as.now()
	var jti [16]byte
	_, _ = rand.Read(jti[:])
	tok, err := jwt.Signed(as.signer).Claims(localClaims{
		Claims: jwt.Claims{Issuer: as.issuer, Subject: a.User, Audience: jwt.Audience{as.resource},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			Expiry: jwt.NewNumericDate(now.Add(as.lifetime)), ID: hex.EncodeToString(jti[:])},
		ClientID: id, Scope: strings.Join(a.Granted, " "), IdP: a.Issuer, IdPSubject: a.Subject,
	}).Serialize()
	if err != nil {
		tokenError(w, http.StatusInternalServerError, "server_error", "the access token could not be made")
		return
	}
	as.log.Info("access token issued for an ID-JAG", "client_id", id, "idp", a.Issuer, "sub", a.User)
	resp := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(as.lifetime / time.Second)}
	if len(a.Granted) > 0 {
		resp["scope"] = strings.Join(a.Granted, " ")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	_ = json.NewEncoder(w).Encode(resp)
}

// authClient authenticates a client of EnterpriseAuth.Clients: HTTP Basic
// (values form-encoded, RFC 6749 §2.3.1) or client_id and client_secret
// in the form, not both. When it reports false it has answered.
func (as *localAS) authClient(w http.ResponseWriter, r *http.Request) (string, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		if r.PostForm.Has("client_secret") {
			tokenError(w, http.StatusBadRequest, "invalid_request", "send the client credentials either in the Authorization header or in the form, not both")
			return "", false
		}
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			as.invalidClient(w, basic, "the Basic credentials are not form-encoded")
			return "", false
		}
		if fid := r.PostForm.Get("client_id"); fid != "" && fid != id {
			tokenError(w, http.StatusBadRequest, "invalid_request", "client_id in the form differs from the Authorization header")
			return "", false
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	want, known := as.clients[id]
	got := sha256.Sum256([]byte(secret))
	// Compared whether or not the client is known, so the time taken
	// does not tell.
	if !hmac.Equal(got[:], want[:]) || !known || secret == "" {
		as.invalidClient(w, basic, "unknown client or wrong client_secret: the ID-JAG grant is for registered confidential clients")
		return "", false
	}
	return id, true
}

func (as *localAS) invalidClient(w http.ResponseWriter, basic bool, desc string) {
	if basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	tokenError(w, http.StatusUnauthorized, "invalid_client", desc)
}

func tokenError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// verify checks a token the local authorization server issued: ok false
// when tok is not one (not an HS256 JWT with its key id), so that the
// provider's verification takes it.
func (as *localAS) verify(tok string) (s *Session, ok bool, err error) {
	jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{jose.HS256})
	if err != nil || len(jws.Signatures) != 1 || jws.Signatures[0].Header.KeyID != as.kid {
		return nil, false, nil
	}
	payload, err := jws.Verify(as.key)
	if err != nil {
		return nil, true, &mcp.AuthError{Err: fmt.Errorf("%w: a token of the enterprise authorization server with a bad signature", mcp.ErrInvalidToken),
			Description: "the access token's signature does not verify"}
	}
	c, err := parseClaims(payload)
	if err != nil {
		return nil, true, &mcp.AuthError{Err: fmt.Errorf("%w: %v", mcp.ErrInvalidToken, err), Description: "the access token's claims are malformed"}
	}
	now := as.now()
	refuse := func(desc string) (*Session, bool, error) {
		return nil, true, &mcp.AuthError{Err: fmt.Errorf("%w: enterprise token: %s", mcp.ErrInvalidToken, desc), Description: desc}
	}
	switch {
	case c.Iss != as.issuer:
		return refuse("the access token was not issued by " + as.issuer)
	case !slices.Contains(c.Aud, as.resource):
		return refuse("the access token is not for this resource")
	case c.Exp == nil || !now.Before(c.Exp.Add(as.leeway)):
		return refuse("the access token has expired")
	case c.Sub == "" || c.ClientID == "":
		return refuse("the access token names no subject or client")
	}
	return &Session{Sub: c.Sub, Issuer: c.Iss, Audience: c.Aud, ClientID: c.ClientID, Scopes: c.scopes(),
		Expiry: *c.Exp, Claims: c.all}, true, nil
}
