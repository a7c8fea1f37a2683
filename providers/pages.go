package providers

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"

	"github.com/mcpchain/mcp/internal/pages"
)

// The proxy's HTML pages (consent and errors) share one stylesheet with the
// other pages of mcpchain (internal/pages): inline in each page and allowed
// by a per-response CSP nonce; the one image is the MCP server's icon
// (UseServerInfo), allowed by its own img-src.
const (
	pageHead = pages.Head
	pageFoot = pages.Foot
)

var errorTmpl = template.Must(template.New("error").Parse(pageHead + `<h1 id="title">{{.Title}}</h1>
<p class="msg">{{.Message}}</p>
` + pageFoot))

// render writes an HTML page. The template runs into a buffer first, so a
// failure is a plain 500, never half a page. The Content-Security-Policy
// allows nothing but the page's own <style> (by a nonce fresh for each
// response), form posts to formAction ('self' and, for the consent
// page, the places its answer redirects to) and, when the server has an
// icon, images from data: or the icon's https origin; page() has set the
// other headers.
func (p *Proxy) render(w http.ResponseWriter, status int, tmpl *template.Template, data map[string]any, formAction []string) {
	nonce := make([]byte, 18)
	_, _ = rand.Read(nonce)
	data["Nonce"] = base64.RawURLEncoding.EncodeToString(nonce)
	data["Server"] = p.serverName()
	name, icon, imgSrc := p.pageServer() // serverinfo.go
	if name != "" {
		data["Server"], data["ServerHost"] = name, p.serverName()
	}
	data["ServerIcon"] = icon
	if _, ok := data["Sub"]; !ok {
		data["Sub"] = "Sign-in"
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		p.log.Error("rendering page", "page", tmpl.Name(), "err", err)
		http.Error(w, "internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	if len(formAction) == 0 {
		formAction = []string{"'none'"}
	}
	h := w.Header()
	img := ""
	if icon != "" {
		img = "img-src " + imgSrc + "; " // the server's icon, and nothing else
	}
	h.Set("Content-Security-Policy", "default-src 'none'; "+img+"style-src 'nonce-"+data["Nonce"].(string)+"'; "+
		"form-action "+strings.Join(formAction, " ")+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// serverName is how the pages name this server: its BaseURL without the
// scheme (the host, and the path when the server lives under one).
func (p *Proxy) serverName() string {
	_, rest, _ := strings.Cut(p.issuer, "://")
	return rest
}

func (p *Proxy) errorPage(w http.ResponseWriter, status int, title, msg string) {
	p.render(w, status, errorTmpl, map[string]any{"Title": title, "Message": msg}, nil)
}
