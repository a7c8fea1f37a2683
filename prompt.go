package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// PromptArgument declares one argument of a prompt. Prompt arguments are
// strings on the wire.
type PromptArgument struct {
	// Name identifies the argument. Required and unique in the prompt.
	Name string `json:"name"`
	// Title is an optional display name.
	Title string `json:"title,omitempty"`
	// Description tells the user what to give.
	Description string `json:"description,omitempty"`
	// Required makes prompts/get without it an invalid-params error.
	Required bool `json:"required,omitempty"`
	// Enum lists the allowed values (prompts/get refuses others);
	// completion suggests from it when Complete is nil.
	Enum []string `json:"-"`
	// Complete suggests values for completion/complete.
	Complete CompleteFunc `json:"-"`
}

// Prompt is a prompt template.
type Prompt struct {
	// Name is the unique identifier. Required.
	Name string
	// Title is an optional display name.
	Title string
	// Description tells the user what the prompt is for; it is also the
	// default description of the prompts/get result.
	Description string
	// Arguments declare the prompt's arguments. [AddTypedPrompt] infers
	// them from a struct.
	Arguments []PromptArgument
	// Meta is sent as _meta in prompts/list.
	Meta map[string]any
	// Icons are images a client may show for the prompt (see [Icon]).
	Icons []Icon
	// Load builds the messages from the arguments. Required arguments and
	// enums are checked before it runs.
	Load func(ctx context.Context, c *Context, args map[string]string) (*PromptResult, error)
	// CanAccess, when set, hides the prompt from callers it refuses (see
	// [access.Check]).
	CanAccess access.Check
	// Tags group prompts for [Registry.Disable] and [Registry.Enable] (see
	// [Tool].Tags); prompts/list does not send them.
	Tags []string
}

// promptWire is the prompts/list form of a prompt, both ways.
type promptWire struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// MarshalJSON writes the prompts/list form.
func (p Prompt) MarshalJSON() ([]byte, error) {
	args := p.Arguments
	if args == nil {
		args = []PromptArgument{}
	}
	return json.Marshal(promptWire{p.Name, p.Title, p.Description, args, p.Icons, p.Meta})
}

// UnmarshalJSON reads the prompts/list form.
func (p *Prompt) UnmarshalJSON(data []byte) error {
	var w promptWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = Prompt{Name: w.Name, Title: w.Title, Description: w.Description, Arguments: w.Arguments, Icons: w.Icons, Meta: w.Meta}
	return nil
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	// Role is who says it: [RoleUser] or [RoleAssistant].
	Role Role `json:"role"`
	// Content is what is said: text, an image, audio or a resource.
	Content Content `json:"content"`
}

// UnmarshalJSON decodes the content into its concrete type.
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = PromptMessage{Role: w.Role}
	if len(w.Content) > 0 && w.Content[0] == '{' {
		c, err := UnmarshalContent(w.Content)
		if err != nil {
			return err
		}
		m.Content = c
	}
	return nil
}

// PromptResult is the result of prompts/get.
type PromptResult struct {
	// Description describes the result; the prompt's own by default.
	Description string `json:"description,omitempty"`
	// Messages are the prompt's messages, in order.
	Messages []PromptMessage `json:"messages"`
}

// UserText is a shorthand for a one-message prompt result: the user says s.
func UserText(s string) *PromptResult {
	return &PromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: TextContent{Text: s}}}}
}

type promptEntry struct {
	entryBase
	p Prompt
}

// AddPrompt registers a prompt. It panics when Name is empty, Load is nil,
// an argument is unnamed or repeated, or the name is already registered;
// prompts made at run time use [Registry.AddPrompt].
func (s *Server) AddPrompt(p Prompt) { must("AddPrompt", s.tryAddPrompt(p)) }

// tryAddPrompt is [Server.AddPrompt] returning the error
// ([Registry.AddPrompt]).
func (s *Server) tryAddPrompt(p Prompt) error { return s.addPromptFor("", p) }

