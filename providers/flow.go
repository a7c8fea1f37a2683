package providers

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// txn is one authorization in progress, stored sealed under txn:{id}
// from /oauth/authorize until the upstream callback takes it. Its upstream
// secrets (the state's secret, the PKCE verifier, the nonce and the
// browser binding) are drawn when it is created, so that approving it
// twice (a double click) sends the browser the same way twice; they leave
// the server only once the user has approved.
type txn struct {
	ID            string   `json:"id"`
	ClientID      string   `json:"client_id"`
	ClientName    string   `json:"client_name,omitempty"`
	RedirectURI   string   `json:"redirect_uri"`
	State         string   `json:"state,omitempty"`
	CodeChallenge string   `json:"code_challenge"`
	Scopes        []string `json:"scopes"`
	Resource      string   `json:"resource,omitempty"`
	CSRF          string   `json:"csrf"`
	// Approved is set when the user approves (at once without consent):
	// the callback completes only an approved transaction.
	Approved bool `json:"approved,omitempty"`
	// UState is the secret of the upstream state ({id}.{UState}).
	UState   string `json:"ustate"`
	Binding  string `json:"binding"`
	Verifier string `json:"verifier"`
	Nonce    string `json:"nonce"`
	// SignIn marks a browser sign-in to this server's own pages
	// (signin.go): no client, no consent; the callback sends the browser
	// to ReturnTo, a path of this server.
	SignIn   bool   `json:"signin,omitempty"`
	ReturnTo string `json:"return_to,omitempty"`
}

// upstreamState is the state parameter of t's upstream authorization
// request: the transaction's id, which finds it, and a secret the
// callback compares.
func (t *txn) upstreamState() string { return t.ID + "." + t.UState }

// codeRecord is an authorization code we issued, stored under
// code:{sha256(code)} until redeemed (once).
type codeRecord struct {
	ClientID      string   `json:"client_id"`
	RedirectURI   string   `json:"redirect_uri"`
	CodeChallenge string   `json:"code_challenge"`
	Scopes        []string `json:"scopes"`
	GrantID       string   `json:"gid"`
	Subject       string   `json:"sub"`
}

var pkceChallenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// handleAuthorize is GET /oauth/authorize.
func (p *Proxy) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	// Each start stores a transaction for 10 minutes: limited per address.
	if ok, wait, addr := p.authLim.allow(r); !ok {
		p.log.Warn("authorization start rate-limited", "addr", addr)
		refuse(w, wait, false)
		return
	}
	q := r.URL.Query()
	c, err := p.loadClient(r, q.Get("client_id"))
	if err != nil {
		p.clientLookupPage(w, q.Get("client_id"), err)
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	// Never redirect to a URI that is not registered, nor one the patterns
	// no longer allow (RFC 6749 §4.1.2.1): show the error here instead.
	if !p.redirectAllowed(redirect, c.RedirectURIs) {
		p.errorPage(w, http.StatusBadRequest, "Invalid redirect address", "The address this application wants to send you back to ("+strconvQuote(redirect)+") is not one it registered. Nothing was shared.")
		return
	}
	state := q.Get("state")
	// Before the user has interacted, an error goes back only to a
	// redirect URI the operator listed exactly or a loopback one; any
	// other is shown here, so that the server is not an open redirector
	// for whoever registers https://evil.example (RFC 9700 §4.11.2).
	trusted := trustedRedirect(redirect, p.patterns)
	fail := func(code, desc string) {
		if !trusted {
			p.errorPage(w, http.StatusBadRequest, "Invalid sign-in request", "The application's request was refused ("+code+": "+desc+
				"). You were not sent back to "+strconvQuote(redirect)+". Nothing was shared.")
			return
		}
		http.Redirect(w, r, p.clientRedirect(redirect, url.Values{"error": {code}, "error_description": {desc}, "state": {state}}), http.StatusFound)
	}
	if code, desc := p.authorizeParamError(q); code != "" {
		fail(code, desc)
		return
	}
	if len(state) > maxState {
		state = "" // not echoed back either
		fail("invalid_request", fmt.Sprintf("state is longer than %d bytes", maxState))
		return
	}
	scopes, ok := p.allowedScopes(q.Get("scope"))
	if !ok {
		fail("invalid_scope", "scope may only contain: "+strings.Join(p.cfg.Scopes, " "))
		return
	}
	t := &txn{ID: randomToken(24), ClientID: c.ID, ClientName: c.Name, RedirectURI: redirect, State: state,
		CodeChallenge: q.Get("code_challenge"), Scopes: scopes, Resource: q.Get("resource"), CSRF: randomToken(24),
		Approved: p.cfg.DisableConsent, UState: randomToken(24), Binding: randomToken(24),
		Verifier: oauth2.GenerateVerifier(), Nonce: randomToken(16)}
	if err := p.putTxn(r.Context(), t); errors.Is(err, ErrStorageFull) {
		// The transactions' own quota is full (a flood of anonymous
		// starts, say): new sign-ins wait; logins already made are not
		// touched, their records have room of their own.
		p.log.Warn("authorization refused: the quota of authorizations in progress is full")
		w.Header().Set("Retry-After", "60")
		busy := "this server has as many sign-ins in progress as it can hold; try again in a few minutes"
		if !trusted {
			p.errorPage(w, http.StatusServiceUnavailable, "Too many sign-ins in progress", "The server is busy: "+busy+". Nothing was shared.")
			return
		}
		fail("temporarily_unavailable", busy)
		return
	} else if err != nil {
		p.log.Error("storing transaction", "err", err)
		fail("server_error", "the authorization could not be stored")
		return
	}
	if p.cfg.DisableConsent {
		p.approve(w, r, t)
		return
	}
	http.Redirect(w, r, p.basePath+ConsentPath+"?txn="+url.QueryEscape(t.ID), http.StatusFound)
}

// clientLookupPage shows why the client_id of an authorization request
// cannot be used: its metadata document is unusable, it is not
// registered, or the lookup itself failed.
func (p *Proxy) clientLookupPage(w http.ResponseWriter, clientID string, err error) {
	switch {
	case errors.Is(err, errCIMD):
		p.errorPage(w, http.StatusBadRequest, "Unusable application", "The application that sent you here identifies itself by the document at "+
			strconvQuote(clientID)+", which this server cannot use: "+cimdReason(err)+". Nothing was shared.")
	case errors.Is(err, errNoClient):
		p.errorPage(w, http.StatusBadRequest, "Unknown application", "The application that sent you here is not registered with this server (client_id "+strconvQuote(clientID)+"). Nothing was shared.")
	default:
		p.log.Error("loading client", "err", err)
		p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "The server could not look up the application. Try again later.")
	}
}

// authorizeParamError checks an authorization request's parameters other
// than the client, redirect and state: response_type code, PKCE with S256,
// the resource and the scope's size. It returns the OAuth error code and
// description of the first that fails, or "" when all pass.
func (p *Proxy) authorizeParamError(q url.Values) (code, desc string) {
	switch {
	case q.Get("response_type") != "code":
		return "unsupported_response_type", "response_type must be code"
	case q.Get("code_challenge") == "":
		return "invalid_request", "code_challenge is required: this server requires PKCE with S256"
	case q.Get("code_challenge_method") != "S256":
		return "invalid_request", "code_challenge_method must be S256 (plain is not accepted)"
	case !pkceChallenge.MatchString(q.Get("code_challenge")):
		return "invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the verifier"
	case !p.resourceOK(q["resource"]):
		return "invalid_target", "resource must be " + p.resource
	case len(q.Get("scope")) > maxScopeBytes:
		return "invalid_scope", fmt.Sprintf("scope is longer than %d bytes", maxScopeBytes)
	}
	return "", ""
}

