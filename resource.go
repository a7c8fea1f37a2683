package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// ResourceContents is the content of a resource: Text, or Blob for binary
// data (base64 on the wire). URI and MIMEType default to the resource's.
type ResourceContents struct {
	// URI is the URI of these contents; the resource's URI when empty.
	URI string `json:"uri"`
	// MIMEType is the type of these contents; the resource's when empty.
	MIMEType string `json:"mimeType,omitempty"`
	// Text holds textual contents.
	Text string `json:"text"`
	// Blob holds binary contents (base64 on the wire); when non-nil, Text is not sent.
	Blob []byte `json:"blob,omitempty"`
	// Meta is sent as _meta.
	Meta map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON writes "blob" for binary contents and "text" otherwise.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	if r.Blob != nil {
		return json.Marshal(struct {
			URI      string         `json:"uri"`
			MIMEType string         `json:"mimeType,omitempty"`
			Blob     []byte         `json:"blob"`
			Meta     map[string]any `json:"_meta,omitempty"`
		}{r.URI, r.MIMEType, r.Blob, r.Meta})
	}
	type wire ResourceContents
	return json.Marshal(wire(r))
}

// Resource is a static resource with a fixed URI.
type Resource struct {
	// URI identifies the resource. Required and unique.
	URI string
	// Name is a short name. Required.
	Name string
	// Title is an optional display name.
	Title string
	// Description tells the model what the resource holds.
	Description string
	// MIMEType is the type of the contents; it is also the default of
	// each ResourceContents.MIMEType that Load leaves empty.
	MIMEType string
	// Size is the size of the contents in bytes, when known (0: unknown).
	Size int64
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations
	// Meta is sent as _meta in resources/list.
	Meta map[string]any
	// Icons are images a client may show for the resource (see [Icon]).
	Icons []Icon
	// Load returns the contents: one item, or several.
	Load func(ctx context.Context, c *Context) ([]ResourceContents, error)
	// CanAccess, when set, hides the resource from callers it refuses
	// (see [access.Check]). It also makes every read of the resource
	// private to its caller (see [CacheHint]).
	CanAccess access.Check
	// Tags group resources for [Registry.Disable] and [Registry.Enable] (see
	// [Tool].Tags); resources/list does not send them.
	Tags []string
	// Cache is the caching hint of a resources/read of the resource
	// (see [CacheHint]): CachePublic only when Load returns the same
	// contents to every caller.
	Cache CacheHint
}

// Link returns a [ResourceLink] to r, for a tool result that points at
// the resource instead of embedding it.
func (r Resource) Link() ResourceLink {
	return ResourceLink{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
		MIMEType: r.MIMEType, Size: r.Size, Annotations: r.Annotations, Icons: r.Icons, Meta: r.Meta}
}

// resourceWire is the wire shape a resources/list entry shares with a
// resource_link content item (which adds "type").
type resourceWire ResourceLink

// MarshalJSON writes the resources/list form: a resource link's members
// without "type".
func (r Resource) MarshalJSON() ([]byte, error) { return json.Marshal(resourceWire(r.Link())) }

// UnmarshalJSON reads the resources/list form.
func (r *Resource) UnmarshalJSON(data []byte) error {
	var w resourceWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Resource{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
		MIMEType: w.MIMEType, Size: w.Size, Annotations: w.Annotations, Icons: w.Icons, Meta: w.Meta}
	return nil
}

// CompleteFunc suggests values for an argument: value is what the user
// typed so far; args holds the arguments already chosen.
type CompleteFunc func(ctx context.Context, value string, args map[string]string) ([]string, error)

// TemplateArgument declares one variable of a resource template.
type TemplateArgument struct {
	// Name is the template variable, as written in the URI template.
	Name string
	// Description tells the client what the variable means.
	Description string
	// Required makes a read whose URI leaves the variable empty or out
	// (an optional {?q} query variable, say) an invalid-params error
	// naming it; the template's Load is not called.
	Required bool
	// Complete suggests values for completion/complete.
	Complete CompleteFunc
}

