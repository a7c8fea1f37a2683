package accounts

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/pages"
	"github.com/mcpchain/mcp/providers"
)

// Mount registers the pages and the API of a on srv (srv.AddRoute, served
// by mcphttp.NewMux and mcphttp.Start), and lets a tell the MCP sessions
// that wait for a connection when it is done
// (notifications/elicitation/complete). Under {BaseURL}{Path}:
//
//   - GET /connect?id=…: the page a URL elicitation opens; POST: the
//     user's choice (then the service's authorization page);
//   - GET /callback: where the service sends the browser back;
//   - GET (the Path itself): the browser's user's connected accounts, each
//     with a Disconnect button (POST /disconnect);
//   - GET /api/connections and DELETE /api/connections/{service}: the
//     same for the MCP caller's own credentials (the server's
//     authentication runs on them), for scripts and `mcpchain accounts`.
//
// The pages identify the browser's user with Config.SignIn; the API
// routes, the server's Authenticate or Auth.
func (a *Accounts) Mount(srv *mcp.Server) {
	a.srv = srv
	pub := &mcp.RouteOptions{Public: true}
	page := func(h http.HandlerFunc) http.Handler { return pages.Headers(h) }
	srv.AddRoute(http.MethodGet, a.path+"/connect", page(a.showConnect), pub)
	srv.AddRoute(http.MethodPost, a.path+"/connect", page(a.decideConnect), pub)
	srv.AddRoute(http.MethodGet, a.path+"/callback", page(a.callback), pub)
	srv.AddRoute(http.MethodGet, a.path, page(a.list), pub)
	srv.AddRoute(http.MethodPost, a.path+"/disconnect", page(a.disconnectPage), pub)
	srv.AddRoute(http.MethodGet, a.path+"/api/connections", http.HandlerFunc(a.apiList), nil)
	srv.AddRoute(http.MethodDelete, a.path+"/api/connections/{service}", http.HandlerFunc(a.apiDisconnect), nil)
}

var connectTmpl = template.Must(template.New("connect").Parse(pages.Head + `<h1 id="title">Connect your <span id="service">{{.Service}}</span> account</h1>
<p class="lede">An application you use with <strong>{{.Server}}</strong> asked to act on {{.Service}} as you. You will sign in at <strong id="service-host">{{.ServiceHost}}</strong> and allow access there; the tokens stay on this server, never with the application.</p>
<p class="label" id="scopes-label">{{.Service}} will be asked for</p>
<ul class="scopes" id="scopes" aria-labelledby="scopes-label">
{{- range .Scopes}}
<li><code>{{.}}</code></li>
{{- else}}
<li>Access to your account</li>
{{- end}}
</ul>
<form method="post" action="{{.Action}}">
<input type="hidden" name="id" value="{{.ID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="actions">
<button type="submit" name="action" value="cancel" id="cancel">Cancel</button>
<button type="submit" name="action" value="connect" id="connect" class="primary">Connect</button>
</div>
</form>
<footer class="fine">
<p>Connect only if you just asked for it from an application. You can disconnect it at any time on <a href="{{.List}}">your connected accounts</a>.</p>
</footer>
` + pages.Foot))

var listTmpl = template.Must(template.New("list").Parse(pages.Head + `<h1 id="title">Connected accounts</h1>
{{- if .Connections}}
<ul class="conns" id="connections">
{{- range .Connections}}
<li><span><strong>{{.Title}}</strong>{{if .Scopes}}<br><code>{{range $i, $s := .Scopes}}{{if $i}} {{end}}{{$s}}{{end}}</code>{{end}}</span>
<form method="post" action="{{$.Action}}"><input type="hidden" name="service" value="{{.Service}}"><input type="hidden" name="csrf" value="{{$.CSRF}}">
<button type="submit" id="disconnect-{{.Service}}">Disconnect</button></form></li>
{{- end}}
</ul>
{{- else}}
<p class="msg" id="none">You have connected no account.</p>
{{- end}}
` + pages.Foot))

func (a *Accounts) render(w http.ResponseWriter, status int, tmpl *template.Template, data map[string]any, formAction []string) {
	_, host, _ := strings.Cut(a.base.URL, "://")
	data["Server"] = host
	if _, ok := data["Sub"]; !ok {
		data["Sub"] = "Connected accounts"
	}
	pages.Render(w, status, tmpl, data, formAction, a.log)
}