func strconvQuote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return "“" + s + "”"
}

// putTxn stores a new transaction, sealed like every record that holds a
// secret (the upstream PKCE verifier, nonce, state and browser binding).
func (p *Proxy) putTxn(ctx context.Context, t *txn) error {
	key := TransactionKeyPrefix + t.ID
	return p.store.Put(ctx, key, p.seal.seal(key, marshal(t)), transactionTTL)
}

// updateTxn writes t back only if it is still stored (Update), so that a
// transaction the callback took, or a denial deleted, is not brought
// back; that case is ErrNotFound.
func (p *Proxy) updateTxn(ctx context.Context, t *txn) error {
	key := TransactionKeyPrefix + t.ID
	ok, err := p.store.Update(ctx, key, p.seal.seal(key, marshal(t)), transactionTTL)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return err
}

// getTxn reads (or, with take, takes) transaction id. A record that does
// not open (written by hand, by an older version, or tampered with) is
// not a transaction of ours: ErrNotFound, after a warning.
func (p *Proxy) getTxn(ctx context.Context, id string, take bool) (*txn, error) {
	if id == "" {
		return nil, ErrNotFound
	}
	get := p.store.Get
	if take {
		get = p.store.Take
	}
	key := TransactionKeyPrefix + id
	b, err := get(ctx, key)
	if err != nil {
		return nil, err
	}
	plain, err := p.seal.open(key, b)
	var t txn
	if err == nil {
		err = json.Unmarshal(plain, &t)
	}
	if err != nil || t.ID != id {
		p.log.Warn("a stored transaction does not open; treated as unknown", "err", err)
		return nil, fmt.Errorf("%w: %s does not open", ErrNotFound, key)
	}
	return &t, nil
}

// clientRedirect adds iss (RFC 9207) to every authorization response.
func (p *Proxy) clientRedirect(uri string, params url.Values) string {
	params.Set("iss", p.issuer)
	return redirectWith(uri, params)
}

// Cookie names; __Host- when served over https (the prefix requires it).
func (p *Proxy) cookieName(n string) string {
	if p.secure {
		return "__Host-" + n
	}
	return n
}

type csrfCookie struct {
	Txn  string `json:"t"`
	CSRF string `json:"c"`
}

type bindCookie struct {
	Txn     string `json:"t"`
	Binding string `json:"b"`
}

func (p *Proxy) setCookie(w http.ResponseWriter, name string, v any) error {
	enc, err := p.cookies.Encode(name, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: p.cookieName(name), Value: enc, Path: "/", HttpOnly: true,
		Secure: p.secure, SameSite: http.SameSiteLaxMode, MaxAge: int(transactionTTL.Seconds())})
	return nil
}

func (p *Proxy) readCookie(r *http.Request, name string, v any) bool {
	ck, err := r.Cookie(p.cookieName(name))
	return err == nil && p.cookies.Decode(name, ck.Value, v) == nil
}

func (p *Proxy) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: p.cookieName(name), Value: "", Path: "/", HttpOnly: true,
		Secure: p.secure, SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

