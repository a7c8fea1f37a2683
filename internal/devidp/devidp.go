// Package devidp is a small OpenID Connect provider for trying the OAuth
// examples on one machine (their -dev-idp flag): it signs in one fixed
// user at once, with no password and no page, and issues RS256 ID
// tokens, access tokens and refresh tokens. It requires PKCE S256.
//
// For the OAuth proxy (examples/oauth) it knows one confidential client
// and one redirect URI. For a resource server (examples/resourceserver)
// it issues JWT access tokens for one audience and also lets public
// clients register (RFC 7591) with loopback redirect URIs, as MCP
// clients do. Never expose it: anyone who reaches it is signed in as the
// user.
package devidp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Options configure [Start].
type Options struct {
	// Callback is the one redirect URI of the built-in confidential
	// client. Empty: that client accepts any loopback http redirect URI.
	Callback string
	// Audience, when set, makes access tokens RS256 JWTs (typ at+jwt)
	// with this aud, the granted scope and client_id, verifiable with the
	// provider's JWKS; and it opens dynamic registration of public
	// clients with loopback redirect URIs. Empty: access tokens are
	// opaque, for the userinfo endpoint only.
	Audience string
	// Scopes are the scopes supported and granted. Default: openid
	// profile email.
	Scopes []string
}

// Provider is a running dev identity provider.
type Provider struct {
	opts     Options
	issuer   string
	clientID string
	secret   string
	key      *rsa.PrivateKey
	signer   jose.Signer
	atSigner jose.Signer
	kid      string
	srv      *http.Server
	ln       net.Listener

	mu      sync.Mutex
	codes   map[string]devCode
	tokens  map[string]time.Time // opaque access tokens → expiry
	rts     map[string]string    // refresh tokens → client
	clients map[string][]string  // registered public clients → redirect URIs
}

type devCode struct {
	client, challenge, nonce, scope, redirect string
	exp                                       time.Time
}

// The signed-in user.
const (
	Subject = "dev-user-1"
	Email   = "dev@example.com"
	Name    = "Dev User"
)

// Start listens on 127.0.0.1 (a free port) and serves until Close.
func Start(o Options) (*Provider, error) {
	if len(o.Scopes) == 0 {
		o.Scopes = []string{"openid", "profile", "email"}
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &Provider{opts: o, issuer: "http://" + ln.Addr().String(), clientID: "dev-client", secret: Random(24),
		key: key, kid: Random(8), ln: ln, codes: map[string]devCode{}, tokens: map[string]time.Time{},
		rts: map[string]string{}, clients: map[string][]string{}}
	sk := jose.SigningKey{Algorithm: jose.RS256, Key: key}
	if d.signer, err = jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", d.kid)); err == nil {
		d.atSigner, err = jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", d.kid))
	}
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", d.discovery)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", d.discovery)
	mux.HandleFunc("GET /jwks", d.jwks)
	mux.HandleFunc("GET /authorize", d.authorize)
	mux.HandleFunc("POST /token", d.token)
	mux.HandleFunc("GET /userinfo", d.userinfo)
	if o.Audience != "" {
		mux.HandleFunc("POST /register", d.register)
	}
	d.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = d.srv.Serve(ln) }()
	return d, nil
}

// Close stops the provider.
func (d *Provider) Close() error { return d.srv.Close() }

// Issuer is the provider's issuer URL.
func (d *Provider) Issuer() string { return d.issuer }

// ClientID is the built-in confidential client.
func (d *Provider) ClientID() string { return d.clientID }

// ClientSecret is its secret, fresh for each run.
func (d *Provider) ClientSecret() string { return d.secret }

// AccessToken mints an access token for the user with scope, as the
// token endpoint would (a JWT when Options.Audience is set): for curl.
func (d *Provider) AccessToken(scope string, ttl time.Duration) (string, error) {
	return d.accessToken(d.clientID, scope, time.Now(), ttl)
}

// Random returns n random bytes, base64url.
func Random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func devJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func devError(w http.ResponseWriter, status int, code, desc string) {
	devJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (d *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	doc := map[string]any{
		"issuer": d.issuer, "authorization_endpoint": d.issuer + "/authorize", "token_endpoint": d.issuer + "/token",
		"jwks_uri": d.issuer + "/jwks", "userinfo_endpoint": d.issuer + "/userinfo",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      d.opts.Scopes,
	}
	if d.opts.Audience != "" {
		doc["registration_endpoint"] = d.issuer + "/register"
		doc["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic", "client_secret_post", "none"}
	}
	devJSON(w, http.StatusOK, doc)
}

func (d *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	devJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &d.key.PublicKey, KeyID: d.kid, Algorithm: "RS256", Use: "sig"}}})
}

