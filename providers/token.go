package providers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/resourceserver"
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
	case resourceserver.JWTBearerGrant:
		p.assertionGrant(w, r, c) // only enterprise clients registered it
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token"+
			" (or, for a client of the enterprise-managed authorization, "+resourceserver.JWTBearerGrant+")")
	}
}

func (p *Proxy) codeGrant(w http.ResponseWriter, r *http.Request, c *client) {
	f := r.PostForm
	code := f.Get("code")
	if code == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "code is required")
		return
	}
	k := oneTime{kind: "code", ttl: p.cfg.AccessTokenTTL,
		replayed: "the authorization code was already used; the tokens issued for it are revoked",
		unknown:  "the authorization code is unknown or expired", logged: "authorization code replayed; its grant is revoked"}
	u, ok := p.peekOnce(w, r, c, k, code)
	if !ok {
		return
	}
	var rec codeRecord
	if err := json.Unmarshal(u.rec, &rec); err != nil || rec.GrantID != u.gid {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return
	}
	switch {
	case rec.ClientID != c.ID:
		p.burn(w, r, u, "the authorization code was issued to another client")
		return
	case f.Has("redirect_uri") && f.Get("redirect_uri") != rec.RedirectURI:
		p.burn(w, r, u, "redirect_uri differs from the one of the authorization request")
		return
	case !pkceVerifier.MatchString(f.Get("code_verifier")):
		p.burn(w, r, u, "code_verifier is missing or malformed (43 to 128 characters of A-Z a-z 0-9 - . _ ~)")
		return
	case !eq(s256(f.Get("code_verifier")), rec.CodeChallenge):
		p.burn(w, r, u, "code_verifier does not match the code_challenge")
		return
	case !p.resourceOK(f["resource"]):
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource must be "+p.resource)
		return
	}
	p.issue(w, r, c, u, rtRecord{ClientID: c.ID, GrantID: rec.GrantID, Scopes: rec.Scopes, Subject: rec.Subject},
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

// spentRefreshTTL is how long the used mark of a refresh token lives: the
// time a client may take to retry a refresh whose answer it lost. Later,
// a replay is recognised by the token's MAC (issuedRefreshToken) and its
// missing record, so the storage holds no record per spent token.
const spentRefreshTTL = 10 * time.Minute

// usedMark replaces the record of a used code or refresh token, for ttl,
// so that a second use is recognised as a replay and revokes the grant.
type usedMark struct {
	Used    bool   `json:"used"`
	GrantID string `json:"gid"`
	// Next is the storage key of the refresh token issued for this use,
	// and Rec the record the mark replaced. When Next is not stored, the
	// answer of this use never reached the client (it failed after the
	// mark was written, and its refresh token was deleted): the client's
	// retry is then no replay, and Rec serves it. "" for a burnt code.
	Next string          `json:"next,omitempty"`
	Rec  json.RawMessage `json:"rec,omitempty"`
}

// retriable reports whether a used mark of grant gid names the refresh
// token its use issued and keeps the record it replaced: if that token is
// not stored, the use's answer was lost and a retry is served again.
func (m usedMark) retriable(gid string) bool {
	return m.GrantID == gid && m.Next != "" && len(m.Rec) > 0
}

// oneTimeUse is a code or refresh token being used: read, not yet spent.
type oneTimeUse struct {
	k   oneTime
	key string // storage key of its record
	gid string // the grant it names
	raw []byte // the stored value as read: spend succeeds only if it is still that
	rec []byte // the record (plain JSON)
}

// peekOnce reads the record of a one-time secret without spending it, so
// that every check, and the storing of what replaces it, can fail and
// leave it good for a retry. Secrets are {grant id}.{random}: one of
// another shape is unknown without a storage call. A record already
// marked used is a replay (RFC 6749 §4.1.2; refresh-token reuse
// detection), which revokes the grant the secret names, unless the mark
// says the use that wrote it never answered (see usedMark.Next); an
// unknown secret is invalid_grant too. peekOnce reports false when it has
// answered.
func (p *Proxy) peekOnce(w http.ResponseWriter, r *http.Request, c *client, k oneTime, secret string) (*oneTimeUse, bool) {
	ctx := r.Context()
	u := &oneTimeUse{k: k, key: k.kind + ":" + hashKey(secret)}
	gid, _, named := strings.Cut(secret, ".")
	if !named || gid == "" {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown) // not one of ours
		return nil, false
	}
	u.gid = gid
	b, err := p.store.Get(ctx, u.key)
	if errors.Is(err, ErrNotFound) && k.kind == "rt" && p.issuedRefreshToken(secret) {
		// A refresh token this proxy issued whose record is gone was
		// spent (its used mark lives only spentRefreshTTL): a replay, if
		// its login is still there to revoke.
		_, err = p.store.Get(ctx, "grant:"+gid)
		if err == nil {
			p.replayed(w, r, c, k, gid)
			return nil, false
		}
	}
	if errors.Is(err, ErrNotFound) {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return nil, false
	} else if err != nil {
		p.log.Error("reading a one-time record", "kind", k.kind, "err", err)
		unavailable(w, "the grant could not be checked; try again")
		return nil, false
	}
	u.raw = b
	plain, mark, err := p.openOneTime(u.key, b)
	if err != nil {
		p.log.Error("a stored one-time record does not open", "kind", k.kind, "err", err)
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return nil, false
	}
	if !mark.Used {
		u.rec = plain
		return u, true
	}
	if mark.retriable(gid) {
		lost, err := p.lostAnswer(ctx, mark, gid)
		if err != nil {
			p.log.Error("reading a one-time record", "kind", k.kind, "err", err)
			unavailable(w, "the grant could not be checked; try again")
			return nil, false
		}
		if lost {
			p.log.Info("a one-time secret used again after its answer was lost; served again", "kind", k.kind, "client_id", c.ID)
			u.rec = mark.Rec
			return u, true
		}
	}
	p.replayed(w, r, c, k, mark.GrantID)
	return nil, false
}

