package devidp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpchain/mcp/internal/hostcheck"
)

// Lifetimes of what the provider issues.
const (
	codeTTL    = time.Minute
	pendingTTL = 10 * time.Minute
	accessTTL  = time.Hour
	refreshTTL = 24 * time.Hour
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	iss := p.cfg.Issuer
	doc := map[string]any{
		"issuer": iss, "authorization_endpoint": iss + "/authorize", "token_endpoint": iss + "/token",
		"jwks_uri": iss + "/jwks", "userinfo_endpoint": iss + "/userinfo",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                               p.cfg.Scopes,
		"claims_supported":                               []string{"sub", "email", "email_verified", "name"},
		"authorization_response_iss_parameter_supported": true,
	}
	if p.cfg.Audience != "" {
		doc["registration_endpoint"] = iss + "/register"
		doc["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic", "client_secret_post", "none"}
	}
	writeJSON(w, http.StatusOK, doc)
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: "RS256", Use: "sig"}}})
}

// loopbackRedirect reports whether u is an http URI on a loopback host
// (RFC 8252 §7.3) with no user information or fragment.
func loopbackRedirect(u string) bool {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "http" || pu.Fragment != "" || pu.User != nil || pu.Opaque != "" {
		return false
	}
	h := pu.Hostname()
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// loopbackPeer reports whether a request's RemoteAddr is a loopback
// address: the one place AutoApprove applies.
func loopbackPeer(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// navigation reports whether r may be a browser's navigation or a plain
// HTTP client's request, not a web page script's fetch: a fetch that
// follows the redirect to a URI answering with CORS headers (the
// provider's own JWKS, say) would let the script read the code from the
// response's URL. Browsers send Origin on such a fetch and Sec-Fetch-Mode
// cors or no-cors; a navigation sends no Origin on GET and
// Sec-Fetch-Mode navigate.
func navigation(r *http.Request) bool {
	m := r.Header.Get("Sec-Fetch-Mode")
	return r.Header.Get("Origin") == "" && (m == "" || m == "navigate")
}

// register is RFC 7591 for public clients with loopback redirect URIs. A
// browser may register only from a page on this machine (an MCP client
// such as the Inspector); a page of another site may not.
func (p *Provider) register(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || !hostcheck.IsLoopbackHost(u.Host) {
			writeError(w, http.StatusForbidden, "invalid_client_metadata", "registration from a page of another site")
			return
		}
	}
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "a JSON body with redirect_uris")
		return
	}
	for _, u := range req.RedirectURIs {
		if !loopbackRedirect(u) {
			writeError(w, http.StatusBadRequest, "invalid_redirect_uri", "the dev provider accepts loopback http redirect URIs only")
			return
		}
	}
	id := "dev-public-" + random(9)
	p.mu.Lock()
	if len(p.clients) >= maxClients {
		p.mu.Unlock()
		writeError(w, http.StatusTooManyRequests, "invalid_client_metadata", "too many registrations")
		return
	}
	p.clients[id] = req.RedirectURIs
	p.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "client_name": req.ClientName, "redirect_uris": req.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
}

// redirectOK reports whether client may use redirect.
func (p *Provider) redirectOK(client, redirect string) bool {
	if client == p.cfg.ClientID {
		if len(p.cfg.RedirectURIs) == 0 {
			return loopbackRedirect(redirect)
		}
		return slices.Contains(p.cfg.RedirectURIs, redirect)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.clients[client], redirect)
}

// authRequest is an authorization request the provider accepted.
type authRequest struct {
	client, redirect, state, nonce, scope, challenge string
}

