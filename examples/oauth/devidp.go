package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// devIdP is a small OpenID Connect provider for trying the OAuth path on
// one machine (-dev-idp): it signs in one fixed user at once, with no
// password and no page, and issues RS256 ID tokens, access tokens and
// refresh tokens. It accepts client_secret_basic and client_secret_post,
// requires PKCE S256, and redirects only to the one callback it was made
// for. Never expose it: anyone who reaches it is signed in as the user.
type devIdP struct {
	issuer   string
	clientID string
	secret   string
	callback string
	key      *rsa.PrivateKey
	signer   jose.Signer
	kid      string
	srv      *http.Server
	ln       net.Listener

	mu     sync.Mutex
	codes  map[string]devCode
	tokens map[string]time.Time // access tokens → expiry
	rts    map[string]bool
}

type devCode struct {
	challenge, nonce, scope, redirect string
	exp                               time.Time
}

// The signed-in user of the dev provider.
const (
	devSubject = "dev-user-1"
	devEmail   = "dev@example.com"
	devName    = "Dev User"
)

// startDevIdP listens on 127.0.0.1 (a free port) and serves until Close;
// callback is the only redirect URI it accepts.
func startDevIdP(callback string) (*devIdP, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &devIdP{issuer: "http://" + ln.Addr().String(), clientID: "dev-client", secret: devRandom(24), callback: callback,
		key: key, kid: devRandom(8), ln: ln, codes: map[string]devCode{}, tokens: map[string]time.Time{}, rts: map[string]bool{}}
	d.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", d.kid))
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", d.discovery)
	mux.HandleFunc("GET /jwks", d.jwks)
	mux.HandleFunc("GET /authorize", d.authorize)
	mux.HandleFunc("POST /token", d.token)
	mux.HandleFunc("GET /userinfo", d.userinfo)
	d.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = d.srv.Serve(ln) }()
	return d, nil
}

// Close stops the provider.
func (d *devIdP) Close() error { return d.srv.Close() }

// env is what examples/oauth reads to use this provider.
func (d *devIdP) env() map[string]string {
	return map[string]string{
		"OAUTH_PROVIDER": providerGeneric, "OAUTH_CLIENT_ID": d.clientID, "OAUTH_CLIENT_SECRET": d.secret,
		"OAUTH_AUTHORIZATION_ENDPOINT": d.issuer + "/authorize", "OAUTH_TOKEN_ENDPOINT": d.issuer + "/token",
		"OAUTH_ISSUER": d.issuer, "OAUTH_SCOPES": "openid profile email",
	}
}

func devRandom(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func devJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func devError(w http.ResponseWriter, status int, code, desc string) {
	devJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (d *devIdP) discovery(w http.ResponseWriter, _ *http.Request) {
	devJSON(w, http.StatusOK, map[string]any{
		"issuer": d.issuer, "authorization_endpoint": d.issuer + "/authorize", "token_endpoint": d.issuer + "/token",
		"jwks_uri": d.issuer + "/jwks", "userinfo_endpoint": d.issuer + "/userinfo",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{"openid", "profile", "email"},
	})
}

func (d *devIdP) jwks(w http.ResponseWriter, _ *http.Request) {
	devJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &d.key.PublicKey, KeyID: d.kid, Algorithm: "RS256", Use: "sig"}}})
}