// lostAnswer reports whether the use that wrote mark never answered, so
// that a retry is served again: the refresh token the mark names is gone
// and the grant lives. A use that lost a race to another leaves the same
// mark behind, but only after revoking the grant as a replay and then
// deleting its refresh token, so it never passes. err: the storage failed.
func (p *Proxy) lostAnswer(ctx context.Context, mark usedMark, gid string) (bool, error) {
	_, err := p.store.Get(ctx, mark.Next)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return false, err
	}
	_, err = p.store.Get(ctx, "grant:"+gid)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// openOneTime unseals the stored one-time record b under key and reads
// its used mark.
func (p *Proxy) openOneTime(key string, b []byte) ([]byte, usedMark, error) {
	var mark usedMark
	plain, err := p.seal.open(key, b)
	if err == nil {
		err = json.Unmarshal(plain, &mark)
	}
	return plain, mark, err
}

// replayed answers the replay of a one-time secret: its grant is revoked.
func (p *Proxy) replayed(w http.ResponseWriter, r *http.Request, c *client, k oneTime, gid string) {
	if err := p.store.Delete(r.Context(), "grant:"+gid); err != nil {
		p.log.Error("revoking the grant of a replayed secret", "kind", k.kind, "err", err)
	}
	p.log.Warn(k.logged, "client_id", c.ID)
	oauthError(w, http.StatusBadRequest, "invalid_grant", k.replayed)
}

// burn spends u without issuing anything, and revokes its grant: a code
// or refresh token presented with the wrong client or PKCE verifier is
// dead, and so is every token of its login.
func (p *Proxy) burn(w http.ResponseWriter, r *http.Request, u *oneTimeUse, desc string) {
	ctx := r.Context()
	if _, err := p.store.Swap(ctx, u.key, p.seal.seal(u.key, marshal(usedMark{Used: true, GrantID: u.gid})), u.k.ttl); err != nil &&
		!errors.Is(err, ErrNotFound) {
		p.log.Error("marking a one-time secret used", "kind", u.k.kind, "err", err)
	}
	if err := p.store.Delete(ctx, "grant:"+u.gid); err != nil {
		p.log.Error("revoking a grant", "err", err)
	}
	oauthError(w, http.StatusBadRequest, "invalid_grant", desc)
}

