package providers

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/securecookie"
	"golang.org/x/oauth2"
)

// BrowserSessionTTL is how long a browser stays signed in to this server's
// own pages after [Proxy.SignIn]: the pages of packages accounts (connect
// an account) and approval (approve a call) know their user for this long
// before they send the browser to sign in again.
const BrowserSessionTTL = 8 * time.Hour

// userCookie is the browser's sign-in: the user's subject and when the
// sign-in happened (the codec's MaxAge bounds its age as well).
type userCookie struct {
	Sub string `json:"s"`
	At  int64  `json:"a"`
}

func newUserCookies(hashKey, blockKey []byte) *securecookie.SecureCookie {
	c := securecookie.New(hashKey, blockKey)
	c.MaxAge(int(BrowserSessionTTL / time.Second))
	return c
}

// BrowserUser returns the user signed in in r's browser by [Proxy.SignIn]
// within [BrowserSessionTTL]: an *OAuthSession that carries only UserID,
// whose Subject is the one the same user's MCP sessions have, so that a
// page can tell (by package internal/identity's rule) whether the browser
// belongs to the user a URL elicitation was made for. ok is false when the
// browser has not signed in, or its sign-in cookie does not verify or has
// expired.
func (p *Proxy) BrowserUser(r *http.Request) (any, bool) {
	ck, err := r.Cookie(p.cookieName("mcp_user"))
	if err != nil {
		return nil, false
	}
	var u userCookie
	if p.users.Decode("mcp_user", ck.Value, &u) != nil || u.Sub == "" ||
		p.now().Sub(time.Unix(u.At, 0)) > BrowserSessionTTL {
		return nil, false
	}
	return &OAuthSession{UserID: u.Sub}, true
}

// SignIn sends the browser to sign in at the upstream identity provider
// and, once it did, back to returnTo, a path of this server ("/accounts/connect?id=…"),
// with a cookie that [Proxy.BrowserUser] reads. It is how this server's
// own pages learn which user a browser belongs to, as the MCP
// specification asks of a page opened from a URL elicitation: no consent
// page is shown (the user signs in to this server itself, nothing is
// granted to a client), and the sign-in is bound to the browser that
// started it (a callback URL replayed in another browser is refused).
// A returnTo that is not a path of this server (an absolute URL, "//host")
// is answered 400. Sign-ins are transactions: they count against the
// per-address limit of authorization starts and the transactions' quota.
func (p *Proxy) SignIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	page(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.signIn(w, r, returnTo) })).ServeHTTP(w, r)
}

func (p *Proxy) signIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	if !localPath(returnTo) {
		p.errorPage(w, http.StatusBadRequest, "Invalid sign-in request", "The page to come back to is not a page of this server.")
		return
	}
	if ok, wait, addr := p.authLim.allow(r); !ok {
		p.log.Warn("browser sign-in rate-limited", "addr", addr)
		refuse(w, wait, false)
		return
	}
	t := &txn{ID: randomToken(24), SignIn: true, ReturnTo: returnTo, Approved: true, CSRF: randomToken(24),
		UState: randomToken(24), Binding: randomToken(24), Verifier: oauth2.GenerateVerifier(), Nonce: randomToken(16)}
	ctx := r.Context()
	conf, err := p.upstreamConfig(ctx)
	if err != nil {
		p.log.Error("upstream configuration", "err", err)
		p.errorPage(w, http.StatusBadGateway, "The identity provider is unavailable", "Try again later.")
		return
	}
	if err := p.putTxn(ctx, t); errors.Is(err, ErrStorageFull) {
		w.Header().Set("Retry-After", "60")
		p.errorPage(w, http.StatusServiceUnavailable, "Too many sign-ins in progress", "The server is busy. Try again in a few minutes.")
		return
	} else if err != nil {
		p.log.Error("storing transaction", "err", err)
		p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	if err := p.setCookie(w, "mcp_bind", bindCookie{Txn: t.ID, Binding: t.Binding}); err != nil {
		p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	opts := append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(t.Verifier)}, p.up.AuthCodeOptions(t.Nonce)...)
	http.Redirect(w, r, conf.AuthCodeURL(t.upstreamState(), opts...), http.StatusSeeOther)
}

// finishSignIn ends a browser sign-in at the callback: the transaction is
// already checked (state secret, this browser's binding) and taken.
func (p *Proxy) finishSignIn(w http.ResponseWriter, r *http.Request, t *txn) {
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		p.log.Info("upstream refused the browser sign-in", "error", e)
		p.errorPage(w, http.StatusForbidden, "Sign-in refused", "The identity provider did not sign you in. Nothing was changed.")
		return
	}
	ctx := r.Context()
	conf, err := p.upstreamConfig(ctx)
	if err != nil {
		p.log.Error("upstream configuration", "err", err)
		p.errorPage(w, http.StatusBadGateway, "The identity provider is unavailable", "Try again later.")
		return
	}
	uctx := p.upstreamCtx(ctx)
	code := q.Get("code")
	if code == "" {
		p.errorPage(w, http.StatusBadRequest, "Sign-in failed", "The identity provider sent no code.")
		return
	}
	tok, err := conf.Exchange(uctx, code, oauth2.VerifierOption(t.Verifier))
	var id *Identity
	if err == nil {
		id, err = p.up.Identify(uctx, tok, t.Nonce)
	}
	if err != nil {
		p.log.Warn("browser sign-in failed", "err", err, "check", upstreamHint(err))
		p.errorPage(w, http.StatusBadGateway, "Sign-in failed", "The identity provider's answer could not be used. Try again later.")
		return
	}
	enc, err := p.users.Encode("mcp_user", userCookie{Sub: id.Subject, At: p.now().Unix()})
	if err != nil {
		p.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: p.cookieName("mcp_user"), Value: enc, Path: "/", HttpOnly: true,
		Secure: p.secure, SameSite: http.SameSiteLaxMode, MaxAge: int(BrowserSessionTTL / time.Second)})
	p.log.Info("browser signed in", "sub", id.Subject)
	http.Redirect(w, r, p.origin+t.ReturnTo, http.StatusSeeOther)
}

// localPath reports whether s is a path of this server: it starts with
// one "/", and no browser could read it as another host ("//h", "/\h")
// or a scheme.
func localPath(s string) bool {
	if len(s) > 2048 || !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || strings.ContainsAny(s, "\\\r\n\t") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil
}
