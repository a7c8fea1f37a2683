package providers

import (
	"html/template"
	"strings"

	"github.com/mcpchain/mcp"
)

// UseServerInfo tells the proxy which MCP server it guards, so that its
// pages (the consent page, the error pages) show the server's title (else
// its name) and its first icon in their header, next to the proxy's
// host. mcphttp.NewMux and mcphttp.Start call it with the server's
// Options; call it yourself when you mount the proxy on a mux of your own.
// Without it the header shows the host alone.
func (p *Proxy) UseServerInfo(info mcp.Implementation) {
	p.server.Store(&info)
}

// pageServer is what the pages' header shows of the server: its display
// name, and its first icon with the CSP img-src that lets exactly that
// image load ("" and nil when there is none the page may show).
func (p *Proxy) pageServer() (name string, icon template.URL, imgSrc string) {
	info := p.server.Load()
	if info == nil {
		return "", "", ""
	}
	name = info.Title
	if name == "" {
		name = info.Name
	}
	if len(info.Icons) == 0 {
		return name, "", ""
	}
	src := info.Icons[0].Src
	switch scheme, _, _ := strings.Cut(src, ":"); strings.ToLower(scheme) {
	case "data":
		// mcp.NewServer checked the icon: a base64 data: URI of an image
		// type, safe as an <img> source (an SVG there runs no script).
		return name, template.URL(src), "data:"
	case "https":
		if s := cspSource(src); s != "" {
			// Only the icon's origin, not every https: image.
			return name, template.URL(src), s
		}
	}
	return name, "", ""
}
