package providers

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// rtRecord is a refresh token we issued, stored under rt:{sha256(rt)}
// until used (once: each use rotates it).
type rtRecord struct {
	ClientID string   `json:"client_id"`
	GrantID  string   `json:"gid"`
	Scopes   []string `json:"scopes"`
	Subject  string   `json:"sub"`
}

var pkceVerifier = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// authClient authenticates the client at the token and revocation
// endpoints: HTTP Basic (RFC 6749 §2.3.1, values form-decoded) or form
// client_id/client_secret, not both; public clients send client_id only.
//
// A confidential client may use either method whatever
// token_endpoint_auth_method it registered: clients in the field register
// client_secret_post and then send Basic (they pick Basic whenever the
// metadata lists it), and proving the secret either way is equally
// strong. TestClientSecretPostClientMayUseBasic pins this: do not tighten
// it to the registered method.
func (p *Proxy) authClient(w http.ResponseWriter, r *http.Request) (*client, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		if r.PostForm.Get("client_secret") != "" {
			oauthError(w, http.StatusBadRequest, "invalid_request", "send the client credentials either in the Authorization header or in the form, not both")
			return nil, false
		}
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			p.invalidClient(w, true, "the Basic credentials are not form-encoded")
			return nil, false
		}
		if fid := r.PostForm.Get("client_id"); fid != "" && fid != id {
			oauthError(w, http.StatusBadRequest, "invalid_request", "client_id in the form differs from the Authorization header")
			return nil, false
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c, err := p.loadClient(r, id)
	if errors.Is(err, errCIMD) {
		p.invalidClient(w, basic, "the client metadata document cannot be used: "+cimdReason(err))
		return nil, false
	} else if errors.Is(err, errNoClient) {
		p.invalidClient(w, basic, "unknown client_id")
		return nil, false
	} else if err != nil {
		p.log.Error("loading client", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the client could not be looked up")
		return nil, false
	}
	if c.SecretHash == "" {
		if secret != "" {
			p.invalidClient(w, basic, "this is a public client; it has no secret")
			return nil, false
		}
		return c, true
	}
	if !eq(hashKey(secret), c.SecretHash) {
		p.invalidClient(w, basic, "wrong or missing client_secret")
		return nil, false
	}
	return c, true
}

func (p *Proxy) invalidClient(w http.ResponseWriter, basic bool, desc string) {
	if basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	oauthError(w, http.StatusUnauthorized, "invalid_client", desc)
}

// clientPost reads the form of a POST to the token or revocation
// endpoint and authenticates the client; when it reports false it has
// answered (405, 400 or 401).
func (p *Proxy) clientPost(w http.ResponseWriter, r *http.Request) (*client, bool) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, "POST")
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded (at most 64 KiB)")
		return nil, false
	}
	return p.authClient(w, r)
}