// spend marks u used, naming next (the key of the refresh token issued
// for it), and reports whether this use is the one that spent it: the
// swap is atomic, and it wins only if it replaced exactly what peekOnce
// read. When it has not won it has answered: a concurrent use is a
// replay (the grant is revoked), a secret gone meanwhile is unknown, and
// a storage failure is 503, which the client retries (the mark, if it was
// written, lets the retry through: next is deleted here).
func (p *Proxy) spend(w http.ResponseWriter, r *http.Request, c *client, u *oneTimeUse, next string) bool {
	ctx := r.Context()
	mark := p.seal.seal(u.key, marshal(usedMark{Used: true, GrantID: u.gid, Next: next, Rec: u.rec}))
	old, err := p.store.Swap(ctx, u.key, mark, u.k.ttl)
	if err == nil && bytes.Equal(old, u.raw) {
		return true
	}
	dropNext := func() {
		if err := p.store.Delete(context.WithoutCancel(ctx), next); err != nil {
			p.log.Error("deleting a refresh token never handed out", "err", err)
		}
	}
	switch {
	case errors.Is(err, ErrNotFound):
		dropNext()
		oauthError(w, http.StatusBadRequest, "invalid_grant", u.k.unknown)
	case err != nil:
		dropNext()
		p.log.Error("marking a one-time secret used", "kind", u.k.kind, "err", err)
		unavailable(w, "the grant could not be updated; try again")
	default:
		// Another use spent it first: a replay. The grant is revoked
		// before next is deleted: the mark this swap wrote names next, and
		// a third use that found next gone while the grant lived would be
		// served again as an answer that was lost (peekOnce).
		p.replayed(w, r, c, u.k, u.gid)
		dropNext()
	}
	return false
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

// refreshScopes reads the scope of a refresh request: "" (or only
// spaces) keeps the granted scopes; otherwise at most maxScopeBytes, a
// subset of them, each once. ok false: it has answered invalid_scope.
func refreshScopes(w http.ResponseWriter, s string, granted []string) ([]string, bool) {
	if len(s) > maxScopeBytes {
		oauthError(w, http.StatusBadRequest, "invalid_scope", fmt.Sprintf("scope is longer than %d bytes", maxScopeBytes))
		return nil, false
	}
	want := strings.Fields(s)
	if len(want) == 0 {
		return granted, true
	}
	out := make([]string, 0, len(want))
	for _, sc := range want {
		if !slices.Contains(granted, sc) {
			oauthError(w, http.StatusBadRequest, "invalid_scope", "a refresh may only narrow the granted scopes ("+strings.Join(granted, " ")+")")
			return nil, false
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc) // a repeat counts once
		}
	}
	return out, true
}

func (p *Proxy) refreshGrant(w http.ResponseWriter, r *http.Request, c *client) {
	ctx := r.Context()
	rt := r.PostForm.Get("refresh_token")
	if rt == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "refresh_token is required")
		return
	}
	// Reuse of a rotated refresh token means someone holds a stolen copy:
	// the whole family (the grant) is revoked. Until the new refresh
	// token is stored, the one used stays good: every failure before
	// that leaves the client a retry.
	k := oneTime{kind: "rt", ttl: spentRefreshTTL,
		replayed: "the refresh token was already used; every token of this login is revoked",
		unknown:  "the refresh token is unknown, expired or revoked", logged: "refresh token reused; its grant is revoked"}
	u, ok := p.peekOnce(w, r, c, k, rt)
	if !ok {
		return
	}
	var rec rtRecord
	if err := json.Unmarshal(u.rec, &rec); err != nil || rec.GrantID != u.gid {
		oauthError(w, http.StatusBadRequest, "invalid_grant", k.unknown)
		return
	}
	if rec.ClientID != c.ID {
		p.burn(w, r, u, "the refresh token was issued to another client")
		return
	}
	g, err := p.loadGrant(ctx, rec.GrantID)
	if errors.Is(err, ErrNotFound) {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the login behind this refresh token was revoked")
		return
	} else if err != nil {
		p.log.Error("loading the grant", "err", err)
		unavailable(w, "the login could not be read; try again")
		return
	}
	// Each refresh leaves a used mark for spentRefreshTTL: refreshes are
	// limited per login, so that one client cannot fill the storage with
	// them. The refresh token stays good.
	if ok, wait, _ := p.rtLim.allowKey("grant:" + rec.GrantID); !ok {
		p.log.Warn("refreshes of one login rate-limited", "client_id", c.ID)
		w.Header().Set("Retry-After", strconv.Itoa(max(int(math.Ceil(wait.Seconds())), 1)))
		oauthError(w, http.StatusTooManyRequests, "temporarily_unavailable", "this login is refreshed too often; retry later with the same refresh token")
		return
	}
	// May the login go on upstream? A transient failure answers 503 with
	// the refresh token still good.
	if err := p.checkLogin(ctx, rec.GrantID, g); err != nil {
		p.refuseRefresh(ctx, w, c, rec.GrantID, g, err)
		return
	}
	scopes, ok := refreshScopes(w, r.PostForm.Get("scope"), rec.Scopes)
	if !ok {
		return
	}
	rec.Scopes = scopes
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
	p.issue(w, r, c, u, rec, p.ttl(g))
}

