package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// ResourceContents is the content of a resource: Text, or Blob for binary
// data (base64 on the wire). URI and MIMEType default to the resource's.
type ResourceContents struct {
	URI      string         `json:"uri"`
	MIMEType string         `json:"mimeType,omitempty"`
	Text     string         `json:"text"`
	Blob     []byte         `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
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
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64
	Annotations *Annotations
	Meta        map[string]any
	// Load returns the contents: one item, or several.
	Load func(ctx context.Context, c *Context) ([]ResourceContents, error)
	// CanAccess, when set, hides the resource from callers it refuses.
	CanAccess func(auth any) bool
}

// MarshalJSON writes the resources/list form.
func (r Resource) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		URI         string         `json:"uri"`
		Name        string         `json:"name"`
		Title       string         `json:"title,omitempty"`
		Description string         `json:"description,omitempty"`
		MIMEType    string         `json:"mimeType,omitempty"`
		Size        int64          `json:"size,omitempty"`
		Annotations *Annotations   `json:"annotations,omitempty"`
		Meta        map[string]any `json:"_meta,omitempty"`
	}{r.URI, r.Name, r.Title, r.Description, r.MIMEType, r.Size, r.Annotations, r.Meta})
}

// UnmarshalJSON reads the resources/list form.
func (r *Resource) UnmarshalJSON(data []byte) error {
	var w struct {
		URI, Name, Title, Description, MIMEType string
		Size                                    int64
		Annotations                             *Annotations
		Meta                                    map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Resource{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
		MIMEType: w.MIMEType, Size: w.Size, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// CompleteFunc suggests values for an argument: value is what the user
// typed so far; args holds the arguments already chosen.
type CompleteFunc func(ctx context.Context, value string, args map[string]string) ([]string, error)

// TemplateArgument declares one variable of a resource template.
type TemplateArgument struct {
	Name        string
	Description string
	Required    bool
	// Complete suggests values for completion/complete.
	Complete CompleteFunc
}

// ResourceTemplate is a family of resources named by an RFC 6570 template.
type ResourceTemplate struct {
	// URITemplate is the RFC 6570 template, such as "greeting://{name}".
	// Required and unique.
	URITemplate string
	// Name is a short name. Required.
	Name        string
	Title       string
	Description string
	MIMEType    string
	Annotations *Annotations
	Meta        map[string]any
	// Arguments declare the template's variables (descriptions, completion).
	Arguments []TemplateArgument
	// Load returns the contents of the resource the URI names; args holds
	// the template variables matched in the URI.
	Load func(ctx context.Context, c *Context, args map[string]string) ([]ResourceContents, error)
	// CanAccess, when set, hides the template from callers it refuses.
	CanAccess func(auth any) bool
}

// MarshalJSON writes the resources/templates/list form.
func (t ResourceTemplate) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		URITemplate string         `json:"uriTemplate"`
		Name        string         `json:"name"`
		Title       string         `json:"title,omitempty"`
		Description string         `json:"description,omitempty"`
		MIMEType    string         `json:"mimeType,omitempty"`
		Annotations *Annotations   `json:"annotations,omitempty"`
		Meta        map[string]any `json:"_meta,omitempty"`
	}{t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType, t.Annotations, t.Meta})
}

// UnmarshalJSON reads the resources/templates/list form.
func (t *ResourceTemplate) UnmarshalJSON(data []byte) error {
	var w struct {
		URITemplate, Name, Title, Description, MIMEType string
		Annotations                                     *Annotations
		Meta                                            map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = ResourceTemplate{URITemplate: w.URITemplate, Name: w.Name, Title: w.Title,
		Description: w.Description, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

type resourceEntry struct{ res Resource }

type templateEntry struct {
	tmpl     ResourceTemplate
	compiled *uritemplate.Template
}

// AddResource registers a static resource. It panics when URI or Name is
// empty, Load is nil, or the URI is already registered.
func (s *Server) AddResource(r Resource) {
	switch {
	case r.URI == "":
		panic("mcp: AddResource: Resource.URI is required")
	case r.Name == "":
		panic(fmt.Sprintf("mcp: AddResource %q: Resource.Name is required", r.URI))
	case r.Load == nil:
		panic(fmt.Sprintf("mcp: AddResource %q: Resource.Load is required", r.URI))
	}
	e := &resourceEntry{res: r}
	s.update(Change{Kind: ResourcesChanged}, func(reg *registry) error {
		if _, dup := reg.resByURI[r.URI]; dup {
			return fmt.Errorf("mcp: AddResource: a resource with URI %q is already registered", r.URI)
		}
		reg.resources = append(reg.resources, e)
		reg.resByURI[r.URI] = e
		return nil
	})
}

// AddResourceTemplate registers a resource template. It panics when the
// template does not parse, Name is empty, Load is nil, a declared argument
// is not a variable of the template, or the template is already registered.
func (s *Server) AddResourceTemplate(t ResourceTemplate) {
	compiled, err := uritemplate.New(t.URITemplate)
	switch {
	case t.URITemplate == "":
		panic("mcp: AddResourceTemplate: ResourceTemplate.URITemplate is required")
	case err != nil:
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: not an RFC 6570 template: %v", t.URITemplate, err))
	case t.Name == "":
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: ResourceTemplate.Name is required", t.URITemplate))
	case t.Load == nil:
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: ResourceTemplate.Load is required", t.URITemplate))
	}
	vars := compiled.Varnames()
	for _, a := range t.Arguments {
		found := false
		for _, v := range vars {
			found = found || v == a.Name
		}
		if !found {
			panic(fmt.Sprintf("mcp: AddResourceTemplate %q: argument %q is not a variable of the template (variables: %s)",
				t.URITemplate, a.Name, strings.Join(vars, ", ")))
		}
	}
	e := &templateEntry{tmpl: t, compiled: compiled}
	s.update(Change{Kind: ResourcesChanged}, func(reg *registry) error {
		if _, dup := reg.tmplByKey[t.URITemplate]; dup {
			return fmt.Errorf("mcp: AddResourceTemplate: template %q is already registered", t.URITemplate)
		}
		reg.templates = append(reg.templates, e)
		reg.tmplByKey[t.URITemplate] = e
		return nil
	})
}

// RemoveResources removes the resources with these URIs.
func (s *Server) RemoveResources(uris ...string) {
	s.update(Change{Kind: ResourcesChanged}, func(reg *registry) error {
		for _, u := range uris {
			if e, ok := reg.resByURI[u]; ok {
				delete(reg.resByURI, u)
				reg.resources = removeEntry(reg.resources, e)
			}
		}
		return nil
	})
}

// RemoveResourceTemplates removes the templates with these URI templates.
func (s *Server) RemoveResourceTemplates(uriTemplates ...string) {
	s.update(Change{Kind: ResourcesChanged}, func(reg *registry) error {
		for _, u := range uriTemplates {
			if e, ok := reg.tmplByKey[u]; ok {
				delete(reg.tmplByKey, u)
				reg.templates = removeEntry(reg.templates, e)
			}
		}
		return nil
	})
}

// ListResources returns the static resources visible to the caller.
func (s *Server) ListResources(ctx context.Context, auth any) []Resource {
	r := s.reg.Load()
	out := make([]Resource, 0, len(r.resources))
	for _, e := range r.resources {
		if allowed(e.res.CanAccess, auth) && policyAllows(ctx, auth, KindResource, e.res.URI) {
			out = append(out, e.res)
		}
	}
	return out
}

// ListResourceTemplates returns the templates visible to the caller.
func (s *Server) ListResourceTemplates(ctx context.Context, auth any) []ResourceTemplate {
	r := s.reg.Load()
	out := make([]ResourceTemplate, 0, len(r.templates))
	for _, e := range r.templates {
		if allowed(e.tmpl.CanAccess, auth) && policyAllows(ctx, auth, KindResource, e.tmpl.URITemplate) {
			out = append(out, e.tmpl)
		}
	}
	return out
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
}

// ErrResourceNotFound is matched (errors.Is) by the error ReadResource
// returns for an unknown URI.
var ErrResourceNotFound = &Error{Code: CodeInvalidParams}

// ReadResource loads the resource named by uri: a static resource with
// that URI, else the first template that matches it. An unknown (or
// hidden) URI is an *[Error] with [CodeInvalidParams] and {"uri": uri} as
// data (SEP-2164); a failing loader is [CodeInternalError] unless it
// returned an *Error itself.
func (s *Server) ReadResource(ctx context.Context, c *Context, uri string) (*ReadResourceResult, error) {
	reg := s.reg.Load()
	var (
		contents []ResourceContents
		err      error
		name     string
		mime     string
	)
	if e, ok := reg.resByURI[uri]; ok && allowed(e.res.CanAccess, c.Session) && policyAllows(ctx, c.Session, KindResource, uri) {
		name, mime = e.res.Name, e.res.MIMEType
		contents, err = e.res.Load(ctx, c)
	} else if e, args := reg.matchTemplate(ctx, uri, c.Session); e != nil {
		name, mime = e.tmpl.Name, e.tmpl.MIMEType
		contents, err = e.tmpl.Load(ctx, c, args)
	} else {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Resource not found: %s", uri), Data: map[string]string{"uri": uri}}
	}
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			return nil, je
		}
		return nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("Failed to load resource %q (%s): %v", name, uri, err), Data: map[string]string{"uri": uri}}
	}
	for i := range contents {
		if contents[i].URI == "" {
			contents[i].URI = uri
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

func (r *registry) matchTemplate(ctx context.Context, uri string, auth any) (*templateEntry, map[string]string) {
	for _, e := range r.templates {
		if !allowed(e.tmpl.CanAccess, auth) || !policyAllows(ctx, auth, KindResource, e.tmpl.URITemplate) {
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
