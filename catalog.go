package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// CatalogTools chooses the tools [Server.AddCatalogTools] registers. Each
// answers from what the caller may see, exactly as the matching MCP method
// would: the objects' CanAccess, the Disable and Enable rules (per session
// too), the request's access policies and the objects of mounted servers
// under their prefixed names. A refused object is as absent from their
// answers as from the lists.
type CatalogTools struct {
	// Resources registers list_resources (the resources and the URI
	// templates, with their arguments) and read_resource (one resource by
	// URI, a template's with its variables filled in), for a client that
	// only calls tools.
	Resources bool
	// Prompts registers list_prompts (the prompts and their arguments) and
	// get_prompt (a prompt rendered with its arguments, as JSON), for a
	// client that only calls tools.
	Prompts bool
	// Groups registers list_tool_groups: the groups the caller's tools
	// fall into and how many each holds, so that a model facing a large
	// catalog sees its shape at a glance and asks for one group's tools
	// (with their input schemas) by calling it again with "group". A
	// group is a tag ([Tool].Tags, [MountOptions].Tags) or a namespace:
	// the prefix of a [Server.Mount] or [Server.Import] (its tool x is
	// m_x, in namespace "m"; nested, "m" and "m_n").
	Groups bool
	// GroupDescriptions describe groups, by name, in list_tool_groups'
	// answer ("billing": "invoices, payments and refunds").
	GroupDescriptions map[string]string
	// Tags are put on every tool registered here, so that Disable, Enable
	// or an access.Policy can select them.
	Tags []string
}

// The names of the catalog tools.
const (
	listResourcesTool = "list_resources"
	readResourceTool  = "read_resource"
	listPromptsTool   = "list_prompts"
	getPromptTool     = "get_prompt"
	listGroupsTool    = "list_tool_groups"
)

// AddCatalogTools registers the tools c chooses: list_resources and
// read_resource, list_prompts and get_prompt, list_tool_groups (see
// [CatalogTools]). They read only, and say so in their annotations. They
// describe the server they are registered on, its mounts included, so
// they are not offered through a [Server.Mount] or [Server.Import] of it
// (in a parent they would see the child's names past the parent's
// checks): register them on the server the clients reach. A failing read
// (an unknown URI, a missing prompt argument) is an isError result the
// model can act on. It panics when a name is taken (nothing is
// registered then).
func (s *Server) AddCatalogTools(c CatalogTools) {
	must("AddCatalogTools", s.addCatalogTools(c))
}

func (s *Server) addCatalogTools(c CatalogTools) error {
	var entries []*toolEntry
	var errs []error
	add := func(t Tool, run RawToolFunc, err error) {
		if err == nil {
			var e *toolEntry
			if e, err = newToolEntry(t, run); err == nil {
				e.local = true
				entries = append(entries, e)
			}
		}
		errs = append(errs, err)
	}
	def := func(name, title, desc string) Tool {
		return Tool{Name: name, Title: title, Description: desc, Tags: slices.Clone(c.Tags),
			Annotations: &ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}}
	}
	if c.Resources {
		add(typedTool(def(listResourcesTool, "List resources",
			"List the resources this server offers: each static resource by its URI, and each URI template, whose {variables} you fill in to name one resource. Read one with read_resource."),
			s.catalogListResources))
		add(typedTool(def(readResourceTool, "Read a resource",
			"Read a resource by its URI: one list_resources gives, or a template's URI with its {variables} filled in. Returns the resource's contents."),
			s.catalogReadResource))
	}
	if c.Prompts {
		add(typedTool(def(listPromptsTool, "List prompts",
			"List the prompts this server offers, with their arguments. Render one with get_prompt."),
			s.catalogListPrompts))
		add(typedTool(def(getPromptTool, "Get a prompt",
			"Render a prompt that list_prompts gives, with its arguments (strings). Returns the prompt's messages as JSON: {\"description\", \"messages\": [{\"role\", \"content\"}]}."),
			s.catalogGetPrompt))
	}
	if c.Groups {
		descs := maps.Clone(c.GroupDescriptions)
		add(typedTool(def(listGroupsTool, "List tool groups",
			"List the groups of this server's tools (by tag, and by namespace: the prefix before \"_\" of a mounted server's tools) and how many tools each holds. Call it with \"group\" to list that group's tools with their input schemas."),
			func(ctx context.Context, mc *Context, in groupArgs) (*ContentResult, error) {
				return s.catalogGroups(ctx, mc, in, descs)
			}))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// One update, so that no request sees them without their mark.
	return s.update(change{Kind: engine.ToolsChanged}, func(r *registry) error {
		for _, e := range entries {
			if err := r.tools.add(e, "tool"); err != nil {
				return fmt.Errorf("%w (a catalog tool needs its name)", err)
			}
		}
		return nil
	})
}