// refuseRefresh answers a refresh whose login check failed with err: a
// login that is over is ended (invalid_grant, sign in again); any other
// failure is transient (503, the refresh token still good).
func (p *Proxy) refuseRefresh(ctx context.Context, w http.ResponseWriter, c *client, gid string, g *grant, err error) {
	if errors.Is(err, errLoginOver) || errors.Is(err, ErrUpstreamRevoked) || errors.Is(err, ErrNotFound) {
		if err := p.store.Delete(ctx, "grant:"+gid); err != nil {
			p.log.Error("ending a login", "err", err)
		}
		p.log.Info("login ended at refresh", "client_id", c.ID, "sub", g.Identity.Subject, "reason", err)
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the login is over: "+loginOverReason(err)+"; sign in again")
		return
	}
	p.log.Warn("refresh: the upstream provider could not be asked", "client_id", c.ID, "err", err)
	unavailable(w, "the identity provider could not be reached; try again")
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
// for rec, in exchange for u (the code or refresh token used): the new
// refresh token is stored first, and u spent only then, so that a
// failure anywhere leaves u good and the client's retry works (503, or
// 400 when the request was wrong).
func (p *Proxy) issue(w http.ResponseWriter, r *http.Request, c *client, u *oneTimeUse, rec rtRecord, rtTTL time.Duration) {
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
	rt := p.newRefreshToken(rec.GrantID) // names its grant: see peekOnce
	key := "rt:" + hashKey(rt)
	if err := p.store.Put(r.Context(), key, p.seal.seal(key, marshal(rec)), rtTTL); err != nil {
		p.log.Error("storing refresh token", "err", err)
		unavailable(w, "the refresh token could not be stored; try again")
		return
	}
	if !p.spend(w, r, c, u, key) {
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
	revoke := p.revokeRefreshToken
	if strings.Count(tok, ".") == 2 && !p.issuedRefreshToken(tok) {
		revoke = p.revokeAccessToken
	}
	if err := revoke(r.Context(), c, tok); err != nil {
		p.log.Error("revocation not recorded", "client_id", c.ID, "err", err)
		unavailable(w, "the revocation could not be recorded; try again")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// revokeAccessToken denies access token tok until it expires, if it is
// valid and was issued to c; it returns an error only when the storage
// could not record the denial.
func (p *Proxy) revokeAccessToken(ctx context.Context, c *client, tok string) error {
	claims, err := p.jwt.verify(tok, p.now())
	if err != nil || claims.ClientID != c.ID {
		return nil
	}
	ttl := time.Until(claims.Expiry.Time()) + ClockSkew
	if err := p.store.Put(ctx, "revoked_jti:"+claims.ID, []byte("1"), ttl); err != nil {
		return err
	}
	p.log.Info("access token revoked", "client_id", c.ID)
	return nil
}

// revokeRefreshToken ends the login of refresh token tok, if it is
// unused and was issued to c; it returns an error only when the storage
// could not be read or the login not deleted.
func (p *Proxy) revokeRefreshToken(ctx context.Context, c *client, tok string) error {
	key := "rt:" + hashKey(tok)
	b, err := p.store.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	var rec rtRecord
	plain, mark, err := p.openOneTime(key, b)
	if err != nil || mark.Used || json.Unmarshal(plain, &rec) != nil || rec.ClientID != c.ID {
		return nil
	}
	if err := p.store.Delete(ctx, "grant:"+rec.GrantID); err != nil {
		return err
	}
	_ = p.store.Delete(ctx, key) // useless without its grant anyway
	p.log.Info("refresh token revoked with its login", "client_id", c.ID)
	return nil
}