// addPromptFor registers a prompt for the server (sid "") or for one
// session.
func (s *Server) addPromptFor(sid string, p Prompt) error {
	if p.Name == "" {
		return invalid("Prompt.Name is required")
	}
	if p.Load == nil {
		return invalid("prompt %q: Prompt.Load is required", p.Name)
	}
	if err := checkIcons("Prompt.", p.Icons); err != nil {
		return invalid("prompt %q: %v", p.Name, err)
	}
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if a.Name == "" || seen[a.Name] {
			return invalid("prompt %q: argument names must be non-empty and unique (%q)", p.Name, a.Name)
		}
		seen[a.Name] = true
	}
	e := &promptEntry{entryBase: entryBase{key: p.Name, kind: access.KindPrompt, canAccess: p.CanAccess, tags: slices.Clone(p.Tags)}, p: p}
	if sid != "" {
		return s.updateSession(sid, func(o *overlay) ([]engine.ChangeKind, error) {
			return []engine.ChangeKind{engine.PromptsChanged}, o.prompts.add(e, "session prompt")
		})
	}
	return s.update(change{Kind: engine.PromptsChanged}, func(r *registry) error { return r.prompts.add(e, "prompt") })
}

// PromptFunc is the body of a typed prompt: it gets the arguments decoded
// into In, already checked (required ones present, enums respected).
type PromptFunc[In any] func(ctx context.Context, c *Context, args In) (*PromptResult, error)

// AddTypedPrompt registers a prompt whose arguments are the fields of the
// struct In, as [AddTool] does for tools: the `json` tag names an argument,
// the `jsonschema:"…"` tag describes it, `title:"…"` gives its display
// name, `enum:"a,b"` restricts its values, `default:"…"` fills it when the
// request leaves it out or empty (an optional argument only: a form in a
// client sends "" for a field left blank), and a field without omitempty
// (or omitzero) is required. Prompt arguments are strings on the wire, so
// every field must be of a string kind. An argument absent from the
// request, without a default, leaves its field empty.
//
// p.Load must be nil (load takes its place). p.Arguments may list some of
// the inferred arguments again to add what tags cannot say (a Complete
// function, a Title); its other members are ignored, and an entry that
// names no field is an error. It panics like [Server.AddPrompt]; prompts
// made at run time use [TryAddTypedPrompt].
func AddTypedPrompt[In any](s *Server, p Prompt, load PromptFunc[In]) {
	must("AddTypedPrompt", tryAddTypedPrompt(s, "", p, load))
}

// TryAddTypedPrompt is [AddTypedPrompt] for prompts made while the server
// runs, registered in r: the server's registry ([Server.Registry]) or one
// session's ([Server.SessionRegistry]). Instead of panicking it returns an
// error wrapping [ErrAlreadyRegistered], [ErrInvalidDefinition] or, for a
// session not live here, [ErrNoSession]. On error nothing is registered.
func TryAddTypedPrompt[In any](r *Registry, p Prompt, load PromptFunc[In]) error {
	if err := r.check(); err != nil {
		return err
	}
	return tryAddTypedPrompt(r.s, r.sid, p, load)
}

// tryAddTypedPrompt is [TryAddTypedPrompt] for the server (sid "") or for
// one session.
func tryAddTypedPrompt[In any](s *Server, sid string, p Prompt, load PromptFunc[In]) error {
	if load == nil {
		return invalid("prompt %q: the load function is nil", p.Name)
	}
	if p.Load != nil {
		return invalid("prompt %q: set either Prompt.Load or a typed load function, not both", p.Name)
	}
	t := reflect.TypeFor[In]()
	args, fields, defaults, err := promptArgs(t)
	if err != nil {
		return invalid("prompt %q: argument type %v: %v", p.Name, t, err)
	}
	for _, extra := range p.Arguments {
		i := slices.IndexFunc(args, func(a PromptArgument) bool { return a.Name == extra.Name })
		if i < 0 {
			return invalid("prompt %q: Prompt.Arguments names %q, which is not an argument of %v", p.Name, extra.Name, t)
		}
		args[i].Complete = extra.Complete
		if extra.Title != "" {
			args[i].Title = extra.Title
		}
	}
	p.Arguments = args
	p.Load = func(ctx context.Context, c *Context, m map[string]string) (*PromptResult, error) {
		v := reflect.New(t).Elem()
		for i, a := range args {
			x := m[a.Name]
			if x == "" {
				x = defaults[i]
			}
			v.FieldByIndex(fields[i]).SetString(x)
		}
		return load(ctx, c, v.Interface().(In))
	}
	return s.addPromptFor(sid, p)
}