// catalogJSON is a catalog tool's answer: its JSON as the one text item.
func catalogJSON(v any) (*ContentResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &ContentResult{Content: []Content{TextContent{Text: string(b)}}}, nil
}

// catalogFailure is a catalog tool's isError answer for a failed read:
// the message of the JSON-RPC error the method would have answered, which
// names what was wrong, and what to do.
func catalogFailure(err error, hint string) (*ContentResult, error) {
	var je *Error
	if !errors.As(err, &je) {
		return nil, err
	}
	msg := je.Message
	if hint != "" {
		msg += ". " + hint
	}
	return errorResult(msg), nil
}

type catalogResource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

type catalogTemplate struct {
	URITemplate string            `json:"uriTemplate"`
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	MIMEType    string            `json:"mimeType,omitempty"`
	Arguments   []catalogArgument `json:"arguments,omitempty"`
}

type catalogArgument struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Enum        []string `json:"enum,omitempty"`
}

func (s *Server) catalogListResources(ctx context.Context, c *Context, _ struct{}) (*ContentResult, error) {
	out := struct {
		Resources []catalogResource `json:"resources"`
		Templates []catalogTemplate `json:"templates"`
	}{Resources: []catalogResource{}, Templates: []catalogTemplate{}}
	for _, r := range s.listResources(ctx, c.Session, c.SessionID, nil) {
		out.Resources = append(out.Resources, catalogResource{r.URI, r.Name, r.Title, r.Description, r.MIMEType})
	}
	for _, t := range s.listResourceTemplates(ctx, c.Session, c.SessionID, nil) {
		ct := catalogTemplate{t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType, nil}
		for _, a := range t.Arguments {
			ct.Arguments = append(ct.Arguments, catalogArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out.Templates = append(out.Templates, ct)
	}
	return catalogJSON(out)
}

type readArgs struct {
	URI string `json:"uri" jsonschema:"the URI of a resource list_resources gives, or of a template with its variables filled in"`
}

// catalogReadResource reads a resource as resources/read would, and gives
// its contents as content items: text as text, images and audio as
// such (a model may see them), other binary contents as an embedded
// resource (base64, with its MIME type).
func (s *Server) catalogReadResource(ctx context.Context, c *Context, in readArgs) (*ContentResult, error) {
	res, err := s.readResource(ctx, c, in.URI)
	if err != nil {
		hint := ""
		if errors.Is(err, ErrResourceNotFound) {
			hint = "list_resources lists the resources and templates you may read"
		}
		return catalogFailure(err, hint)
	}
	out := &ContentResult{Content: make([]Content, 0, len(res.Contents))}
	for _, rc := range res.Contents {
		switch {
		case rc.Blob == nil:
			out.Content = append(out.Content, TextContent{Text: rc.Text})
		case strings.HasPrefix(rc.MIMEType, "image/"):
			out.Content = append(out.Content, ImageContent{Data: rc.Blob, MIMEType: rc.MIMEType})
		case strings.HasPrefix(rc.MIMEType, "audio/"):
			out.Content = append(out.Content, AudioContent{Data: rc.Blob, MIMEType: rc.MIMEType})
		default:
			out.Content = append(out.Content, EmbeddedResource{Resource: rc})
		}
	}
	return out, nil
}

func (s *Server) catalogListPrompts(ctx context.Context, c *Context, _ struct{}) (*ContentResult, error) {
	type prompt struct {
		Name        string            `json:"name"`
		Title       string            `json:"title,omitempty"`
		Description string            `json:"description,omitempty"`
		Arguments   []catalogArgument `json:"arguments,omitempty"`
	}
	out := struct {
		Prompts []prompt `json:"prompts"`
	}{Prompts: []prompt{}}
	for _, p := range s.listPrompts(ctx, c.Session, c.SessionID, nil) {
		cp := prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			cp.Arguments = append(cp.Arguments, catalogArgument{a.Name, a.Title, a.Description, a.Required, a.Enum})
		}
		out.Prompts = append(out.Prompts, cp)
	}
	return catalogJSON(out)
}

type getPromptArgs struct {
	Name      string            `json:"name" jsonschema:"the prompt's name, as list_prompts gives it"`
	Arguments map[string]string `json:"arguments,omitempty" jsonschema:"the prompt's arguments by name; every value is a string"`
}

func (s *Server) catalogGetPrompt(ctx context.Context, c *Context, in getPromptArgs) (*ContentResult, error) {
	res, err := s.getPrompt(ctx, c, in.Name, in.Arguments)
	if err != nil {
		return catalogFailure(err, "list_prompts lists the prompts you may get and their arguments")
	}
	return catalogJSON(res)
}

type groupArgs struct {
	Group string `json:"group,omitempty" jsonschema:"a group's name, to list its tools; leave it out to list the groups"`
}

type groupInfo struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // "tag" or "namespace"
	Description string `json:"description,omitempty"`
	Tools       int    `json:"tools"`
}

type groupTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// namespaces are the namespaces of a tool reached through mounts with
// these prefixes (outermost first): "a" and "a_b" for a_b_x; an empty
// prefix adds none.
func namespaces(path []string) []string {
	var out []string
	ns := ""
	for _, p := range path {
		if p == "" {
			continue
		}
		if ns != "" {
			ns += "_"
		}
		ns += p
		out = append(out, ns)
	}
	return out
}

// catalogGroups is list_tool_groups: the caller's tools counted by tag
// and namespace, or, with in.Group, that group's tools.
func (s *Server) catalogGroups(ctx context.Context, c *Context, in groupArgs, descs map[string]string) (*ContentResult, error) {
	type key struct{ kind, name string }
	counts := map[key]int{}
	ungrouped := 0
	var members []groupTool
	// A tool only an MCP App's view may call is left out: a host keeps it
	// from the model, and it does not filter a tool's result.
	hits := slices.DeleteFunc(listWithMounts(s, ctx, c.Session, c.SessionID, toolOps, nil), func(h hit[*toolEntry]) bool { return h.e.appOnly })
	for _, h := range hits {
		// The version the caller gets, with its own tags: the other
		// versions of its name lend it theirs for Disable and Enable
		// rules, but one the caller may not use must stay unseen.
		tags := slices.Concat(h.e.groupTags(), h.mountTags)
		tags = slices.Compact(slices.Sorted(slices.Values(tags)))
		ns := namespaces(append(slices.Clone(h.path), h.e.nsPath...))
		if len(tags) == 0 && len(ns) == 0 {
			ungrouped++
		}
		for _, t := range tags {
			counts[key{"tag", t}]++
		}
		for _, n := range ns {
			counts[key{"namespace", n}]++
		}
		if in.Group != "" && (slices.Contains(tags, in.Group) || slices.Contains(ns, in.Group)) {
			t := mountedTool(h)
			schema, err := json.Marshal(t.InputSchema)
			if err != nil {
				return nil, err
			}
			members = append(members, groupTool{t.Name, t.Title, t.Description, schema})
		}
	}
	groups := make([]groupInfo, 0, len(counts))
	for k, n := range counts {
		groups = append(groups, groupInfo{Name: k.name, Kind: k.kind, Description: descs[k.name], Tools: n})
	}
	slices.SortFunc(groups, func(a, b groupInfo) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Kind, b.Kind))
	})
	if in.Group == "" {
		return catalogJSON(struct {
			Groups    []groupInfo `json:"groups"`
			Ungrouped int         `json:"ungrouped"`
			Total     int         `json:"total"`
		}{groups, ungrouped, len(hits)})
	}
	if len(members) == 0 {
		names := make([]string, len(groups))
		for i, g := range groups {
			names[i] = g.Name
		}
		return errorResult(fmt.Sprintf("No group %s among this server's tools; the groups are: %s. Call list_tool_groups without \"group\" to see them with their sizes.",
			strictjson.Quote(in.Group), strings.Join(slices.Compact(names), ", "))), nil
	}
	return catalogJSON(struct {
		Group       string      `json:"group"`
		Description string      `json:"description,omitempty"`
		Tools       []groupTool `json:"tools"`
	}{in.Group, descs[in.Group], members})
}