// authorize signs the user in at once and sends the browser back with a
// code; a request it cannot honour gets a plain 400 (never a redirect to
// an address it does not know).
func (d *devIdP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case q.Get("client_id") != d.clientID:
		http.Error(w, "dev identity provider: unknown client_id (want "+d.clientID+")", http.StatusBadRequest)
		return
	case q.Get("redirect_uri") != d.callback:
		http.Error(w, "dev identity provider: redirect_uri must be "+d.callback+" (MCP_BASE_URL + /oauth/callback)", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code":
		http.Error(w, "dev identity provider: response_type must be code", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "dev identity provider: PKCE with S256 is required", http.StatusBadRequest)
		return
	}
	code := devRandom(24)
	d.mu.Lock()
	d.codes[code] = devCode{challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), scope: q.Get("scope"),
		redirect: q.Get("redirect_uri"), exp: time.Now().Add(time.Minute)}
	d.mu.Unlock()
	back, _ := url.Parse(d.callback)
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	v.Set("iss", d.issuer)
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// clientOK checks client_secret_basic (RFC 6749 §2.3.1: form-encoded
// values) or client_secret_post.
func (d *devIdP) clientOK(r *http.Request) bool {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	return id == d.clientID && subtle.ConstantTimeCompare([]byte(secret), []byte(d.secret)) == 1
}

func (d *devIdP) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		devError(w, http.StatusBadRequest, "invalid_request", "the body must be a form")
		return
	}
	if !d.clientOK(r) {
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
		if !ok || time.Now().After(c.exp) || f.Get("redirect_uri") != c.redirect ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			devError(w, http.StatusBadRequest, "invalid_grant", "unknown, expired or used code, or wrong redirect_uri or code_verifier")
			return
		}
		scope, nonce = c.scope, c.nonce
	case "refresh_token":
		d.mu.Lock()
		ok := d.rts[f.Get("refresh_token")]
		delete(d.rts, f.Get("refresh_token"))
		d.mu.Unlock()
		if !ok {
			devError(w, http.StatusBadRequest, "invalid_grant", "unknown or used refresh token")
			return
		}
		scope = "openid profile email"
	default:
		devError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code or refresh_token")
		return
	}
	now := time.Now()
	at, rt := devRandom(24), devRandom(24)
	d.mu.Lock()
	d.tokens[at] = now.Add(time.Hour)
	d.rts[rt] = true
	d.mu.Unlock()
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt, "scope": scope}
	if strings.Contains(" "+scope+" ", " openid ") {
		idt, err := jwt.Signed(d.signer).Claims(map[string]any{
			"iss": d.issuer, "sub": devSubject, "aud": d.clientID, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
			"nonce": nonce, "email": devEmail, "email_verified": true, "name": devName,
		}).Serialize()
		if err != nil {
			devError(w, http.StatusInternalServerError, "server_error", "signing the ID token")
			return
		}
		resp["id_token"] = idt
	}
	devJSON(w, http.StatusOK, resp)
}

func (d *devIdP) userinfo(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	d.mu.Lock()
	exp, ok := d.tokens[tok]
	d.mu.Unlock()
	if !ok || time.Now().After(exp) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		devError(w, http.StatusUnauthorized, "invalid_token", "unknown or expired access token")
		return
	}
	devJSON(w, http.StatusOK, map[string]any{"sub": devSubject, "email": devEmail, "email_verified": true, "name": devName})
}

// printSettings tells the user what runs and how to reach it.
func (d *devIdP) printSettings(w io.Writer, base string) {
	fmt.Fprintf(w, "oauth: -dev-idp: a local OpenID Connect provider runs at %s; it signs in %s at once (never expose it).\n", d.issuer, devEmail)
	fmt.Fprintf(w, "oauth: the settings it stands for (a real provider needs the same, with its own values):\n")
	env := d.env()
	env["OAUTH_CLIENT_SECRET"] = "(generated for this run)"
	for _, k := range []string{"OAUTH_PROVIDER", "OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_AUTHORIZATION_ENDPOINT",
		"OAUTH_TOKEN_ENDPOINT", "OAUTH_ISSUER", "OAUTH_SCOPES"} {
		fmt.Fprintf(w, "  %s=%s\n", k, env[k])
	}
	fmt.Fprintf(w, "  MCP_BASE_URL=%s\n", base)
	fmt.Fprintf(w, "oauth: connect a client to %s/mcp (npx @modelcontextprotocol/inspector), then call whoami.\n", base)
}