func eq(a, b string) bool { return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// handleConsent is GET (show) and POST (decide) /oauth/consent.
func (p *Proxy) handleConsent(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		t, err := p.getTxn(r.Context(), r.URL.Query().Get("txn"), false)
		if err != nil || t.SignIn {
			p.errorPage(w, http.StatusBadRequest, "This sign-in request has expired", "Go back to the application and start again.")
			return
		}
		if err := p.setCookie(w, "mcp_csrf", csrfCookie{Txn: t.ID, CSRF: t.CSRF}); err != nil {
			p.log.Error("csrf cookie", "err", err)
			p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
			return
		}
		p.consentPage(w, r, t)
	case http.MethodPost:
		p.decideConsent(w, r)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

func (p *Proxy) decideConsent(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		p.errorPage(w, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	// Cross-site posts are refused whatever they carry.
	if !p.fromOwnPage(r) {
		p.errorPage(w, http.StatusForbidden, "Request refused", "The approval did not come from this server's own page.")
		return
	}
	t, err := p.getTxn(r.Context(), r.PostForm.Get("txn"), false)
	if err != nil || t.SignIn {
		p.errorPage(w, http.StatusBadRequest, "This sign-in request has expired", "Go back to the application and start again.")
		return
	}
	var ck csrfCookie
	form := r.PostForm.Get("csrf")
	if !p.readCookie(r, "mcp_csrf", &ck) || ck.Txn != t.ID || !eq(form, t.CSRF) || !eq(form, ck.CSRF) {
		p.errorPage(w, http.StatusForbidden, "Request refused", "The approval could not be verified (CSRF check failed). Go back to the application and start again.")
		return
	}
	switch r.PostForm.Get("action") {
	case "approve":
		// The CSRF cookie stays until the callback: a second click on
		// Approve, sent after the first answer arrived, is then answered
		// the same way rather than refused.
		p.approve(w, r, t)
	case "deny":
		p.clearCookie(w, "mcp_csrf")
		_ = p.store.Delete(r.Context(), TransactionKeyPrefix+t.ID)
		p.log.Info("consent denied", "client_id", t.ClientID)
		http.Redirect(w, r, p.clientRedirect(t.RedirectURI, url.Values{"error": {"access_denied"},
			"error_description": {"the user denied the request"}, "state": {t.State}}), http.StatusSeeOther)
	default:
		p.errorPage(w, http.StatusBadRequest, "Bad request", "action must be approve or deny.")
	}
}

// fromOwnPage reports whether a form post may come from this server's own
// consent page: neither Sec-Fetch-Site nor Origin names another site.
func (p *Proxy) fromOwnPage(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || o == "null" || o == p.origin
}

// redirectAllowed reports whether uri is one of the client's registered
// redirect URIs and the configured patterns still allow it.
func (p *Proxy) redirectAllowed(uri string, registered []string) bool {
	return redirectMatches(uri, registered) && checkRedirectURI(uri, p.patterns) == nil
}

// boundToBrowser reports whether the request carries the binding cookie
// of transaction t, set in the browser that approved it.
func (p *Proxy) boundToBrowser(r *http.Request, t *txn) bool {
	var bc bindCookie
	return p.readCookie(r, "mcp_bind", &bc) && bc.Txn == t.ID && eq(bc.Binding, t.Binding)
}

// upstreamRefusal is the error sent back to the client when upstream
// answered the authorization with error e: access_denied passes through,
// anything else is a server_error.
func upstreamRefusal(e string) url.Values {
	code := "server_error"
	if e == "access_denied" {
		code = "access_denied"
	}
	return url.Values{"error": {code}, "error_description": {"the identity provider answered: " + e}}
}

// approve sends the browser upstream: it marks the transaction approved
// (the callback completes no other), reveals the upstream state, PKCE
// challenge and nonce only now, after consent, and binds the transaction
// to this browser with a cookie the callback checks. Approving an
// approved transaction again (a double click) sends the browser the same
// way; it writes nothing.
func (p *Proxy) approve(w http.ResponseWriter, r *http.Request, t *txn) {
	ctx := r.Context()
	conf, err := p.upstreamConfig(ctx)
	if err != nil {
		p.log.Error("upstream configuration", "err", err)
		p.errorPage(w, http.StatusBadGateway, "The identity provider is unavailable", "Try again later.")
		return
	}
	if !t.Approved {
		t.Approved = true
		if err := p.updateTxn(ctx, t); errors.Is(err, ErrNotFound) {
			p.errorPage(w, http.StatusBadRequest, "This sign-in request has expired or was already used", "Go back to the application and start again.")
			return
		} else if err != nil {
			p.log.Error("storing transaction", "err", err)
			p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
			return
		}
	}
	if err := p.setCookie(w, "mcp_bind", bindCookie{Txn: t.ID, Binding: t.Binding}); err != nil {
		p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	// Upstream is asked for what the consent page showed, not for every
	// configured scope.
	conf.Scopes = upstreamScopes(conf.Scopes, p.cfg.Scopes, t.Scopes)
	opts := append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(t.Verifier)}, p.up.AuthCodeOptions(t.Nonce)...)
	p.log.Info("consent approved; redirecting upstream", "client_id", t.ClientID)
	http.Redirect(w, r, conf.AuthCodeURL(t.upstreamState(), opts...), http.StatusSeeOther)
}

func (p *Proxy) upstreamConfig(ctx context.Context) (*oauth2.Config, error) {
	conf, err := p.up.OAuth2Config(p.upstreamCtx(ctx))
	if err != nil {
		return nil, err
	}
	c := *conf
	c.RedirectURL = p.callbackURL()
	return &c, nil
}

// handleCallback is GET {baseUrl}/oauth/callback, where upstream sends the
// browser back.
func (p *Proxy) handleCallback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	expired := func() {
		p.errorPage(w, http.StatusBadRequest, "This sign-in request has expired or was already used", "Go back to the application and start again.")
	}
	// The state is {transaction id}.{secret}. The transaction is read,
	// checked (secret, approval, this browser's binding) and only then
	// taken: a forged or replayed callback cannot end the user's sign-in.
	id, secret, _ := strings.Cut(q.Get("state"), ".")
	t, err := p.getTxn(ctx, id, false)
	if err != nil || !t.Approved || !eq(secret, t.UState) {
		expired()
		return
	}
	if !p.boundToBrowser(r, t) {
		p.log.Warn("callback without the browser binding of its transaction", "client_id", t.ClientID)
		p.errorPage(w, http.StatusForbidden, "Request refused", "This sign-in was approved in another browser. Start again from the application.")
		return
	}
	if taken, err := p.getTxn(ctx, id, true); err != nil || !eq(taken.UState, t.UState) {
		expired() // another callback took it first
		return
	}
	p.clearCookie(w, "mcp_bind")
	if t.SignIn {
		p.finishSignIn(w, r, t) // signin.go
		return
	}
	p.clearCookie(w, "mcp_csrf")
	// Defence in depth: the client must still have this redirect URI.
	c, err := p.loadClient(r, t.ClientID)
	if err != nil || !p.redirectAllowed(t.RedirectURI, c.RedirectURIs) {
		p.errorPage(w, http.StatusBadRequest, "Invalid redirect address", "The application is no longer registered with this address.")
		return
	}
	back := func(params url.Values) {
		params.Set("state", t.State)
		http.Redirect(w, r, p.clientRedirect(t.RedirectURI, params), http.StatusFound)
	}
	if e := q.Get("error"); e != "" {
		p.log.Info("upstream refused the authorization", "error", e)
		back(upstreamRefusal(e))
		return
	}
	gid, sub, err := p.completeLogin(ctx, t, q.Get("code"))
	if err != nil {
		hint := upstreamHint(err)
		p.log.Warn("upstream login failed", "err", err, "check", hint)
		desc := "the identity provider login could not be completed"
		if hint != "" {
			desc += ": " + hint
		}
		back(url.Values{"error": {"server_error"}, "error_description": {desc}})
		return
	}
	// The code names its grant (gid.secret), so that a replay revokes the
	// grant even while the first use is still under way (see peekOnce).
	code := gid + "." + randomToken(32)
	key := "code:" + hashKey(code)
	b := p.seal.seal(key, marshal(codeRecord{ClientID: t.ClientID, RedirectURI: t.RedirectURI, CodeChallenge: t.CodeChallenge,
		Scopes: t.Scopes, GrantID: gid, Subject: sub}))
	if err := p.store.Put(ctx, key, b, codeTTL); err != nil {
		p.log.Error("storing code", "err", err)
		back(url.Values{"error": {"server_error"}, "error_description": {"the authorization could not be stored"}})
		return
	}
	back(url.Values{"code": {code}})
}

// completeLogin exchanges the upstream code, identifies the user and
// stores the grant; it returns the grant id and the user's subject.
func (p *Proxy) completeLogin(ctx context.Context, t *txn, code string) (string, string, error) {
	if code == "" {
		return "", "", fmt.Errorf("%w: the callback carries no code", ErrUpstream)
	}
	conf, err := p.upstreamConfig(ctx)
	if err != nil {
		return "", "", err
	}
	uctx := p.upstreamCtx(ctx)
	tok, err := conf.Exchange(uctx, code, oauth2.VerifierOption(t.Verifier))
	if err != nil {
		return "", "", fmt.Errorf("%w: code exchange: %w", ErrUpstream, err)
	}
	id, err := p.up.Identify(uctx, tok, t.Nonce)
	if err != nil {
		return "", "", err
	}
	g := &grant{ClientID: t.ClientID, Scopes: t.Scopes, Token: tok, Identity: *id, LoginAt: p.now().Unix()}
	if s, ok := tok.Extra("id_token").(string); ok {
		g.IDToken = s
	}
	gid := randomToken(16)
	if err := p.saveGrant(ctx, gid, g, true); err != nil {
		return "", "", err
	}
	if err := p.trackLogin(ctx, id.Subject, gid, time.Unix(g.LoginAt, 0).Add(p.cfg.MaxLoginLifetime)); err != nil {
		_ = p.store.Delete(context.WithoutCancel(ctx), "grant:"+gid)
		return "", "", fmt.Errorf("recording the login: %w", err)
	}
	p.log.Info("user logged in", "client_id", t.ClientID, "sub", id.Subject)
	return gid, id.Subject, nil
}

// upstreamScopes are the scopes of the upstream authorization request:
// of the upstream configuration's scopes, those the transaction was
// granted, plus openid (the login's identity needs it) and those not
// offered to clients at all (the enterprise directory's offline_access),
// which the provider itself needs.
func upstreamScopes(configured, offered, granted []string) []string {
	out := make([]string, 0, len(configured))
	for _, s := range configured {
		if s == "openid" || !slices.Contains(offered, s) || slices.Contains(granted, s) {
			out = append(out, s)
		}
	}
	return out
}

// upstreamHint says which setting to check when the upstream token
// endpoint refused the code exchange, from the provider's error code; it
// names settings, never their values. "" when there is nothing to say.
func upstreamHint(err error) string {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		var ue *url.Error
		if errors.As(err, &ue) {
			return "the token endpoint could not be reached: check its URL (TokenEndpoint, OAUTH_TOKEN_ENDPOINT or OAUTH_UPSTREAM_URL)"
		}
		return ""
	}
	code := re.ErrorCode
	if code == "" && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		code = "invalid_client"
	}
	switch code {
	case "invalid_client", "unauthorized_client":
		return "the provider refused this server's client authentication (" + code + "): check the client id and secret " +
			"(ClientID, ClientSecret; OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET) and how they are sent, client_secret_basic or " +
			"client_secret_post (TokenEndpointAuthMethod; OAUTH_TOKEN_ENDPOINT_AUTH_METHOD)"
	case "invalid_grant":
		return "the provider refused the authorization code (invalid_grant): check that {BaseURL}/oauth/callback is " +
			"registered as a redirect URI at the provider (BaseURL; MCP_BASE_URL)"
	case "invalid_scope":
		return "the provider refused the scopes (invalid_scope): check Scopes (OAUTH_SCOPES)"
	}
	if re.Response != nil {
		return fmt.Sprintf("the token endpoint answered HTTP %d: check TokenEndpoint (OAUTH_TOKEN_ENDPOINT or OAUTH_UPSTREAM_URL)", re.Response.StatusCode)
	}
	return ""
}