func (a *Accounts) errorPage(w http.ResponseWriter, status int, title, msg string) {
	a.render(w, status, pages.ErrorTmpl, map[string]any{"Title": title, "Message": msg}, nil)
}

func (a *Accounts) expired(w http.ResponseWriter) {
	a.errorPage(w, http.StatusBadRequest, "This link has expired or was already used", "Go back to your application and try again: it will give you a new link.")
}

// csrfCookie binds the connect form to the browser that loaded it;
// bindCookie binds the service's callback to the browser that chose to
// connect.
type csrfCookie struct {
	ID   string `json:"i"`
	CSRF string `json:"c"`
}

type bindCookie struct {
	ID      string `json:"i"`
	Binding string `json:"b"`
}

// user returns the browser's user when it is the one p was made for;
// otherwise it has answered w (a sign-in, or a refusal) and ok is false.
func (a *Accounts) user(w http.ResponseWriter, r *http.Request, p *pending, returnTo string) bool {
	u, ok := a.cfg.SignIn.BrowserUser(r)
	if !ok {
		if returnTo == "" {
			a.errorPage(w, http.StatusForbidden, "Sign in first", "This page needs you to be signed in. Open the link from your application again.")
			return false
		}
		a.cfg.SignIn.SignIn(w, r, returnTo)
		return false
	}
	if !pages.SameUser(p.Key, u) {
		a.log.Warn("a connect page was opened by another user than the one it was made for", "service", p.Service)
		a.errorPage(w, http.StatusForbidden, "This link is for another user",
			"It was made for the account that asked for it in an application, and you are signed in as someone else. Nothing was connected. If you want to connect your own account, ask from your own application.")
		return false
	}
	return true
}