// handleToken is POST /oauth/token.
func (p *Proxy) handleToken(w http.ResponseWriter, r *http.Request) {
	c, ok := p.clientPost(w, r)
	if !ok {
		return
	}
	gt := r.PostForm.Get("grant_type")
	if gt != "" && !slices.Contains(c.GrantTypes, gt) {
		oauthError(w, http.StatusBadRequest, "unauthorized_client", "this client did not register the grant type "+strictjson.Quote(gt))
		return
	}
	switch gt {
	case "authorization_code":
		p.codeGrant(w, r, c)
	case "refresh_token":
		p.refreshGrant(w, r, c)
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
}

func (p *Proxy) codeGrant(w http.ResponseWriter, r *http.Request, c *client) {
	ctx := r.Context()
	f := r.PostForm
	code := f.Get("code")
	if code == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "code is required")
		return
	}
	var rec codeRecord
	if !p.takeOnce(w, r, c, oneTime{kind: "code", ttl: p.cfg.AccessTokenTTL,
		replayed: "the authorization code was already used; the tokens issued for it are revoked",
		unknown:  "the authorization code is unknown or expired", logged: "authorization code replayed; its grant is revoked",
	}, code, &rec, func() string { return rec.GrantID }) {
		return
	}
	reject := func(desc string) {
		_ = p.store.Delete(ctx, "grant:"+rec.GrantID) // the code is burnt, and so is its grant
		oauthError(w, http.StatusBadRequest, "invalid_grant", desc)
	}
	switch {
	case rec.ClientID != c.ID:
		reject("the authorization code was issued to another client")
		return
	case f.Has("redirect_uri") && f.Get("redirect_uri") != rec.RedirectURI:
		reject("redirect_uri differs from the one of the authorization request")
		return
	case !pkceVerifier.MatchString(f.Get("code_verifier")):
		reject("code_verifier is missing or malformed (43 to 128 characters of A-Z a-z 0-9 - . _ ~)")
		return
	case !eq(s256(f.Get("code_verifier")), rec.CodeChallenge):
		reject("code_verifier does not match the code_challenge")
		return
	case !p.resourceOK(f["resource"]):
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource must be "+p.resource)
		return
	}
	p.issue(w, r, c, rtRecord{ClientID: c.ID, GrantID: rec.GrantID, Scopes: rec.Scopes, Subject: rec.Subject},
		min(p.cfg.RefreshTokenTTL, p.cfg.MaxLoginLifetime))
}

// oneTime names the storage key prefix and answers of a secret that may
// be used once (an authorization code, a refresh token).
type oneTime struct {
	kind              string // key prefix of the secret's record
	ttl               time.Duration
	replayed, unknown string // invalid_grant descriptions
	logged            string // the warning logged on a replay
}

// usedMark replaces the record of a used code or refresh token, for ttl,
// so that a second use is recognised as a replay and revokes the grant.
type usedMark struct {
	Used    bool   `json:"used"`
	GrantID string `json:"gid"`
}

// takeOnce swaps the record of secret for a used mark, atomically (so of
// concurrent uses exactly one gets the record), and decodes the record
// into rec (grant returns the record's grant ID once rec is filled). A
// use that finds the mark is a replay: it revokes the grant the secret
// names (RFC 6749 §4.1.2; refresh-token reuse detection) and is answered
// invalid_grant, as is an unknown secret; takeOnce then reports false,
// having answered. Secrets are {grant id}.{random}, so the mark names
// the grant from the start and a replay racing the first use revokes it;
// one of another shape is unknown without a storage call.
func (p *Proxy) takeOnce(w http.ResponseWriter, r *http.Request, c *client, k oneTime, secret string, rec any, grant func() string) bool {
	ctx := r.Context()
	key := k.kind + ":" + hashKey(secret)
	gid, _, named := strings.Cut(secret, ".")
	if !named || gid == "" {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown) // not one of ours
		return false
	}
	b, err := p.store.Swap(ctx, key, p.seal.seal(key, marshal(usedMark{Used: true, GrantID: gid})), k.ttl)
	if errors.Is(err, ErrNotFound) {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return false
	} else if err != nil {
		p.log.Error("taking a one-time record", "kind", k.kind, "err", err)
		unavailable(w, "the grant could not be checked; try again")
		return false
	}
	plain, err := p.seal.open(key, b)
	var mark usedMark
	if err == nil {
		err = json.Unmarshal(plain, &mark)
	}
	if err != nil {
		p.log.Error("a stored one-time record does not open", "kind", k.kind, "err", err)
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return false
	}
	if mark.Used {
		if err := p.store.Delete(ctx, "grant:"+mark.GrantID); err != nil {
			p.log.Error("revoking the grant of a replayed secret", "kind", k.kind, "err", err)
		}
		p.log.Warn(k.logged, "client_id", c.ID)
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.replayed)
		return false
	}
	if err := json.Unmarshal(plain, rec); err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "the stored record does not decode")
		return false
	}
	if gid != grant() {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return false
	}
	return true
}