// promptArgs infers the arguments of a typed prompt from the struct t,
// with the index of the field behind each and its `default` tag ("" when
// it has none).
func promptArgs(t reflect.Type) (args []PromptArgument, fields [][]int, defaults []string, err error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, nil, fmt.Errorf("prompt arguments come from a struct, not a %v", t.Kind())
	}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if f.Type.Kind() != reflect.String {
			return nil, nil, nil, fmt.Errorf("field %s is a %v: prompt arguments are strings, so use a string field", f.Name, f.Type)
		}
		optional := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		a := PromptArgument{Name: name, Title: f.Tag.Get("title"), Description: f.Tag.Get("jsonschema"), Required: !optional}
		if e, ok := f.Tag.Lookup("enum"); ok {
			for _, v := range strings.Split(e, ",") {
				a.Enum = append(a.Enum, strings.TrimSpace(v))
			}
		}
		def, err := promptArgDefault(f, a)
		if err != nil {
			return nil, nil, nil, err
		}
		args = append(args, a)
		fields = append(fields, f.Index)
		defaults = append(defaults, def)
	}
	return args, fields, defaults, nil
}

// promptArgDefault is the `default` tag of field f behind argument a (""
// when it has none), refused when it could never apply or is not one of
// the enum.
func promptArgDefault(f reflect.StructField, a PromptArgument) (string, error) {
	def, hasDef := f.Tag.Lookup("default")
	switch {
	case !hasDef:
		return "", nil
	case def == "":
		return "", fmt.Errorf("field %s: default: an empty default is what an absent argument gets anyway: drop the tag", f.Name)
	case a.Required:
		return "", fmt.Errorf("field %s: default: a required argument is always given, so its default would never apply: add omitempty to the json tag", f.Name)
	case len(a.Enum) > 0 && !slices.Contains(a.Enum, def):
		return "", fmt.Errorf("field %s: default %q is not one of the enum (%s)", f.Name, def, strings.Join(a.Enum, ", "))
	}
	return def, nil
}

// listPrompts returns the prompts the caller sees (see
// [Server.ListTools] for the session): what prompts/list answers.
func (s *Server) listPrompts(ctx context.Context, auth any, sid string, pc *bool) []Prompt {
	return listAll(s, ctx, auth, sid, promptOps, func(e *promptEntry) Prompt { return e.p }, func(h hit[*promptEntry]) Prompt {
		p := h.e.p
		p.Name = h.key
		return p
	}, pc)
}

// getPrompt builds the named prompt. An unknown prompt, a missing
// required argument or a value outside an argument's enum is an *[Error]
// with [CodeInvalidParams].
func (s *Server) getPrompt(ctx context.Context, c *Context, name string, args map[string]string) (*PromptResult, error) {
	if _, err := s.checkCallerRules(ctx, c.Session); err != nil {
		return nil, err
	}
	e, ok := find(s, ctx, c.Session, c.SessionID, name, s.reg.Load().prompts, ownPrompts)
	owner := s
	if !ok {
		if e, owner, ok = s.mountedPrompt(ctx, c.Session, c.SessionID, name); !ok { // compose.go
			return nil, &Error{Code: CodeInvalidParams, Message: "Unknown prompt: " + strictjson.Quote(name)}
		}
	}
	if err := checkPromptArgs(name, e.p.Arguments, args); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]string{}
	}
	res, err := protect(owner, "prompt", name, func() (*PromptResult, error) { return e.p.Load(ctx, c, args) })
	if err != nil {
		return nil, loaderError(err, fmt.Sprintf("Failed to load prompt %q", name), nil)
	}
	if res == nil {
		res = &PromptResult{}
	}
	if res.Messages == nil {
		res.Messages = []PromptMessage{}
	}
	if res.Description == "" {
		res.Description = e.p.Description
	}
	return res, nil
}

