package providers

import (
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

var consentTmpl = template.Must(template.New("consent").Parse(pageHead + `<h1 id="title"><bdi id="client-name">{{.Client}}</bdi> wants to access your account</h1>
{{- if .ClientHost}}
<p class="note" id="client-host">This application identifies itself with a document published at <strong>{{.ClientHost}}</strong>.</p>
{{- end}}
<p class="lede">Approving lets it use this server as you.{{if .Upstream}} You will sign in at <strong id="upstream-host">{{.Upstream}}</strong>, then go back to the application.{{end}}</p>
<section class="dest" aria-labelledby="dest-label">
<p class="label" id="dest-label">{{if .Upstream}}Then you will be sent to{{else}}If you approve, you will be sent to{{end}}</p>
<p class="host" id="redirect-host">{{.Host}}</p>
<p class="uri mono" id="redirect-uri">{{.RedirectURI}}</p>
{{- if .Local}}
<p class="note" id="local-note">This address is on your own device: approve only if you just started this sign-in from an app on it.</p>
{{- end}}
</section>
<p class="label" id="scopes-label">It will be able to</p>
<ul class="scopes" id="scopes" aria-labelledby="scopes-label">
{{- range .Scopes}}
<li>{{.Text}}{{if .Name}}<code>{{.Name}}</code>{{end}}</li>
{{- end}}
</ul>
<form method="post" action="{{.Action}}">
<input type="hidden" name="txn" value="{{.Txn}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="actions">
<button type="submit" name="action" value="deny" id="deny">Deny</button>
<button type="submit" name="action" value="approve" id="approve" class="primary">Approve</button>
</div>
</form>
<footer class="fine">
<p>The name “<bdi>{{.Client}}</bdi>” is chosen by the application and is not verified. Approve only if you started this sign-in and trust <strong>{{.Host}}</strong>.</p>
<p>Client ID <code id="client-id">{{.ClientID}}</code></p>
</footer>
` + pageFoot))

// scopeText says in words what the well-known scopes let a client do;
// other scopes are shown by name only.
var scopeText = map[string]string{
	"openid":         "Confirm who you are",
	"profile":        "See your basic profile (name, username, picture)",
	"email":          "See your email address",
	"offline_access": "Stay connected when you are not using it",
	"read:user":      "Read your profile",
	"user:email":     "See your email addresses",
	"User.Read":      "Read your profile",
}

type scopeLine struct{ Text, Name string }

func scopeLines(scopes []string) []scopeLine {
	if len(scopes) == 0 {
		return []scopeLine{{Text: "Use this server as you"}}
	}
	out := make([]scopeLine, 0, len(scopes))
	for _, s := range scopes {
		if t, ok := scopeText[s]; ok {
			out = append(out, scopeLine{Text: t, Name: s})
		} else {
			out = append(out, scopeLine{Text: s})
		}
	}
	return out
}

// consentPage shows the consent form for t. The redirect URI's host is
// the one fact a user can check (the client's name is whatever it
// registered), so it is shown large, with the full URI below.
func (p *Proxy) consentPage(w http.ResponseWriter, r *http.Request, t *txn) {
	u, _ := url.Parse(t.RedirectURI)
	host := t.RedirectURI
	if u != nil && u.Host != "" {
		host = u.Host
	}
	name := displayName(t.ClientName)
	if name == "" {
		name = "An unnamed application"
	}
	// The form's answer is a 303 to upstream (approve) or to the client
	// (deny), and an upstream that approves at once sends the browser on
	// to our callback and the client in the same navigation. Browsers
	// check form-action on every redirect of a form's navigation, so
	// 'self' alone would block the sign-in: the CSP names those origins.
	formAction := []string{"'self'"}
	upstream := ""
	if conf, err := p.upstreamConfig(r.Context()); err != nil {
		p.log.Warn("upstream configuration for the consent page", "err", err) // approve will show the error
	} else if src := cspSource(conf.Endpoint.AuthURL); src != "" {
		formAction = append(formAction, src)
		if au, err := url.Parse(conf.Endpoint.AuthURL); err == nil {
			upstream = au.Host
		}
	}
	if src := cspSource(t.RedirectURI); src != "" && !slices.Contains(formAction, src) {
		formAction = append(formAction, src)
	}
	p.render(w, http.StatusOK, consentTmpl, map[string]any{
		"Title": "Allow " + name + " to access your account?", "Sub": "Authorization request",
		"Client": name, "ClientID": t.ClientID, "ClientHost": clientHost(t.ClientID), "Upstream": upstream, "Host": host, "RedirectURI": t.RedirectURI,
		"Scopes": scopeLines(t.Scopes), "Local": u != nil && isLoopbackHost(u.Hostname()),
		"Action": p.basePath + ConsentPath, "Txn": t.ID, "CSRF": t.CSRF,
	}, formAction)
}

// displayName is a client's name as the consent page shows it: without
// control characters and bidirectional formatting characters (U+202E
// RIGHT-TO-LEFT OVERRIDE and the like), with which a name could reverse
// the text after it ("Approve" next to a name that reads as another
// application's). The page also isolates the name (<bdi>), so that its
// own right-to-left letters do not reorder the text around it.
func displayName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, name)
}

var (
	cspScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
	cspHost   = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)
)

// cspSource is the CSP source expression matching uri's origin: scheme and
// host[:port] for http(s); the scheme alone for an IPv6 literal (which a
// source expression cannot spell) and for a native app's private-use
// scheme. It is "" for anything else (no host, a dangerous scheme, a host
// with characters no DNS name has): nothing from uri reaches the header
// unless it matches these patterns, and a target left out is blocked by
// the browser, never allowed.
func cspSource(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" || !cspScheme.MatchString(u.Scheme) {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case dangerousSchemes[scheme]:
		return ""
	case scheme != "http" && scheme != "https":
		return scheme + ":"
	case cspHost.MatchString(u.Host):
		return scheme + "://" + strings.ToLower(u.Host)
	case strings.HasPrefix(u.Host, "["):
		return scheme + ":"
	}
	return ""
}

// clientHost is the host of a client_id that is a metadata document URL
// (the draft asks that it be shown: the name is the document's claim, the
// host is where it is published), or "".
func clientHost(id string) string {
	if !isMetadataDocumentURL(id) {
		return ""
	}
	u, err := url.Parse(id)
	if err != nil {
		return ""
	}
	return u.Host
}
