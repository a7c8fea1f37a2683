package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// MCP Apps (the extension io.modelcontextprotocol/ui, SEP-1865): a server
// registers HTML views as ui:// resources and links tools to them; a host
// that supports the extension renders the view of a tool in a sandboxed
// iframe and hands it the tool's input and result, and the view may call
// the server's tools back through the host. The extension's data types
// (the view's CSP and permissions, a tool's link to its view) live in
// package apps; registering a view and linking tools to it are here.

// legacyResourceURIKey is the flat _meta key older hosts read the view's
// URI from, before _meta.ui.resourceUri; a linked tool carries both, as the
// extension's own server helpers do.
const legacyResourceURIKey = "ui/resourceUri"

// AppResource is the HTML view of an MCP App: a ui:// resource of type
// [apps.MIMEType] with the security metadata a host applies to the iframe it
// renders the view in. Register it with [Server.AddAppResource], then
// link tools to it with [Tool.UI].
type AppResource struct {
	// URI identifies the view; it must start with "ui://". Required and
	// unique among resources.
	URI string
	// Name is a short name. Required.
	Name string
	// Title is an optional display name.
	Title string
	// Description says what the view shows.
	Description string
	// HTML is the view, a whole HTML document with its scripts and styles
	// inline (the host's default Content Security Policy loads nothing from
	// elsewhere unless CSP names it). Set HTML, or FS and File.
	HTML string
	// FS and File name a file to read the view from once, at registration
	// (an embed.FS compiled into the program, say).
	FS fs.FS
	// File is the path of the view in FS ("ui/dashboard.html").
	File string
	// CSP lists the origins the view may reach; nil: none (the host's
	// restrictive default).
	CSP *apps.CSP
	// Permissions are the browser features the view asks for; the host may
	// grant them.
	Permissions *apps.Permissions
	// Domain asks the host for a dedicated origin for the view; its form is
	// the host's (see the host's documentation). Empty: the host's default.
	Domain string
	// PrefersBorder asks for a visible border and background (true) or
	// none (false); nil leaves it to the host.
	PrefersBorder *bool
	// Icons are images a client may show for the resource (see [Icon]).
	Icons []Icon
	// CanAccess, when set, hides the view from callers it refuses (see
	// [access.Check]).
	CanAccess access.Check
}

// appUIMeta is _meta.ui of an app resource and of its contents.
type appUIMeta struct {
	CSP           *apps.CSP         `json:"csp,omitempty"`
	Permissions   *apps.Permissions `json:"permissions,omitempty"`
	Domain        string            `json:"domain,omitempty"`
	PrefersBorder *bool             `json:"prefersBorder,omitempty"`
}

// toolUIMeta is _meta.ui of a linked tool.
type toolUIMeta struct {
	ResourceURI string            `json:"resourceUri"`
	Visibility  []apps.Visibility `json:"visibility,omitempty"`
}

// appOnly reports whether the tool is hidden from the model: u sets
// Visibility and leaves out apps.VisibleToModel.
func appOnly(u *apps.ToolUI) bool {
	return u != nil && len(u.Visibility) > 0 && !slices.Contains(u.Visibility, apps.VisibleToModel)
}

// SupportsApps reports whether the client declared the MCP Apps extension
// ([apps.Extension]) for views of type [apps.MIMEType]: a host that will
// render a tool's view. A declaration without mimeTypes counts (lenient:
// the member is required, but a client that names the extension means
// it); one whose mimeTypes leave out the app type does not.
func (c ClientCapabilities) SupportsApps() bool {
	raw, ok := c.Extensions[apps.Extension]
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var ext struct {
		MIMETypes *[]string `json:"mimeTypes"`
	}
	if json.Unmarshal(raw, &ext) != nil {
		return false
	}
	if ext.MIMETypes == nil {
		return true
	}
	return slices.ContainsFunc(*ext.MIMETypes, isAppMIMEType)
}