// parseAuthorize checks an authorization request's query. A request it
// refuses gets a plain 400 with the message it returns, never a redirect:
// only a client's own redirect URI is ever a redirect target.
func (p *Provider) parseAuthorize(q url.Values) (authRequest, string) {
	for k, v := range q {
		if len(v) > 1 {
			return authRequest{}, "the parameter " + k + " appears more than once"
		}
	}
	client := q.Get("client_id")
	p.mu.Lock()
	_, registered := p.clients[client]
	p.mu.Unlock()
	if client != p.cfg.ClientID && !registered {
		return authRequest{}, "unknown client_id (the confidential client is " + p.cfg.ClientID + ")"
	}
	if !p.redirectOK(client, q.Get("redirect_uri")) {
		want := "a loopback http URI"
		if client == p.cfg.ClientID && len(p.cfg.RedirectURIs) > 0 {
			want = "one of " + strings.Join(p.cfg.RedirectURIs, ", ")
		} else if client != p.cfg.ClientID {
			want = "one the client registered"
		}
		return authRequest{}, "redirect_uri must be " + want
	}
	if q.Get("response_type") != "code" {
		return authRequest{}, "response_type must be code"
	}
	if q.Get("code_challenge_method") != "S256" || !validPKCE(q.Get("code_challenge"), 43, 43) {
		return authRequest{}, "PKCE is required: code_challenge_method=S256 and a code_challenge of 43 base64url characters"
	}
	scope := q.Get("scope")
	if scope == "" {
		scope = strings.Join(p.cfg.Scopes, " ")
	}
	return authRequest{client: client, redirect: q.Get("redirect_uri"), state: q.Get("state"), nonce: q.Get("nonce"),
		scope: scope, challenge: q.Get("code_challenge")}, ""
}

// validPKCE reports whether s is between min and max characters of the
// code verifier alphabet (RFC 7636 §4.1), which a base64url S256
// challenge is also made of.
func validPKCE(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// authorize shows the consent page, or, with AutoApprove and a request
// from this machine, signs the first user in at once.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	req, msg := p.parseAuthorize(r.URL.Query())
	if msg != "" {
		p.log.Info("devidp: authorization request refused", "reason", msg)
		http.Error(w, "dev identity provider: "+msg, http.StatusBadRequest)
		return
	}
	if p.cfg.AutoApprove && loopbackPeer(r.RemoteAddr) && navigation(r) {
		p.approve(w, r, req, p.cfg.Users[0], http.StatusFound)
		return
	}
	p.showConsent(w, r, req)
}

// approve issues a code for user and sends the browser back to the client.
func (p *Provider) approve(w http.ResponseWriter, r *http.Request, req authRequest, user User, status int) {
	code := random(24)
	g := grant{client: req.client, scope: req.scope, nonce: req.nonce, challenge: req.challenge, redirect: req.redirect,
		user: user, exp: time.Now().Add(codeTTL)}
	if !p.put(p.codes, code, g) {
		http.Error(w, "dev identity provider: too many codes waiting to be exchanged", http.StatusServiceUnavailable)
		return
	}
	p.back(w, r, req, url.Values{"code": {code}}, status)
}

// back redirects to the request's redirect URI (checked by
// parseAuthorize) with v, the state and the issuer (RFC 9207).
func (p *Provider) back(w http.ResponseWriter, r *http.Request, req authRequest, v url.Values, status int) {
	u, _ := url.Parse(req.redirect)
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	q.Set("iss", p.cfg.Issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), status)
}

// put stores g under k in m unless m is full of grants that have not
// expired.
func (p *Provider) put(m map[string]grant, k string, g grant) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(m) >= maxGrants {
		now := time.Now()
		for k, g := range m {
			if now.After(g.exp) {
				delete(m, k)
			}
		}
		if len(m) >= maxGrants {
			return false
		}
	}
	m[k] = g
	return true
}

// take removes and returns the grant stored under k in m, if it has not
// expired.
func (p *Provider) take(m map[string]grant, k string) (grant, bool) {
	p.mu.Lock()
	g, ok := m[k]
	delete(m, k)
	p.mu.Unlock()
	return g, ok && time.Now().Before(g.exp)
}

