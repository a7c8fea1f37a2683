package apps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// Extension is the identifier of the MCP Apps extension in
// capabilities.extensions. A client that renders apps declares it (with
// the MIME types it renders, [MIMEType] among them); a server with an
// app's view declares it in its own capabilities.
const Extension = "io.modelcontextprotocol/ui"

// MIMEType is the MIME type of an MCP App's HTML view, the only one the
// extension defines.
const MIMEType = "text/html;profile=mcp-app"

// CSP lists the origins an app's view may use, which the host turns into
// its iframe's Content Security Policy. Each entry is a CSP source: an
// origin such as "https://api.example.com" or "wss://live.example.com", a
// host with a wildcard subdomain ("https://*.example.com"), or a bare
// host. Nothing undeclared is allowed.
type CSP struct {
	// ConnectDomains may be reached with fetch, XHR and WebSocket
	// (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains may serve scripts, styles, images, fonts and media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains may be loaded in nested iframes (frame-src).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains may be the document's base URI (base-uri).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// Validate checks that each entry is a CSP source: the host writes every
// entry into a policy, so a space, a semicolon or a quote would add
// sources or directives the server did not mean to declare. The error
// names the field and the entry ("ConnectDomains[0] …"). Registering a
// view checks its CSP this way.
func (c *CSP) Validate() error {
	if c == nil {
		return nil
	}
	for _, f := range []struct {
		name    string
		sources []string
	}{{"ConnectDomains", c.ConnectDomains}, {"ResourceDomains", c.ResourceDomains},
		{"FrameDomains", c.FrameDomains}, {"BaseURIDomains", c.BaseURIDomains}} {
		for i, src := range f.sources {
			if err := checkCSPSource(src); err != nil {
				return fmt.Errorf("%s[%d] %s: %v", f.name, i, strictjson.Quote(src), err)
			}
		}
	}
	return nil
}

// Permissions are browser features an app's view asks for; a host may
// grant them with its iframe's allow attribute. A view must not assume
// they are granted.
type Permissions struct {
	// Camera asks for the camera.
	Camera bool
	// Microphone asks for the microphone.
	Microphone bool
	// Geolocation asks for the position.
	Geolocation bool
	// ClipboardWrite asks to write the clipboard.
	ClipboardWrite bool
}

// MarshalJSON writes each requested feature as an empty object, the
// extension's form: {"camera": {}, …}.
func (p Permissions) MarshalJSON() ([]byte, error) {
	m := map[string]struct{}{}
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera, "camera"}, {p.Microphone, "microphone"}, {p.Geolocation, "geolocation"}, {p.ClipboardWrite, "clipboardWrite"}} {
		if f.on {
			m[f.name] = struct{}{}
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the extension's form: a member present (whatever its
// value, but null) asks for the feature.
func (p *Permissions) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	on := func(k string) bool { v, ok := m[k]; return ok && string(v) != "null" }
	*p = Permissions{Camera: on("camera"), Microphone: on("microphone"), Geolocation: on("geolocation"), ClipboardWrite: on("clipboardWrite")}
	return nil
}

// ToolUI links a tool to the view of an MCP App (mcp.Tool.UI): a host
// that supports the extension renders the view at ResourceURI with the
// tool's input and result. The tool must still return content a model
// can read (text), which is all a client without the extension shows.
type ToolUI struct {
	// ResourceURI is the view, an app resource already registered
	// (mcp.Server.AddAppResource).
	ResourceURI string
	// Visibility says who may call the tool; nil (the default) means
	// both the model and the view. A tool only the view calls (a refresh
	// button) is {VisibleToApp}: hosts keep it from the model, and the
	// server hides it from clients without the extension.
	Visibility []Visibility
}

// Validate checks the link: ResourceURI is a ui:// URI, and Visibility
// names only [VisibleToModel] and [VisibleToApp], each once. The error
// names the field ("ResourceURI …", "Visibility[1] …"). Registering a
// tool checks its UI this way, and then that the view is registered.
func (u *ToolUI) Validate() error {
	if u.ResourceURI == "" {
		return errors.New("ResourceURI is required: the ui:// URI of an app resource")
	}
	if !strings.HasPrefix(u.ResourceURI, "ui://") {
		return fmt.Errorf("ResourceURI %s is not a ui:// URI", strictjson.Quote(u.ResourceURI))
	}
	for i, v := range u.Visibility {
		if v != VisibleToModel && v != VisibleToApp {
			//lint:ignore ST1005 the error starts with the field it names, which the root prefixes with "Tool.UI."
			return fmt.Errorf("Visibility[%d] is %s: it takes %q and %q", i, strictjson.Quote(string(v)), VisibleToModel, VisibleToApp)
		}
		if slices.Index(u.Visibility, v) != i {
			return fmt.Errorf("Visibility names %q twice", v)
		}
	}
	return nil
}

// Visibility is who may see and call a tool linked to an app ([ToolUI]).
type Visibility string

// The audiences of [ToolUI.Visibility].
const (
	// VisibleToModel lets the model see and call the tool.
	VisibleToModel Visibility = "model"
	// VisibleToApp lets the app's view call the tool (through its host).
	VisibleToApp Visibility = "app"
)

// checkCSPSource checks a CSP host source: [scheme "://"] host [":" port]
// [path], the host a name, an IP address, "*" or "*." and a name.
func checkCSPSource(src string) error {
	if src == "" {
		return errors.New("empty")
	}
	if strings.ContainsFunc(src, func(c rune) bool { return c <= ' ' || c == 0x7f || strings.ContainsRune(`;,'"`, c) }) {
		return errors.New(`a CSP source has no space, control character, ";", "," or quote`)
	}
	rest := src
	if scheme, after, ok := strings.Cut(src, "://"); ok {
		if !isURIScheme(scheme) {
			return fmt.Errorf("scheme %s is not a URI scheme", strictjson.Quote(scheme))
		}
		rest = after
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	host, err := cutCSPPort(host)
	if err != nil {
		return err
	}
	if host == "*" || strings.HasPrefix(host, "[") && strings.Contains(host, "]") { // any host; an IPv6 address
		return nil
	}
	if !isHostName(strings.TrimPrefix(host, "*.")) {
		return errors.New(`not a CSP source: an origin ("https://api.example.com"), a wildcard host ("https://*.example.com") or a host`)
	}
	return nil
}

// cutCSPPort is the host of a CSP source's host[:port] (an IPv6 address
// in brackets kept whole), refusing a port that is not a number or *.
func cutCSPPort(host string) (string, error) {
	h, port, ok := strings.Cut(host, ":")
	if !ok || strings.HasPrefix(host, "[") {
		return host, nil
	}
	if port == "" || port != "*" && strings.IndexFunc(port, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return "", fmt.Errorf("port %s is not a number or *", strictjson.Quote(port))
	}
	return h, nil
}

// isURIScheme reports whether s is a URI scheme (RFC 3986 §3.1): a
// letter, then letters, digits, "+", "-" and ".".
func isURIScheme(s string) bool {
	return s != "" && isAlpha(s[0]) && strings.IndexFunc(s, func(r rune) bool {
		return r > 0x7f || !isAlnum(byte(r)) && r != '+' && r != '-' && r != '.'
	}) < 0
}

// isHostName reports whether s is a non-empty host name of ASCII
// letters, digits, "-" and ".".
func isHostName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r > 0x7f || !isAlnum(byte(r)) && r != '-' && r != '.' }) < 0
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isAlnum(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' }