// isAppMIMEType reports whether t is text/html with profile mcp-app,
// whatever its case and spacing.
func isAppMIMEType(t string) bool {
	mt, params, err := mime.ParseMediaType(t)
	return err == nil && mt == "text/html" && strings.EqualFold(params["profile"], "mcp-app")
}

// AddAppResource registers the view of an MCP App (see [AppResource]) and
// makes the server declare the extension. It panics when the URI does not
// start with "ui://" or is taken, Name is empty, the view is empty, not
// UTF-8 or cannot be read from FS, both HTML and FS are set, or a CSP
// entry is not a CSP source (a space, a ";" or a quote in it would change
// the host's policy). Views read at run time use
// [Registry.AddAppResource].
func (s *Server) AddAppResource(r AppResource) { must("AddAppResource", s.tryAddAppResource(r)) }

// tryAddAppResource is [Server.AddAppResource] returning the error
// ([Registry.AddAppResource]).
func (s *Server) tryAddAppResource(r AppResource) error {
	if err := checkAppURI(r.URI); err != nil {
		return invalid("app resource %q: %v", r.URI, err)
	}
	html, err := r.html()
	if err != nil {
		return invalid("app resource %q: %v", r.URI, err)
	}
	if err := r.checkMeta(); err != nil {
		return invalid("app resource %q: %v", r.URI, err)
	}
	var meta map[string]any
	if r.CSP != nil || r.Permissions != nil || r.Domain != "" || r.PrefersBorder != nil {
		// Copies: what is served is what was checked, whatever the caller
		// does with its values afterwards.
		ui := appUIMeta{Domain: r.Domain}
		if r.CSP != nil {
			ui.CSP = &apps.CSP{ConnectDomains: slices.Clone(r.CSP.ConnectDomains), ResourceDomains: slices.Clone(r.CSP.ResourceDomains),
				FrameDomains: slices.Clone(r.CSP.FrameDomains), BaseURIDomains: slices.Clone(r.CSP.BaseURIDomains)}
		}
		if r.Permissions != nil {
			p := *r.Permissions
			ui.Permissions = &p
		}
		if r.PrefersBorder != nil {
			ui.PrefersBorder = new(*r.PrefersBorder)
		}
		meta = map[string]any{"ui": ui}
	}
	res := Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: apps.MIMEType,
		Size: int64(len(html)), Meta: meta, Icons: r.Icons, CanAccess: r.CanAccess,
		Load: func(context.Context, *Context) ([]ResourceContents, error) {
			return []ResourceContents{{URI: r.URI, MIMEType: apps.MIMEType, Text: html, Meta: meta}}, nil
		}}
	if err := s.addResourceFor("", res, true); err != nil {
		return err
	}
	s.offer(apps.Extension, json.RawMessage("{}"))
	return nil
}

// html returns the view: HTML, or File read from FS.
func (r AppResource) html() (string, error) {
	var html string
	switch {
	case r.FS != nil && r.HTML != "":
		return "", errors.New("set AppResource.HTML or AppResource.FS, not both")
	case r.FS != nil:
		if r.File == "" {
			return "", errors.New("AppResource.File is required with AppResource.FS: the path of the HTML file")
		}
		b, err := fs.ReadFile(r.FS, r.File)
		if err != nil {
			return "", fmt.Errorf("reading the view: %w", err)
		}
		html = string(b)
	case r.File != "":
		return "", fmt.Errorf("AppResource.File %q needs AppResource.FS, the file system to read it from", r.File)
	default:
		html = r.HTML
	}
	switch {
	case strings.TrimSpace(html) == "":
		return "", errors.New("the view is empty: set AppResource.HTML (or FS and File) to an HTML document")
	case !utf8.ValidString(html):
		return "", errors.New("the view is not valid UTF-8 text")
	}
	return html, nil
}