// ResourceTemplate is a family of resources named by an RFC 6570 template.
type ResourceTemplate struct {
	// URITemplate is the RFC 6570 template, such as "greeting://{name}".
	// Required and unique.
	URITemplate string
	// Name is a short name. Required.
	Name string
	// Title is an optional display name.
	Title string
	// Description tells the model what the resources hold.
	Description string
	// MIMEType is the type of the contents of every matching resource.
	MIMEType string
	// Annotations are hints for the client (audience, priority).
	Annotations *Annotations
	// Meta is sent as _meta in resources/templates/list.
	Meta map[string]any
	// Icons are images a client may show for the template (see [Icon]).
	Icons []Icon
	// Arguments declare the template's variables (descriptions,
	// required-ness, completion).
	Arguments []TemplateArgument
	// Load returns the contents of the resource the URI names; args holds
	// the template variables matched in the URI.
	Load func(ctx context.Context, c *Context, args map[string]string) ([]ResourceContents, error)
	// CanAccess, when set, hides the template from callers it refuses
	// (see [access.Check]). It also makes every read through the template
	// private to its caller (see [CacheHint]).
	CanAccess access.Check
	// Tags group templates for [Registry.Disable] and [Registry.Enable] (see
	// [Tool].Tags); resources/templates/list does not send them.
	Tags []string
	// Cache is the caching hint of a resources/read answered by the
	// template (see [CacheHint]), the same for every URI it matches.
	Cache CacheHint
}

// MarshalJSON writes the resources/templates/list form.
func (t ResourceTemplate) MarshalJSON() ([]byte, error) {
	return json.Marshal(templateWire{t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType, t.Annotations, t.Icons, t.Meta})
}