// client authenticates the caller of the token endpoint: the confidential
// client by client_secret_basic (RFC 6749 §2.3.1: form-encoded values)
// or client_secret_post, a registered public client by its client_id.
func (p *Provider) client(r *http.Request) (string, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		if v, err := url.QueryUnescape(id); err == nil {
			id = v
		}
		if v, err := url.QueryUnescape(secret); err == nil {
			secret = v
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == p.cfg.ClientID {
		return id, subtle.ConstantTimeCompare([]byte(secret), []byte(p.cfg.ClientSecret)) == 1
	}
	p.mu.Lock()
	_, ok := p.clients[id]
	p.mu.Unlock()
	return id, ok && secret == ""
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the body must be a form")
		return
	}
	client, ok := p.client(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="devidp"`)
		writeError(w, http.StatusUnauthorized, "invalid_client", "wrong client_id or client_secret")
		return
	}
	g, code, desc := p.redeem(r.PostForm, client)
	if code != "" {
		writeError(w, http.StatusBadRequest, code, desc)
		return
	}
	now := time.Now()
	at, err := p.accessToken(g, now, accessTTL)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "signing the access token")
		return
	}
	rt := random(24)
	rg := g
	rg.exp = now.Add(refreshTTL)
	if !p.put(p.rts, rt, rg) {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many refresh tokens")
		return
	}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(accessTTL.Seconds()), "refresh_token": rt, "scope": g.scope}
	if slices.Contains(strings.Fields(g.scope), "openid") {
		idt, err := p.idToken(g, client, now)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "server_error", "signing the ID token")
			return
		}
		resp["id_token"] = idt
	}
	writeJSON(w, http.StatusOK, resp)
}

// redeem takes the grant a token request f of client redeems: an
// authorization code (with its redirect_uri and PKCE verifier) or a
// refresh token, each used once. On failure it returns the OAuth error
// code and description.
func (p *Provider) redeem(f url.Values, client string) (g grant, code, desc string) {
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := p.take(p.codes, f.Get("code"))
		verifier := f.Get("code_verifier")
		sum := sha256.Sum256([]byte(verifier))
		if !ok || c.client != client || f.Get("redirect_uri") != c.redirect || !validPKCE(verifier, 43, 128) ||
			subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(c.challenge)) != 1 {
			return g, "invalid_grant", "unknown, expired or used code, or wrong client, redirect_uri or code_verifier"
		}
		return c, "", ""
	case "refresh_token":
		rt, ok := p.take(p.rts, f.Get("refresh_token"))
		if !ok || rt.client != client {
			return g, "invalid_grant", "unknown, expired or used refresh token"
		}
		rt.nonce = "" // an ID token from a refresh carries no nonce (OpenID Connect Core §12.2)
		return rt, "", ""
	}
	return g, "unsupported_grant_type", "authorization_code or refresh_token"
}

// idToken signs the ID token of grant g for client, issued at now.
func (p *Provider) idToken(g grant, client string, now time.Time) (string, error) {
	claims := p.userClaims(g.user)
	claims["iss"], claims["aud"], claims["iat"], claims["exp"] = p.cfg.Issuer, client, now.Unix(), now.Add(accessTTL).Unix()
	claims["azp"] = client
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	return jwt.Signed(p.signer).Claims(claims).Serialize()
}

// userClaims are the claims that say who u is.
func (p *Provider) userClaims(u User) map[string]any {
	c := map[string]any{"sub": u.Subject}
	if u.Email != "" {
		c["email"], c["email_verified"] = u.Email, true
	}
	if u.Name != "" {
		c["name"] = u.Name
	}
	return c
}

func (p *Provider) accessToken(g grant, now time.Time, ttl time.Duration) (string, error) {
	if p.cfg.Audience == "" {
		at := random(24)
		g.exp = now.Add(ttl)
		if !p.put(p.tokens, at, g) {
			return "", errFull
		}
		return at, nil
	}
	c := p.userClaims(g.user)
	c["iss"], c["aud"], c["iat"], c["nbf"], c["exp"] = p.cfg.Issuer, p.cfg.Audience, now.Unix(), now.Unix(), now.Add(ttl).Unix()
	c["scope"], c["client_id"], c["jti"] = g.scope, g.client, random(12)
	return jwt.Signed(p.atSigner).Claims(c).Serialize()
}

var errFull = errors.New("devidp: too many access tokens")

func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	g, ok := p.tokens[tok]
	p.mu.Unlock()
	if tok == "" || !ok || time.Now().After(g.exp) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "invalid_token", "unknown or expired access token")
		return
	}
	writeJSON(w, http.StatusOK, p.userClaims(g.user))
}