func (a *Accounts) showConnect(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	p, err := a.getPending(r.Context(), id, false)
	if err != nil {
		a.expired(w)
		return
	}
	if !a.user(w, r, p, a.path+"/connect?id="+url.QueryEscape(p.ID)) {
		return
	}
	if err := a.cookies.Set(w, "mcp_acct_csrf", csrfCookie{ID: p.ID, CSRF: p.CSRF}, pendingTTL); err != nil {
		a.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	svc := a.services[p.Service]
	host := svc.AuthURL
	if u, err := url.Parse(svc.AuthURL); err == nil {
		host = u.Host
	}
	// The form's answer redirects to the service, which may send the
	// browser straight back here: form-action names both.
	formAction := []string{"'self'"}
	if src := pages.CSPSource(svc.AuthURL); src != "" {
		formAction = append(formAction, src)
	}
	a.render(w, http.StatusOK, connectTmpl, map[string]any{
		"Title": "Connect your " + svc.Title + " account?", "Service": svc.Title, "ServiceHost": host, "Scopes": svc.Scopes,
		"Action": a.path + "/connect", "ID": p.ID, "CSRF": p.CSRF, "List": a.path,
	}, formAction)
}

// form reads a page's form: bounded, posted by a page of this server.
func (a *Accounts) form(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, pages.MaxForm)
	if err := r.ParseForm(); err != nil {
		a.errorPage(w, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return false
	}
	if pages.CrossSite(r, a.base.Origin) {
		a.errorPage(w, http.StatusForbidden, "Request refused", "The form did not come from this server's own page.")
		return false
	}
	return true
}

func (a *Accounts) decideConnect(w http.ResponseWriter, r *http.Request) {
	if !a.form(w, r) {
		return
	}
	ctx := r.Context()
	p, err := a.getPending(ctx, r.PostForm.Get("id"), false)
	if err != nil {
		a.expired(w)
		return
	}
	var ck csrfCookie
	form := r.PostForm.Get("csrf")
	if !a.cookies.Read(r, "mcp_acct_csrf", &ck) || ck.ID != p.ID || !pages.Equal(form, p.CSRF) || !pages.Equal(form, ck.CSRF) {
		a.errorPage(w, http.StatusForbidden, "Request refused", "The form could not be verified (CSRF check failed). Open the link from your application again.")
		return
	}
	if !a.user(w, r, p, "") {
		return
	}
	svc := a.services[p.Service]
	switch r.PostForm.Get("action") {
	case "connect":
	case "cancel":
		_ = a.store.Delete(ctx, pendingKey(p.ID))
		_ = a.store.Delete(ctx, a.waitKey(p.Key, svc))
		a.cookies.Clear(w, "mcp_acct_csrf")
		a.errorPage(w, http.StatusOK, "Nothing was connected", "You can close this page.")
		return
	default:
		a.errorPage(w, http.StatusBadRequest, "Bad request", "action must be connect or cancel.")
		return
	}
	if !p.Approved {
		p.Approved = true
		if ok, err := a.putPending(ctx, p, true); err != nil {
			a.log.Error("storing a connection in progress", "err", err)
			a.errorPage(w, http.StatusServiceUnavailable, "Something went wrong", "Try again later.")
			return
		} else if !ok {
			a.expired(w)
			return
		}
	}
	if err := a.cookies.Set(w, "mcp_acct_bind", bindCookie{ID: p.ID, Binding: p.Binding}, pendingTTL); err != nil {
		a.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(p.Verifier)}
	for k, v := range svc.AuthParams {
		opts = append(opts, oauth2.SetAuthURLParam(k, v))
	}
	http.Redirect(w, r, a.oauthConfig(svc).AuthCodeURL(p.ID+"."+p.State, opts...), http.StatusSeeOther)
}

// callback is where the service sends the browser back. The state is
// read, the connection in progress checked (its secret, the user's
// choice, the browser that chose, the browser's user) and only then
// taken: a forged or replayed callback cannot end the user's connection.
func (a *Accounts) callback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	id, secret, ok := parseState(q.Get("state"))
	if !ok {
		a.expired(w)
		return
	}
	p, err := a.getPending(ctx, id, false)
	if err != nil || !p.Approved || !pages.Equal(secret, p.State) {
		a.expired(w)
		return
	}
	if !a.boundToBrowser(r, p) {
		a.log.Warn("a service's callback without the browser binding of its connection", "service", p.Service)
		a.errorPage(w, http.StatusForbidden, "Request refused", "This connection was started in another browser. Open the link from your application again.")
		return
	}
	if !a.user(w, r, p, "") {
		return
	}
	if taken, err := a.getPending(ctx, id, true); err != nil || !pages.Equal(taken.State, p.State) {
		a.expired(w) // another callback took it first
		return
	}
	svc := a.services[p.Service]
	_ = a.store.Delete(ctx, a.waitKey(p.Key, svc))
	a.cookies.Clear(w, "mcp_acct_bind")
	a.cookies.Clear(w, "mcp_acct_csrf")
	if e := q.Get("error"); e != "" {
		a.log.Info("the service refused the connection", "service", svc.Name, "error", e)
		a.errorPage(w, http.StatusOK, svc.Title+" did not allow access", "Nothing was connected ("+svc.Title+" answered "+oauthCode(e)+"). Try again from your application if you want to.")
		return
	}
	code := q.Get("code")
	if code == "" {
		a.errorPage(w, http.StatusBadRequest, "Connection failed", svc.Title+" sent no code. Try again from your application.")
		return
	}
	tok, err := a.oauthConfig(svc).Exchange(a.httpCtx(ctx), code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		a.log.Warn("exchanging a service's code failed", "service", svc.Name, "err", tokenError(err))
		a.errorPage(w, http.StatusBadGateway, "Connection failed", svc.Title+" did not give this server a token ("+tokenError(err)+"). Try again from your application.")
		return
	}
	rec := &connection{Key: p.Key, Service: svc.Name, Token: stripExtra(tok), Scopes: grantedScopes(tok, svc.Scopes), ConnectedAt: a.now().Unix()}
	if _, err := a.save(ctx, rec, false); err != nil {
		a.log.Error("storing a connection", "service", svc.Name, "err", err)
		a.errorPage(w, http.StatusServiceUnavailable, "Connection failed", "The server could not store the connection. Try again later.")
		return
	}
	a.log.Info("account connected", "service", svc.Name)
	if a.srv != nil {
		for _, sid := range p.Sessions {
			elicit.Complete(a.srv, sid, p.ID)
		}
	}
	a.render(w, http.StatusOK, pages.ErrorTmpl, map[string]any{"Title": "Your " + svc.Title + " account is connected",
		"Message": "You can close this page and go back to your application."}, nil)
}

// boundToBrowser reports whether the request carries the binding cookie
// of connection p, set in the browser that chose to connect.
func (a *Accounts) boundToBrowser(r *http.Request, p *pending) bool {
	var bc bindCookie
	return a.cookies.Read(r, "mcp_acct_bind", &bc) && bc.ID == p.ID && pages.Equal(bc.Binding, p.Binding)
}

