package devidp

import (
	"bytes"
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"time"
)

// pending is an authorization request whose consent page was shown. It is
// answered once, by the browser it was shown to (its cookie) with the
// page's token: another site cannot answer it for the user (CSRF), since
// it knows neither the request id nor the token, and its form post
// carries a cross-site Origin.
type pending struct {
	req           authRequest
	csrf, browser string
	exp           time.Time
}

// browserCookie binds a consent page to the browser it was shown to.
const browserCookie = "devidp_browser"

// ConsentPageTitle is the title of the consent page, which a test can look
// for to tell the page from a redirect.
const ConsentPageTitle = "Sign in to the development identity provider"

var consentTmpl = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
.warn{background:#fff4d6;border:1px solid #e0b100;padding:.5rem .75rem;border-radius:6px}
label{display:block;padding:.4rem 0}code{font-size:.9em}button{font:inherit;padding:.4rem 1.2rem;margin-right:.5rem}</style>
</head><body>
<h1 id="title">{{.Title}}</h1>
<p class="warn" id="dev-warning">This is a development identity provider: there are no passwords, and anyone who can reach it can sign in as these users. Never use it with real accounts.</p>
<p>The application <code id="client-id">{{.Client}}</code> asks to sign you in. You will then be sent to <code id="redirect-uri">{{.Redirect}}</code>.</p>
<p>Scopes: <code id="scope">{{.Scope}}</code></p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="request" value="{{.Request}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<fieldset><legend>Sign in as</legend>
{{- range $i, $u := .Users}}
<label><input type="radio" name="user" value="{{$u.Subject}}"{{if eq $i 0}} checked{{end}}> {{if $u.Name}}{{$u.Name}} {{end}}{{if $u.Email}}&lt;{{$u.Email}}&gt; {{end}}<code>{{$u.Subject}}</code></label>
{{- end}}
</fieldset>
<p><button type="submit" name="action" value="approve" id="approve">Approve</button>
<button type="submit" name="action" value="deny" id="deny">Deny</button></p>
</form>
</body></html>
`))

// showConsent renders the consent page for req.
func (p *Provider) showConsent(w http.ResponseWriter, r *http.Request, req authRequest) {
	browser := ""
	if c, err := r.Cookie(browserCookie); err == nil && validPKCE(c.Value, 32, 32) {
		browser = c.Value
	} else {
		browser = random(24)
	}
	id, csrf := random(24), random(24)
	now := time.Now()
	p.mu.Lock()
	if len(p.pending) >= maxPending {
		for k, v := range p.pending {
			if now.After(v.exp) {
				delete(p.pending, k)
			}
		}
	}
	full := len(p.pending) >= maxPending
	if !full {
		p.pending[id] = &pending{req: req, csrf: csrf, browser: browser, exp: now.Add(pendingTTL)}
	}
	p.mu.Unlock()
	if full {
		http.Error(w, "dev identity provider: too many sign-ins waiting for consent", http.StatusServiceUnavailable)
		return
	}
	var buf bytes.Buffer
	err := consentTmpl.Execute(&buf, map[string]any{
		"Title": ConsentPageTitle, "Client": req.client, "Redirect": req.redirect, "Scope": req.scope,
		"Action": p.prefix + "/authorize", "Request": id, "CSRF": csrf, "Users": p.cfg.Users,
	})
	if err != nil {
		http.Error(w, "dev identity provider: rendering the consent page failed", http.StatusInternalServerError)
		return
	}
	path := p.prefix
	if path == "" {
		path = "/"
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: browser, Path: path, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on the form's post, which the origin check refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	// The form's answer redirects to the client: browsers check
	// form-action on that redirect too, so the redirect URI's scheme is
	// allowed besides 'self'.
	ru, _ := url.Parse(req.redirect)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "+
		"form-action 'self' "+ru.Scheme+":")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// consent takes the answer of the consent page.
func (p *Provider) consent(w http.ResponseWriter, r *http.Request) {
	// A form posted from another site: its Origin (or Fetch Metadata)
	// says so. Browsers that send neither are still held by the cookie
	// and the token below.
	if why := p.crossSite(r); why != "" {
		p.refuse(w, http.StatusForbidden, why)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		p.refuse(w, http.StatusBadRequest, "the body must be a form")
		return
	}
	f := r.PostForm
	id := f.Get("request")
	p.mu.Lock()
	pd, ok := p.pending[id]
	p.mu.Unlock()
	if !ok || time.Now().After(pd.exp) {
		p.refuse(w, http.StatusBadRequest, "unknown or expired sign-in request: start the sign-in again")
		return
	}
	c, err := r.Cookie(browserCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(pd.browser)) != 1 ||
		subtle.ConstantTimeCompare([]byte(f.Get("csrf")), []byte(pd.csrf)) != 1 {
		p.refuse(w, http.StatusForbidden, "this answer does not come from the page shown to this browser")
		return
	}
	p.mu.Lock()
	_, still := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if !still {
		p.refuse(w, http.StatusBadRequest, "this sign-in request was answered already")
		return
	}
	switch f.Get("action") {
	case "deny":
		p.back(w, r, pd.req, url.Values{"error": {"access_denied"}, "error_description": {"the user denied the sign-in"}}, http.StatusSeeOther)
	case "approve":
		for _, u := range p.cfg.Users {
			if u.Subject == f.Get("user") {
				p.approve(w, r, pd.req, u, http.StatusSeeOther)
				return
			}
		}
		p.refuse(w, http.StatusBadRequest, "user must be the subject of one of the provider's users")
	default:
		p.refuse(w, http.StatusBadRequest, "action must be approve or deny")
	}
}

// crossSite says why a form was posted from another site, as its Origin
// or Sec-Fetch-Site header tells; "" when neither does.
func (p *Provider) crossSite(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" && o != p.origin() {
		return "the form was posted from another origin (" + o + ")"
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return "the form was posted from another site"
	}
	return ""
}

// origin is the issuer's origin, as a browser sends it in Origin.
func (p *Provider) origin() string {
	u, _ := url.Parse(p.cfg.Issuer)
	return u.Scheme + "://" + u.Host
}

func (p *Provider) refuse(w http.ResponseWriter, status int, msg string) {
	p.log.Info("devidp: consent answer refused", "reason", msg)
	http.Error(w, "dev identity provider: "+msg, status)
}