// loopbackRedirect reports whether u is an http URI on a loopback host
// (RFC 8252 §7.3), the only kind a registered public client may use.
func loopbackRedirect(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" || p.Fragment != "" {
		return false
	}
	h := p.Hostname()
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// register is RFC 7591 for public clients with loopback redirect URIs.
func (d *Provider) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		devError(w, http.StatusBadRequest, "invalid_client_metadata", "a JSON body with redirect_uris")
		return
	}
	for _, u := range req.RedirectURIs {
		if !loopbackRedirect(u) {
			devError(w, http.StatusBadRequest, "invalid_redirect_uri", "the dev provider accepts loopback http redirect URIs only")
			return
		}
	}
	id := "dev-public-" + Random(9)
	d.mu.Lock()
	if len(d.clients) >= 1000 {
		d.mu.Unlock()
		devError(w, http.StatusTooManyRequests, "invalid_client_metadata", "too many registrations")
		return
	}
	d.clients[id] = req.RedirectURIs
	d.mu.Unlock()
	devJSON(w, http.StatusCreated, map[string]any{"client_id": id, "client_name": req.ClientName, "redirect_uris": req.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
}

// redirectOK reports whether client may use redirect.
func (d *Provider) redirectOK(client, redirect string) bool {
	if client == d.clientID {
		if d.opts.Callback == "" {
			return loopbackRedirect(redirect)
		}
		return redirect == d.opts.Callback
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.clients[client], redirect)
}

// authorize signs the user in at once and sends the browser back with a
// code; a request it cannot honour gets a plain 400 (never a redirect to
// an address it does not know).
func (d *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	client := q.Get("client_id")
	d.mu.Lock()
	_, registered := d.clients[client]
	d.mu.Unlock()
	switch {
	case client != d.clientID && !registered:
		http.Error(w, "dev identity provider: unknown client_id (want "+d.clientID+")", http.StatusBadRequest)
		return
	case !d.redirectOK(client, q.Get("redirect_uri")):
		want := d.opts.Callback
		if want == "" {
			want = "a loopback http URI (registered)"
		} else {
			want += " (MCP_BASE_URL + /oauth/callback)"
		}
		http.Error(w, "dev identity provider: redirect_uri must be "+want, http.StatusBadRequest)
		return
	case q.Get("response_type") != "code":
		http.Error(w, "dev identity provider: response_type must be code", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "dev identity provider: PKCE with S256 is required", http.StatusBadRequest)
		return
	}
	scope := q.Get("scope")
	if scope == "" {
		scope = strings.Join(d.opts.Scopes, " ")
	}
	code := Random(24)
	d.mu.Lock()
	d.codes[code] = devCode{client: client, challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), scope: scope,
		redirect: q.Get("redirect_uri"), exp: time.Now().Add(time.Minute)}
	d.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	v.Set("iss", d.issuer)
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// client authenticates the caller of the token endpoint: the built-in
// client by client_secret_basic (RFC 6749 §2.3.1: form-encoded values)
// or client_secret_post, a registered public client by its client_id.
func (d *Provider) client(r *http.Request) (string, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == d.clientID {
		return id, subtle.ConstantTimeCompare([]byte(secret), []byte(d.secret)) == 1
	}
	d.mu.Lock()
	_, ok := d.clients[id]
	d.mu.Unlock()
	return id, ok && secret == ""
}

func (d *Provider) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		devError(w, http.StatusBadRequest, "invalid_request", "the body must be a form")
		return
	}
	client, ok := d.client(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="dev"`)
		devError(w, http.StatusUnauthorized, "invalid_client", "wrong client_id or client_secret")
		return
	}
	f := r.PostForm
	var scope, nonce string
	switch f.Get("grant_type") {
	case "authorization_code":
		d.mu.Lock()
		c, ok := d.codes[f.Get("code")]
		delete(d.codes, f.Get("code"))
		d.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || c.client != client || time.Now().After(c.exp) || f.Get("redirect_uri") != c.redirect ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			devError(w, http.StatusBadRequest, "invalid_grant", "unknown, expired or used code, or wrong client, redirect_uri or code_verifier")
			return
		}
		scope, nonce = c.scope, c.nonce
	case "refresh_token":
		d.mu.Lock()
		owner, ok := d.rts[f.Get("refresh_token")]
		delete(d.rts, f.Get("refresh_token"))
		d.mu.Unlock()
		if !ok || owner != client {
			devError(w, http.StatusBadRequest, "invalid_grant", "unknown or used refresh token")
			return
		}
		scope = strings.Join(d.opts.Scopes, " ")
	default:
		devError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code or refresh_token")
		return
	}
	now := time.Now()
	at, err := d.accessToken(client, scope, now, time.Hour)
	if err != nil {
		devError(w, http.StatusInternalServerError, "server_error", "signing the access token")
		return
	}
	rt := Random(24)
	d.mu.Lock()
	d.rts[rt] = client
	d.mu.Unlock()
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt, "scope": scope}
	if strings.Contains(" "+scope+" ", " openid ") {
		idt, err := jwt.Signed(d.signer).Claims(map[string]any{
			"iss": d.issuer, "sub": Subject, "aud": client, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
			"nonce": nonce, "email": Email, "email_verified": true, "name": Name,
		}).Serialize()
		if err != nil {
			devError(w, http.StatusInternalServerError, "server_error", "signing the ID token")
			return
		}
		resp["id_token"] = idt
	}
	devJSON(w, http.StatusOK, resp)
}

func (d *Provider) accessToken(client, scope string, now time.Time, ttl time.Duration) (string, error) {
	if d.opts.Audience == "" {
		at := Random(24)
		d.mu.Lock()
		d.tokens[at] = now.Add(ttl)
		d.mu.Unlock()
		return at, nil
	}
	return jwt.Signed(d.atSigner).Claims(map[string]any{
		"iss": d.issuer, "sub": Subject, "aud": d.opts.Audience, "iat": now.Unix(), "nbf": now.Unix(),
		"exp": now.Add(ttl).Unix(), "scope": scope, "client_id": client, "jti": Random(12), "email": Email, "name": Name,
	}).Serialize()
}

func (d *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	d.mu.Lock()
	exp, ok := d.tokens[tok]
	d.mu.Unlock()
	if !ok || time.Now().After(exp) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		devError(w, http.StatusUnauthorized, "invalid_token", "unknown or expired access token")
		return
	}
	devJSON(w, http.StatusOK, map[string]any{"sub": Subject, "email": Email, "email_verified": true, "name": Name})
}
