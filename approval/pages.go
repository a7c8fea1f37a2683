package approval

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/pages"
)

var approveTmpl = template.Must(template.New("approve").Parse(pages.Head + `<h1 id="title">Approve <code id="tool">{{.Tool}}</code>?</h1>
<p class="lede">{{if .Client}}The application <strong id="client">{{.Client}}</strong> (the name it gives itself){{else}}An application{{end}} asks to run this tool of <strong>{{.Server}}</strong> as you.{{if .ToolTitle}} It is “{{.ToolTitle}}”.{{end}} It is marked as one that changes or deletes things, so it runs only once you approve this very call.</p>
{{- if .Description}}
<p class="note" id="description">{{.Description}}</p>
{{- end}}
<p class="label" id="args-label">With these arguments</p>
<pre class="args mono" id="args" aria-labelledby="args-label">{{.Args}}</pre>
<form method="post" action="{{.Action}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="actions">
<button type="submit" name="action" value="deny" id="deny">Deny</button>
<button type="submit" name="action" value="approve" id="approve" class="primary">Approve</button>
</div>
</form>
<footer class="fine">
<p>Approve only if you asked for this. The approval counts once, for this tool with exactly these arguments, until <span id="expires">{{.Expires}}</span>.</p>
</footer>
` + pages.Foot))

func (a *Approvals) render(w http.ResponseWriter, status int, tmpl *template.Template, data map[string]any, formAction []string) {
	_, host, _ := strings.Cut(a.base.URL, "://")
	data["Server"] = host
	data["Sub"] = "Approval"
	pages.Render(w, status, tmpl, data, formAction, a.log)
}

func (a *Approvals) errorPage(w http.ResponseWriter, status int, title, msg string) {
	a.render(w, status, pages.ErrorTmpl, map[string]any{"Title": title, "Message": msg}, nil)
}

func (a *Approvals) expired(w http.ResponseWriter) {
	a.errorPage(w, http.StatusBadRequest, "This request has expired or was already decided",
		"Nothing was approved. If you still want it, ask again from your application: it will give you a new link.")
}

type csrfCookie struct {
	ID   string `json:"i"`
	CSRF string `json:"c"`
}

// user reports whether the browser's user made the call of r; otherwise
// it has answered w (a sign-in when returnTo is set, or a refusal).
func (a *Approvals) user(w http.ResponseWriter, r *http.Request, req *request, returnTo string) bool {
	u, ok := a.cfg.SignIn.BrowserUser(r)
	if !ok {
		if returnTo == "" {
			a.errorPage(w, http.StatusForbidden, "Sign in first", "Open the link from your application again.")
			return false
		}
		a.cfg.SignIn.SignIn(w, r, returnTo)
		return false
	}
	if !pages.SameUser(req.Key, u) {
		a.log.Warn("an approval page was opened by another user than the caller", "tool", req.Tool)
		a.errorPage(w, http.StatusForbidden, "This request is another user's",
			"Only the user whose application made the call can approve it, and you are signed in as someone else. Nothing was approved.")
		return false
	}
	return true
}

func (a *Approvals) show(w http.ResponseWriter, r *http.Request) {
	req, err := a.getRequest(r.Context(), r.PathValue("id"), false)
	if err != nil {
		a.expired(w)
		return
	}
	if !a.user(w, r, req, a.path+"/"+req.ID) {
		return
	}
	if err := a.cookies.Set(w, "mcp_appr_csrf", csrfCookie{ID: req.ID, CSRF: req.CSRF}, a.cfg.RequestTTL); err != nil {
		a.errorPage(w, http.StatusInternalServerError, "Something went wrong", "Try again later.")
		return
	}
	exp := time.Unix(req.Created, 0).Add(a.cfg.RequestTTL).UTC().Format("15:04 UTC")
	a.render(w, http.StatusOK, approveTmpl, map[string]any{
		"Title": "Approve " + req.Tool + "?", "Tool": req.Tool, "ToolTitle": req.Title, "Description": req.Description,
		"Client": req.Client, "Args": req.Args, "Action": a.path + "/" + req.ID, "CSRF": req.CSRF, "Expires": exp,
	}, []string{"'self'"})
}

// decide records the user's decision: the request is checked (the form
// came from this server's page in this browser, the browser's user made
// the call) and taken, so that it is decided once; the decision is
// signed and stored for the call to take.
func (a *Approvals) decide(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, pages.MaxForm)
	if err := r.ParseForm(); err != nil {
		a.errorPage(w, http.StatusBadRequest, "Bad request", "The form could not be read.")
		return
	}
	if pages.CrossSite(r, a.base.Origin) {
		a.errorPage(w, http.StatusForbidden, "Request refused", "The decision did not come from this server's own page.")
		return
	}
	ctx := r.Context()
	req, err := a.getRequest(ctx, r.PathValue("id"), false)
	if err != nil {
		a.expired(w)
		return
	}
	if !a.csrfOK(r, req) {
		a.errorPage(w, http.StatusForbidden, "Request refused", "The decision could not be verified (CSRF check failed). Open the link from your application again.")
		return
	}
	if !a.user(w, r, req, "") {
		return
	}
	var approved bool
	switch r.PostForm.Get("action") {
	case "approve":
		approved = true
	case "deny":
	default:
		a.errorPage(w, http.StatusBadRequest, "Bad request", "action must be approve or deny.")
		return
	}
	if taken, err := a.getRequest(ctx, req.ID, true); err != nil || !pages.Equal(taken.CSRF, req.CSRF) {
		a.expired(w) // decided meanwhile (a double click, another tab)
		return
	}
	_ = a.store.Delete(ctx, waitKey(req.Binding))
	a.cookies.Clear(w, "mcp_appr_csrf")
	now := a.now()
	tok := sign(a.macKey, decision{ID: req.ID, Sub: pages.Hash(req.Key), Tool: req.Tool, Args: req.ArgsHash, Approved: approved,
		IssuedAt: now.Unix(), Expires: now.Add(a.cfg.DecisionTTL).Unix()})
	if err := a.store.Put(ctx, decisionKey(req.Binding), []byte(tok), a.cfg.DecisionTTL); err != nil {
		a.log.Error("storing a decision", "err", err)
		a.errorPage(w, http.StatusServiceUnavailable, "Not recorded", "The server could not record your decision. Ask again from your application.")
		return
	}
	a.log.Info("approval decided", "tool", req.Tool, "request", req.ID, "approved", approved)
	if a.srv != nil {
		for _, sid := range req.Sessions {
			elicit.Complete(a.srv, sid, req.ID)
		}
	}
	if approved {
		a.render(w, http.StatusOK, pages.ErrorTmpl, map[string]any{"Title": "Approved",
			"Message": "Go back to your application: the call runs when it asks again, within " + a.cfg.DecisionTTL.String() + "."}, nil)
		return
	}
	a.render(w, http.StatusOK, pages.ErrorTmpl, map[string]any{"Title": "Denied", "Message": "The call will not run. You can close this page."}, nil)
}

// csrfOK reports whether a decision's form carries the CSRF token of
// request req, as its page set it in both the form and a cookie.
func (a *Approvals) csrfOK(r *http.Request, req *request) bool {
	var ck csrfCookie
	form := r.PostForm.Get("csrf")
	return a.cookies.Read(r, "mcp_appr_csrf", &ck) && ck.ID == req.ID && pages.Equal(form, req.CSRF) && pages.Equal(form, ck.CSRF)
}