// grantedScopes are the scopes a token was granted: those its scope
// member lists (separated by spaces or commas), else those asked.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	s, ok := tok.Extra("scope").(string)
	if !ok || s == "" {
		return asked
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
}

// oauthCode is an error code of the service's redirect as the page may
// show it: an RFC 6749 code, or "an error" for anything else a link could
// carry.
func oauthCode(e string) string {
	if len(e) > 40 || strings.Trim(e, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return "an error"
	}
	return e
}

// stripExtra keeps a token's fields and drops the raw answer of the token
// endpoint (which would be stored otherwise under nothing it reads).
func stripExtra(t *oauth2.Token) *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

// list is the page of the browser's user's connections.
func (a *Accounts) list(w http.ResponseWriter, r *http.Request) {
	u, ok := a.cfg.SignIn.BrowserUser(r)
	if !ok {
		a.cfg.SignIn.SignIn(w, r, a.path)
		return
	}
	conns, err := a.Connections(r.Context(), u)
	if errors.Is(err, ErrNoIdentity) {
		a.errorPage(w, http.StatusForbidden, "No account", "Your sign-in names no user this server can keep accounts for.")
		return
	} else if err != nil {
		a.errorPage(w, http.StatusServiceUnavailable, "Something went wrong", "Try again later.")
		return
	}
	csrf := pages.Token(24)
	if err := a.cookies.Set(w, "mcp_acct_list", csrf, pendingTTL); err != nil {
		a.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	a.render(w, http.StatusOK, listTmpl, map[string]any{"Title": "Connected accounts", "Connections": conns,
		"Action": a.path + "/disconnect", "CSRF": csrf}, []string{"'self'"})
}

func (a *Accounts) disconnectPage(w http.ResponseWriter, r *http.Request) {
	if !a.form(w, r) {
		return
	}
	var ck string
	if !a.cookies.Read(r, "mcp_acct_list", &ck) || !pages.Equal(r.PostForm.Get("csrf"), ck) {
		a.errorPage(w, http.StatusForbidden, "Request refused", "The form could not be verified (CSRF check failed). Open the page again.")
		return
	}
	u, ok := a.cfg.SignIn.BrowserUser(r)
	if !ok {
		a.errorPage(w, http.StatusForbidden, "Sign in first", "Open the page again to sign in.")
		return
	}
	if err := a.Disconnect(r.Context(), u, r.PostForm.Get("service")); err != nil {
		a.log.Warn("disconnecting an account", "err", err)
		a.errorPage(w, http.StatusBadRequest, "Not disconnected", "The account could not be disconnected. Open the page again.")
		return
	}
	http.Redirect(w, r, a.path, http.StatusSeeOther)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// apiCaller is the identity key of an API route's caller (its auth data,
// from the server's authentication), or "" after a 403.
func apiCaller(w http.ResponseWriter, r *http.Request) (any, bool) {
	auth := mcp.AuthFromContext(r.Context())
	if _, ok := identity.Key(auth); !ok {
		apiError(w, http.StatusForbidden, ErrNoIdentity.Error())
		return nil, false
	}
	return auth, true
}

func (a *Accounts) apiList(w http.ResponseWriter, r *http.Request) {
	auth, ok := apiCaller(w, r)
	if !ok {
		return
	}
	conns, err := a.Connections(r.Context(), auth)
	if err != nil {
		apiError(w, http.StatusServiceUnavailable, "the connections could not be read")
		return
	}
	if conns == nil {
		conns = []Connection{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"connections": conns})
}

func (a *Accounts) apiDisconnect(w http.ResponseWriter, r *http.Request) {
	auth, ok := apiCaller(w, r)
	if !ok {
		return
	}
	name := r.PathValue("service")
	if _, ok := a.services[name]; !ok {
		apiError(w, http.StatusNotFound, "no service named "+strings.ToValidUTF8(name, "?")+" is configured")
		return
	}
	if err := a.Disconnect(r.Context(), auth, name); errors.Is(err, providers.ErrNotFound) {
		w.WriteHeader(http.StatusNoContent)
		return
	} else if err != nil {
		apiError(w, http.StatusServiceUnavailable, "the connection could not be removed; try again")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