// unavailable answers 503 when the storage failed: the client may retry.
func unavailable(w http.ResponseWriter, desc string) {
	w.Header().Set("Retry-After", "1")
	oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", desc)
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (p *Proxy) refreshGrant(w http.ResponseWriter, r *http.Request, c *client) {
	ctx := r.Context()
	rt := r.PostForm.Get("refresh_token")
	if rt == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "refresh_token is required")
		return
	}
	// Before the refresh token is spent: may the login go on upstream? A
	// transient failure answers 503 with the refresh token still good.
	if ok := p.precheckRefresh(w, r, c, rt); !ok {
		return
	}
	// Reuse of a rotated refresh token means someone holds a stolen copy:
	// the whole family (the grant) is revoked.
	var rec rtRecord
	if !p.takeOnce(w, r, c, oneTime{kind: "rt", ttl: p.cfg.RefreshTokenTTL,
		replayed: "the refresh token was already used; every token of this login is revoked",
		unknown:  "the refresh token is unknown, expired or revoked", logged: "refresh token reused; its grant is revoked",
	}, rt, &rec, func() string { return rec.GrantID }) {
		return
	}
	if rec.ClientID != c.ID {
		_ = p.store.Delete(ctx, "grant:"+rec.GrantID)
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client")
		return
	}
	g, err := p.loadGrant(ctx, rec.GrantID)
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the login behind this refresh token was revoked")
		return
	}
	if s := r.PostForm.Get("scope"); s != "" {
		want := strings.Fields(s)
		for _, sc := range want {
			if !slices.Contains(rec.Scopes, sc) {
				oauthError(w, http.StatusBadRequest, "invalid_scope", "a refresh may only narrow the granted scopes ("+strings.Join(rec.Scopes, " ")+")")
				return
			}
		}
		rec.Scopes = want
	}
	if !p.resourceOK(r.PostForm["resource"]) {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource must be "+p.resource)
		return
	}
	if g.LoginAt == 0 {
		g.LoginAt = p.now().Unix() // a grant of an older version: its lifetime starts now
	}
	// Slide the grant's lifetime, unless it was revoked meanwhile (then
	// it stays revoked and this refresh fails).
	if err := p.saveGrant(ctx, rec.GrantID, g, false); errors.Is(err, ErrNotFound) {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the login behind this refresh token was revoked")
		return
	} else if err != nil {
		p.log.Error("saving the grant", "err", err)
		unavailable(w, "the login could not be updated; try again")
		return
	}
	p.issue(w, r, c, rec, p.ttl(g))
}

// precheckRefresh reads (without spending it) the record of refresh
// token rt and runs checkLogin on its grant. It reports false when it has
// answered: invalid_grant when the login is over (its grant is deleted),
// 503 when the provider could not be asked (the client may retry with
// the same refresh token). Unknown or spent tokens are left to takeOnce.
func (p *Proxy) precheckRefresh(w http.ResponseWriter, r *http.Request, c *client, rt string) bool {
	ctx := r.Context()
	key := "rt:" + hashKey(rt)
	b, err := p.store.Get(ctx, key)
	if err != nil {
		return true
	}
	plain, err := p.seal.open(key, b)
	var mark usedMark
	var rec rtRecord
	if err != nil || json.Unmarshal(plain, &mark) != nil || mark.Used || json.Unmarshal(plain, &rec) != nil || rec.ClientID != c.ID {
		return true
	}
	g, err := p.loadGrant(ctx, rec.GrantID)
	if err != nil {
		return true
	}
	err = p.checkLogin(ctx, rec.GrantID, g)
	switch {
	case err == nil:
		return true
	case errors.Is(err, errLoginOver), errors.Is(err, ErrUpstreamRevoked), errors.Is(err, ErrNotFound):
		if err := p.store.Delete(ctx, "grant:"+rec.GrantID); err != nil {
			p.log.Error("ending a login", "err", err)
		}
		p.log.Info("login ended at refresh", "client_id", c.ID, "sub", g.Identity.Subject, "reason", err)
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the login is over: "+loginOverReason(err)+"; sign in again")
	default:
		p.log.Warn("refresh: the upstream provider could not be asked", "client_id", c.ID, "err", err)
		unavailable(w, "the identity provider could not be reached; try again")
	}
	return false
}