type templateWire struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MIMEType    string         `json:"mimeType,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// UnmarshalJSON reads the resources/templates/list form.
func (t *ResourceTemplate) UnmarshalJSON(data []byte) error {
	var w templateWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = ResourceTemplate{URITemplate: w.URITemplate, Name: w.Name, Title: w.Title,
		Description: w.Description, MIMEType: w.MIMEType, Annotations: w.Annotations, Icons: w.Icons, Meta: w.Meta}
	return nil
}

type resourceEntry struct {
	entryBase
	res Resource
	app bool // an app's view (AddAppResource)
}

type templateEntry struct {
	entryBase
	tmpl     ResourceTemplate
	compiled *uritemplate.Template
	required []string // the variables that must be present and non-empty
}

// AddResource registers a static resource. It panics when URI or Name is
// empty, the URI is not an absolute URI (a scheme, then the rest:
// "file:///notes.txt", "config://app"), Load is nil, or the URI is already
// registered; resources made at run time use [Registry.AddResource].
func (s *Server) AddResource(r Resource) { must("AddResource", s.tryAddResource(r)) }

// tryAddResource is [Server.AddResource] returning the error
// ([Registry.AddResource]).
func (s *Server) tryAddResource(r Resource) error { return s.addResourceFor("", r, false) }

// addResourceFor registers a resource for the server (sid "") or for one
// session; app marks an app's view (apps.go).
func (s *Server) addResourceFor(sid string, r Resource, app bool) error {
	switch {
	case r.URI == "":
		return invalid("Resource.URI is required")
	case r.Name == "":
		return invalid("resource %q: Resource.Name is required", r.URI)
	case r.Load == nil:
		return invalid("resource %q: Resource.Load is required", r.URI)
	}
	if err := checkResourceURI(r.URI); err != nil {
		return invalid("resource %q: %v", r.URI, err)
	}
	if err := checkIcons("Resource.", r.Icons); err != nil {
		return invalid("resource %q: %v", r.URI, err)
	}
	if err := r.Cache.check("Resource.Cache."); err != nil {
		return invalid("resource %q: %v", r.URI, err)
	}
	e := &resourceEntry{entryBase: entryBase{key: r.URI, kind: access.KindResource, canAccess: r.CanAccess, tags: slices.Clone(r.Tags), appOnly: app}, res: r, app: app}
	if sid != "" {
		return s.updateSession(sid, func(o *overlay) ([]engine.ChangeKind, error) {
			return []engine.ChangeKind{engine.ResourcesChanged}, o.resources.add(e, "session resource with URI")
		})
	}
	return s.update(change{Kind: engine.ResourcesChanged}, func(reg *registry) error { return reg.resources.add(e, "resource with URI") })
}

// AddResourceTemplate registers a resource template. It panics when the
// template does not parse or has no variable (a fixed URI is a resource:
// [Server.AddResource]), Name is empty, Load is nil, a declared argument
// is not a variable of the template, or the template is already
// registered; templates made at run time use
// [Registry.AddResourceTemplate].
func (s *Server) AddResourceTemplate(t ResourceTemplate) {
	must("AddResourceTemplate", s.tryAddResourceTemplate(t))
}

// tryAddResourceTemplate is [Server.AddResourceTemplate] returning the
// error ([Registry.AddResourceTemplate]).
func (s *Server) tryAddResourceTemplate(t ResourceTemplate) error {
	return s.addResourceTemplateFor("", t)
}

// addResourceTemplateFor registers a template for the server (sid "") or
// for one session.
func (s *Server) addResourceTemplateFor(sid string, t ResourceTemplate) error {
	if t.URITemplate == "" {
		return invalid("ResourceTemplate.URITemplate is required")
	}
	compiled, err := uritemplate.New(t.URITemplate)
	switch {
	case err != nil:
		return invalid("template %q: not an RFC 6570 template: %v", t.URITemplate, err)
	case t.Name == "":
		return invalid("template %q: ResourceTemplate.Name is required", t.URITemplate)
	case t.Load == nil:
		return invalid("template %q: ResourceTemplate.Load is required", t.URITemplate)
	}
	if err := checkIcons("ResourceTemplate.", t.Icons); err != nil {
		return invalid("template %q: %v", t.URITemplate, err)
	}
	if err := t.Cache.check("ResourceTemplate.Cache."); err != nil {
		return invalid("template %q: %v", t.URITemplate, err)
	}
	vars := compiled.Varnames()
	if len(vars) == 0 {
		return invalid("template %q has no {variable}, so it names one resource: register it with AddResource", t.URITemplate)
	}
	var required []string
	for _, a := range t.Arguments {
		if !slices.Contains(vars, a.Name) {
			return invalid("template %q: argument %q is not a variable of the template (variables: %s)",
				t.URITemplate, a.Name, strings.Join(vars, ", "))
		}
		if a.Required {
			required = append(required, a.Name)
		}
	}
	e := &templateEntry{entryBase: entryBase{key: t.URITemplate, kind: access.KindResource, canAccess: t.CanAccess, tags: slices.Clone(t.Tags)},
		tmpl: t, compiled: compiled, required: required}
	if sid != "" {
		return s.updateSession(sid, func(o *overlay) ([]engine.ChangeKind, error) {
			return []engine.ChangeKind{engine.ResourcesChanged}, o.templates.add(e, "session template")
		})
	}
	return s.update(change{Kind: engine.ResourcesChanged}, func(reg *registry) error { return reg.templates.add(e, "template") })
}

// removeResources removes the resources with these URIs; clients are sent
// notifications/resources/list_changed.
func (s *Server) removeResources(uris []string) {
	_ = s.update(change{Kind: engine.ResourcesChanged}, func(reg *registry) error { reg.resources.remove(uris); return nil })
}

// listResources returns the static resources the caller sees (see
// [Server.ListTools] for the session): what resources/list answers.
func (s *Server) listResources(ctx context.Context, auth any, sid string, pc *bool) []Resource {
	return listAll(s, ctx, auth, sid, resourceOps, func(e *resourceEntry) Resource { return e.res }, func(h hit[*resourceEntry]) Resource {
		r := h.e.res
		r.URI = h.key
		return r
	}, pc)
}

// listResourceTemplates returns the templates the caller sees: what
// resources/templates/list answers.
func (s *Server) listResourceTemplates(ctx context.Context, auth any, sid string, pc *bool) []ResourceTemplate {
	return listAll(s, ctx, auth, sid, templateOps, func(e *templateEntry) ResourceTemplate { return e.tmpl }, func(h hit[*templateEntry]) ResourceTemplate {
		t := h.e.tmpl
		t.URITemplate = h.key
		return t
	}, pc)
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	// Contents are the resource's contents: one item, or several.
	Contents []ResourceContents `json:"contents"`
}

// ErrResourceNotFound says a resource does not exist. A resource's or a
// template's Load returns an error that wraps it (fmt.Errorf("user %s: %w",
// id, mcp.ErrResourceNotFound)) when the URI names nothing: the client
// then gets the same answer as for a URI no resource or template matches,
// -32602 "Resource not found" with {"uri": …} as data (SEP-2164), at
// every revision, rather than the -32603 of a failing loader. That error matches ErrResourceNotFound
// (errors.Is) in the [Interceptor]s that wrap resources/read, and the
// client package's ReadResource returns an error that matches it too.
// Other invalid-params errors do not match it.
var ErrResourceNotFound = errors.New("mcp: resource not found")

// resourceNotFound is the error a resources/read of uri answers when no
// resource has that URI: the spec's -32602 with the URI as data.
func resourceNotFound(uri string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Resource not found: " + strictjson.Quote(uri),
		Data: map[string]string{"uri": dataURI(uri)}, sentinel: ErrResourceNotFound}
}

// JSONContents is a resource's contents as the JSON encoding of v, with
// the MIME type application/json: what a loader returns for a value of
// its own (a struct, a map, a slice).
//
//	return mcp.JSONContents(user)
//
// The contents' URI is left empty, so it is the URI that was read. An
// error is v's encoding error (a channel, a func, a cycle).
func JSONContents(v any) ([]ResourceContents, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding a resource's contents as JSON: %w", err)
	}
	return []ResourceContents{{MIMEType: "application/json", Text: string(b)}}, nil
}

// ReadResource reads a resource of the server whose tool this call runs,
// as its caller would with resources/read: by the URI the caller sees (a
// mounted server's resources under their prefix), through the same
// visibility and CanAccess checks, so a tool reads nothing its caller
// could not. The loader gets this Context. A URI that names nothing, or
// nothing the caller may see, is an *[Error] that matches
// [ErrResourceNotFound]. The [Interceptor]s of resources/read do not run:
// this is no request of the client's. Outside a tools/call (in a resource
// or prompt loader) it is an error.
func (c *Context) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	if c.guardTop == nil {
		return nil, errors.New("mcp: Context.ReadResource reads for a tool: this request is not a tools/call")
	}
	return c.guardTop.readResource(ctx, c, uri)
}

// readResource loads the resource named by uri: a static resource with
// that URI, else the first template that matches it. An unknown (or
// hidden) URI is an *[Error] with [CodeInvalidParams] and {"uri": uri} as
// data (SEP-2164) that matches [ErrResourceNotFound], and so is a loader's
// error that wraps ErrResourceNotFound; a template match that leaves a
// Required argument empty is [CodeInvalidParams] naming the argument; a
// failing loader is [CodeInternalError] unless it returned an *Error
// itself.
func (s *Server) readResource(ctx context.Context, c *Context, uri string) (*ReadResourceResult, error) {
	return s.readResourceHinted(ctx, c, uri, nil)
}

// readResourceHinted is readResource that also fills in hint, when not
// nil, with the caching hint of the read (cache.go).
func (s *Server) readResourceHinted(ctx context.Context, c *Context, uri string, hint *engine.Cache) (*ReadResourceResult, error) {
	ownRules, err := s.checkCallerRules(ctx, c.Session)
	if err != nil {
		return nil, err
	}
	t, ok := s.resolveRead(ctx, c.Session, c.SessionID, uri, hint != nil) // compose.go
	if !ok {
		return nil, resourceNotFound(uri)
	}
	res, err := t.load(ctx, c, uri)
	if err == nil && hint != nil {
		var h CacheHint
		if t.res != nil {
			h = t.res.res.Cache
		} else {
			h = t.tmpl.tmpl.Cache
		}
		*hint = h.decide(c.Session, t.perCaller || ownRules || requestPerCaller(ctx, false))
	}
	return res, err
}

// load reads the resource t names, uri as the client wrote it. Contents
// URIs the loader set are the owner's: they go out as the caller names
// them (prefixed through mounts).
func (t *readTarget) load(ctx context.Context, c *Context, uri string) (*ReadResourceResult, error) {
	var (
		contents []ResourceContents
		err      error
		name     string
		mime     string
	)
	if e := t.res; e != nil {
		name, mime = e.res.Name, e.res.MIMEType
		contents, err = protect(t.owner, "resource", uri, func() ([]ResourceContents, error) { return e.res.Load(ctx, c) })
	} else {
		e, args := t.tmpl, t.args
		for _, a := range e.required {
			if args[a] == "" {
				return nil, &Error{Code: CodeInvalidParams,
					Message: fmt.Sprintf("Invalid params: resource template %q requires argument %q, which %s leaves empty", t.key, a, strictjson.Quote(uri)),
					Data:    map[string]string{"uri": dataURI(uri), "argument": a}}
			}
		}
		name, mime = e.tmpl.Name, e.tmpl.MIMEType
		contents, err = protect(t.owner, "resource", uri, func() ([]ResourceContents, error) { return e.tmpl.Load(ctx, c, args) })
	}
	if errors.Is(err, ErrResourceNotFound) {
		// The loader says the URI names nothing: the same answer as a URI
		// nothing matches, its own wording kept out of the client's view
		// as a hidden resource's is.
		return nil, resourceNotFound(uri)
	}
	if err != nil {
		return nil, loaderError(err, fmt.Sprintf("Failed to load resource %q (%s)", name, strictjson.Quote(uri)), map[string]string{"uri": dataURI(uri)})
	}
	for i := range contents {
		switch {
		case contents[i].URI == "":
			contents[i].URI = uri
		case len(t.path) > 0:
			contents[i].URI = wrapPath(t.path, contents[i].URI)
		}
		if contents[i].MIMEType == "" {
			contents[i].MIMEType = mime
		}
	}
	if contents == nil {
		contents = []ResourceContents{}
	}
	return &ReadResourceResult{Contents: contents}, nil
}

// dataURI is a requested URI as the data of an error carries it: whole up
// to 512 bytes, cut beyond (it is the client's own input, echoed back).
func dataURI(uri string) string { return strictjson.Clip(uri, 4*strictjson.MaxQuoted) }

// loaderError turns the error of a loader or completion into the JSON-RPC
// error the client gets: an *Error as is, a panic as a generic internal
// error, anything else as an internal error prefixed with what failed.
func loaderError(err error, what string, data any) *Error {
	var je *Error
	switch {
	case errors.As(err, &je):
		return je
	case errors.Is(err, errPanic):
		return &Error{Code: CodeInternalError, Message: what + ": internal error (see the server log)", Data: data}
	}
	return &Error{Code: CodeInternalError, Message: fmt.Sprintf("%s: %v", what, err), Data: data}
}

// matchTemplate returns the first template the caller sees (in list
// order: see listFor) that matches uri, with its variables.
func (s *Server) matchTemplate(ctx context.Context, r *registry, uri string, auth any, sid string) (*templateEntry, map[string]string) {
	list, check := r.templates.list, true
	if s.vis.active.Load() {
		list = listFor(s, ctx, auth, sid, r.templates, ownTemplates, func(e *templateEntry) *templateEntry { return e }, nil)
		check = false
	}
	for _, e := range list {
		if check && !e.visible(ctx, auth, sid) {
			continue
		}
		vals := e.compiled.Match(uri)
		if vals == nil {
			continue
		}
		args := make(map[string]string, len(vals))
		for _, name := range e.compiled.Varnames() {
			v := vals.Get(name)
			if v.Valid() {
				args[name] = v.String()
			}
		}
		return e, args
	}
	return nil, nil
}

// checkResourceURI refuses what the spec does not allow as a resource's
// URI: it must be an absolute URI (RFC 3986): a scheme (a letter, then
// letters, digits, "+", "-" or "."), a colon, then the rest without white
// space or control characters, each "%" starting an escape of two hex
// digits. Not url.Parse: it refuses escapes RFC 3986 allows in a host
// ("skill://team%20a/…").
func checkResourceURI(uri string) error {
	scheme, _, ok := strings.Cut(uri, ":")
	if !ok || !isURIScheme(scheme) {
		return errors.New(`not an absolute URI: a resource URI starts with a scheme ("file:///notes.txt", "config://app")`)
	}
	for i := 0; i < len(uri); i++ {
		switch c := uri[i]; {
		case c <= ' ' || c == 0x7f:
			return fmt.Errorf("not a URI: it contains white space or a control character at byte %d (percent-encode it: %%20)", i)
		case c == '%' && (i+2 >= len(uri) || !isHex(uri[i+1]) || !isHex(uri[i+2])):
			return fmt.Errorf("not a URI: %% at byte %d does not start an escape of two hex digits", i)
		}
	}
	return nil
}

// isURIScheme reports whether s is a URI scheme (RFC 3986 §3.1): a
// letter, then letters, digits, "+", "-" and ".".
func isURIScheme(s string) bool {
	return s != "" && isAlpha(s[0]) && strings.IndexFunc(s, func(r rune) bool {
		return r > 0x7f || !isAlnum(byte(r)) && r != '+' && r != '-' && r != '.'
	}) < 0
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
