package providers

import (
	"html/template"
	"net/http"
	"net/url"
)

const pageStyle = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#e3e6ea;--accent:#2457d6;--accent-fg:#fff;--warn-bg:#fff6e0;--warn-fg:#7a5200}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--card:#1a1f25;--fg:#e8ebef;--muted:#9aa4b1;--line:#2b323a;--accent:#5b8cff;--accent-fg:#0b1020;--warn-bg:#3a2f12;--warn-fg:#f3d48a}}
*{box-sizing:border-box}
html,body{margin:0;padding:0}
body{background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px}
main{width:100%;max-width:440px;background:var(--card);border:1px solid var(--line);border-radius:14px;padding:28px 24px;box-shadow:0 1px 2px rgba(0,0,0,.04),0 8px 24px rgba(0,0,0,.06)}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 8px;font-weight:650;letter-spacing:-.01em}
p{margin:0 0 14px;color:var(--muted)}
.app{color:var(--fg);font-weight:600}
.label{font-size:.78rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:18px 0 4px}
.host{font-size:1.4rem;font-weight:700;word-break:break-all;color:var(--fg);margin:0}
.uri{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all;color:var(--muted);margin:4px 0 0}
ul{margin:4px 0 0;padding-left:20px}
li{margin:2px 0}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.warn{background:var(--warn-bg);color:var(--warn-fg);border-radius:8px;padding:10px 12px;font-size:.9rem;margin:16px 0 0}
.actions{display:flex;gap:12px;margin-top:24px}
button{flex:1;font:inherit;font-weight:600;padding:12px 16px;border-radius:10px;border:1px solid var(--line);background:transparent;color:var(--fg);cursor:pointer;min-height:48px}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.foot{font-size:.8rem;margin:20px 0 0}
@media (max-width:380px){main{padding:22px 16px}.actions{flex-direction:column-reverse}}
`

var consentTmpl = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Allow {{.Client}} to use your account?</title>
<style>` + pageStyle + `</style></head>
<body><main>
<h1>Allow <span class="app" id="client-name">{{.Client}}</span> to use your account?</h1>
<p>It will sign you in with <strong>{{.Provider}}</strong> and act on this server as you.</p>
<div class="label">After you approve, you will be sent to</div>
<p class="host" id="redirect-host">{{.Host}}</p>
<p class="uri">{{.RedirectURI}}</p>
{{if .Scopes}}<div class="label">Access requested</div>
<ul>{{range .Scopes}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{if .Local}}<div class="warn">This address is on your own computer. Approve only if you just started the sign-in from an app on this device.</div>{{end}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="txn" value="{{.Txn}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="actions">
<button type="submit" name="action" value="deny" id="deny">Deny</button>
<button type="submit" name="action" value="approve" id="approve" class="primary">Approve</button>
</div>
</form>
<p class="foot">Only approve applications you recognise. Client ID: <code>{{.ClientID}}</code></p>
</main></body></html>
`))

var errorTmpl = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>` + pageStyle + `</style></head>
<body><main>
<h1>{{.Title}}</h1>
<p>{{.Message}}</p>
</main></body></html>
`))

func (p *Proxy) consentPage(w http.ResponseWriter, t *txn) {
	u, _ := url.Parse(t.RedirectURI)
	host := t.RedirectURI
	if u != nil && u.Host != "" {
		host = u.Host
	}
	name := t.ClientName
	if name == "" {
		name = "An unnamed application"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_ = consentTmpl.Execute(w, map[string]any{
		"Client": name, "ClientID": t.ClientID, "Provider": p.up.Name(), "Host": host, "RedirectURI": t.RedirectURI,
		"Scopes": t.Scopes, "Local": u != nil && isLoopbackHost(u.Hostname()),
		"Action": p.basePath + ConsentPath, "Txn": t.ID, "CSRF": t.CSRF,
	})
}

func (p *Proxy) errorPage(w http.ResponseWriter, status int, title, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = errorTmpl.Execute(w, map[string]string{"Title": title, "Message": msg})
}