// checkPromptArgs checks the arguments given to prompt name against its
// declared ones: each required one given, each value in its enum.
func checkPromptArgs(name string, declared []PromptArgument, args map[string]string) error {
	for _, a := range declared {
		v, ok := args[a.Name]
		if a.Required && !ok {
			return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Prompt %q requires argument %q", name, a.Name)}
		}
		// An optional argument given as "" is one left blank in a
		// client's form: not a value outside the enum.
		if ok && len(a.Enum) > 0 && !slices.Contains(a.Enum, v) && (a.Required || v != "") {
			return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Prompt %q: argument %q must be one of %s, not %s", name, a.Name, strings.Join(a.Enum, ", "), strictjson.Quote(v))}
		}
	}
	return nil
}

// CompletionRef is what a completion/complete request completes: a prompt
// (Type "ref/prompt", Name) or a resource template (Type "ref/resource",
// URI holding the template).
type CompletionRef struct {
	// Type is "ref/prompt" or "ref/resource".
	Type string `json:"type"`
	// Name is the prompt's name, for "ref/prompt".
	Name string `json:"name,omitempty"`
	// URI is the resource template, for "ref/resource".
	URI string `json:"uri,omitempty"`
}

// CompletionResult is the completion member of a completion/complete result.
type CompletionResult struct {
	// Values are the suggestions, at most 100.
	Values []string `json:"values"`
	// Total is how many suggestions there are in all.
	Total int `json:"total,omitempty"`
	// HasMore says there are suggestions beyond Values.
	HasMore bool `json:"hasMore,omitempty"`
}

// maxCompletionValues is the spec's cap on values in one response.
const maxCompletionValues = 100

// complete suggests values for one argument of a prompt or template. An
// unknown reference or argument is an *[Error] with [CodeInvalidParams].
func (s *Server) complete(ctx context.Context, c *Context, ref CompletionRef, arg, value string, args map[string]string) (*CompletionResult, error) {
	reg := s.reg.Load()
	var complete CompleteFunc
	var enum []string
	owner := s
	switch ref.Type {
	case "ref/prompt":
		e, ok := find(s, ctx, c.Session, c.SessionID, ref.Name, reg.prompts, ownPrompts)
		if !ok {
			e, owner, ok = s.mountedPrompt(ctx, c.Session, c.SessionID, ref.Name) // compose.go
		}
		if !ok {
			return nil, &Error{Code: CodeInvalidParams, Message: "Unknown prompt: " + strictjson.Quote(ref.Name)}
		}
		i := slices.IndexFunc(e.p.Arguments, func(a PromptArgument) bool { return a.Name == arg })
		if i < 0 {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Prompt %q has no argument %s", ref.Name, strictjson.Quote(arg))}
		}
		complete, enum = e.p.Arguments[i].Complete, e.p.Arguments[i].Enum
	case "ref/resource":
		e, ok := find(s, ctx, c.Session, c.SessionID, ref.URI, reg.templates, ownTemplates)
		if !ok {
			e, owner, ok = s.mountedTemplate(ctx, c.Session, c.SessionID, ref.URI) // compose.go
		}
		if !ok {
			return nil, &Error{Code: CodeInvalidParams, Message: "Unknown resource template: " + strictjson.Quote(ref.URI)}
		}
		if i := slices.IndexFunc(e.tmpl.Arguments, func(a TemplateArgument) bool { return a.Name == arg }); i >= 0 {
			complete = e.tmpl.Arguments[i].Complete
		}
	default:
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown reference type %s (want ref/prompt or ref/resource)", strictjson.Quote(ref.Type))}
	}
	var values []string
	switch {
	case complete != nil:
		v, err := protect(owner, "completion", arg, func() ([]string, error) { return complete(ctx, value, args) })
		if err != nil {
			return nil, loaderError(err, fmt.Sprintf("Completing %q failed", arg), nil)
		}
		values = v
	case enum != nil:
		values = enumCompletions(enum, value)
	}
	res := &CompletionResult{Values: values, Total: len(values)}
	if res.Values == nil {
		res.Values = []string{}
	}
	if len(res.Values) > maxCompletionValues {
		res.Values, res.HasMore = res.Values[:maxCompletionValues], true
	}
	return res, nil
}

// enumCompletions are the values of an enum that start with value, case
// aside.
func enumCompletions(enum []string, value string) []string {
	var values []string
	for _, x := range enum {
		if strings.HasPrefix(strings.ToLower(x), strings.ToLower(value)) {
			values = append(values, x)
		}
	}
	return values
}