func loginOverReason(err error) string {
	switch {
	case errors.Is(err, errLoginOver):
		return "it is older than its maximum lifetime"
	case errors.Is(err, ErrUpstreamRevoked):
		return "the identity provider ended it"
	}
	return "it was revoked"
}

// issue mints an access token and a fresh refresh token (living rtTTL)
// for rec.
func (p *Proxy) issue(w http.ResponseWriter, r *http.Request, c *client, rec rtRecord, rtTTL time.Duration) {
	now := p.now()
	at, err := p.jwt.mint(AccessTokenClaims{
		Claims: jwt.Claims{Issuer: p.issuer, Audience: jwt.Audience{p.resource}, Subject: rec.Subject,
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			Expiry: jwt.NewNumericDate(now.Add(p.cfg.AccessTokenTTL)), ID: randomToken(16)},
		ClientID: c.ID, Scope: strings.Join(rec.Scopes, " "), GrantID: rec.GrantID,
	})
	if err != nil {
		p.log.Error("minting access token", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the access token could not be minted")
		return
	}
	rt := rec.GrantID + "." + randomToken(32) // names its grant: see takeOnce
	key := "rt:" + hashKey(rt)
	if err := p.store.Put(r.Context(), key, p.seal.seal(key, marshal(rec)), rtTTL); err != nil {
		p.log.Error("storing refresh token", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the refresh token could not be stored")
		return
	}
	p.touchClient(r.Context(), c)
	resp := map[string]any{"access_token": at, "token_type": "Bearer",
		"expires_in": int(p.cfg.AccessTokenTTL / time.Second), "refresh_token": rt}
	if len(rec.Scopes) > 0 {
		resp["scope"] = strings.Join(rec.Scopes, " ")
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleRevoke is POST /oauth/revoke (RFC 7009). A refresh token revokes
// its whole login; an access token is denied until it expires. Unknown
// tokens, and tokens of other clients, get 200 and change nothing. When
// the storage fails the answer is 503 (RFC 7009 §2.2.1), so the client
// retries, rather than a 200 for a revocation that did not happen.
func (p *Proxy) handleRevoke(w http.ResponseWriter, r *http.Request) {
	c, ok := p.clientPost(w, r)
	if !ok {
		return
	}
	tok := r.PostForm.Get("token")
	if tok == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "token is required")
		return
	}
	ctx := r.Context()
	failed := func(err error) {
		p.log.Error("revocation not recorded", "client_id", c.ID, "err", err)
		unavailable(w, "the revocation could not be recorded; try again")
	}
	if strings.Count(tok, ".") == 2 {
		if claims, err := p.jwt.verify(tok, p.now()); err == nil && claims.ClientID == c.ID {
			ttl := time.Until(claims.Expiry.Time()) + ClockSkew
			if err := p.store.Put(ctx, "revoked_jti:"+claims.ID, []byte("1"), ttl); err != nil {
				failed(err)
				return
			}
			p.log.Info("access token revoked", "client_id", c.ID)
		}
	} else {
		key := "rt:" + hashKey(tok)
		b, err := p.store.Get(ctx, key)
		if err != nil && !errors.Is(err, ErrNotFound) {
			failed(err)
			return
		}
		var rec rtRecord
		var mark usedMark
		if err == nil {
			plain, err := p.seal.open(key, b)
			if err == nil && json.Unmarshal(plain, &mark) == nil && !mark.Used &&
				json.Unmarshal(plain, &rec) == nil && rec.ClientID == c.ID {
				if err := p.store.Delete(ctx, "grant:"+rec.GrantID); err != nil {
					failed(err)
					return
				}
				_ = p.store.Delete(ctx, key) // useless without its grant anyway
				p.log.Info("refresh token revoked with its login", "client_id", c.ID)
			}
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