// checkAppURI checks a view's URI: an absolute URI whose scheme is ui and
// that names something after "ui://".
func checkAppURI(uri string) error {
	if uri == "" {
		return errors.New("AppResource.URI is required: a ui:// URI")
	}
	rest, ok := strings.CutPrefix(uri, "ui://")
	if !ok || rest == "" {
		return errors.New(`an app's view has a ui:// URI ("ui://weather/dashboard")`)
	}
	return checkResourceURI(uri)
}

// checkMeta checks the CSP sources and the domain: each entry becomes part
// of a policy the host writes, so a space, a semicolon or a quote would
// add sources or directives the server did not mean to declare.
func (r AppResource) checkMeta() error {
	if r.Name == "" {
		return errors.New("AppResource.Name is required")
	}
	if err := r.CSP.Validate(); err != nil {
		return fmt.Errorf("CSP.%v", err)
	}
	if r.Domain != "" && strings.ContainsFunc(r.Domain, func(c rune) bool { return c <= ' ' || c == 0x7f || strings.ContainsRune(`;,'"`, c) }) {
		return fmt.Errorf("AppResource.Domain %s contains a space, a control character or one of ; , ' \"", strictjson.Quote(r.Domain))
	}
	return nil
}

// linkUI checks t.UI and puts it in the tool's _meta (a copy of Meta):
// ui.resourceUri and ui.visibility, and the flat "ui/resourceUri" older
// hosts read. The view itself is looked up when the tool is added
// (checkAppLink), in the same registry change.
func (t *Tool) linkUI() error {
	u := t.UI
	if err := u.Validate(); err != nil {
		return fmt.Errorf("Tool.UI.%v", err)
	}
	for _, k := range []string{"ui", legacyResourceURIKey} {
		if _, ok := t.Meta[k]; ok {
			return fmt.Errorf("Tool.Meta has %q, which Tool.UI sets: use one of them", k)
		}
	}
	meta := make(map[string]any, len(t.Meta)+2)
	for k, v := range t.Meta {
		meta[k] = v
	}
	meta["ui"] = toolUIMeta{ResourceURI: u.ResourceURI, Visibility: slices.Clone(u.Visibility)}
	meta[legacyResourceURIKey] = u.ResourceURI
	t.Meta = meta
	return nil
}

// checkAppLink refuses a tool whose view is not a registered app resource.
func (r *registry) checkAppLink(t *Tool) error {
	e, ok := r.resources.byKey[t.UI.ResourceURI]
	switch {
	case !ok:
		return invalid("tool %q: Tool.UI.ResourceURI %s is not a registered app resource: register it with AddAppResource before the tool",
			t.Name, strictjson.Quote(t.UI.ResourceURI))
	case !e.app:
		return invalid("tool %q: Tool.UI.ResourceURI %s is a resource but not an app's view: register it with AddAppResource",
			t.Name, strictjson.Quote(t.UI.ResourceURI))
	}
	return nil
}

// hasApps reports whether an app resource was ever registered: the server
// then declares the extension.
func (s *Server) hasApps() bool { return s.offers(apps.Extension) || s.mountsHaveApps() }

// withoutApps reports whether the client of c does not render MCP Apps: it
// declared its capabilities, without the extension. A client whose
// capabilities the transport does not know (a stateless 2025 request) is
// shown everything.
func (c *Context) withoutApps() bool {
	return !c.req.capsUnknown && !c.ClientCapabilities.SupportsApps()
}

type noAppsKey struct{}

// hideAppOnly returns ctx marked for a list or lookup made for a client
// without MCP Apps: the tools only a view calls and the views are left
// out (entryBase.visible). Calls read the same from the request's Context
// instead (Context.withoutApps), which costs a call of any other tool
// nothing.
func hideAppOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, noAppsKey{}, true)
}

// withoutApps reports whether ctx was marked by hideAppOnly.
func withoutApps(ctx context.Context) bool {
	v, _ := ctx.Value(noAppsKey{}).(bool)
	return v
}
