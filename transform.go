package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Transform describes a tool derived from a registered one by
// [Server.AddTransformedTool] (FastMCP's Tool.from_tool): a new name and
// description, arguments hidden, renamed or given new defaults, and a
// wrapper around the call. The derived tool's input schema follows the
// transform, and calls are validated against it before they are mapped
// back to the source tool's arguments (and validated again by the source's
// schema). Everything a Transform leaves empty is the source's: title,
// description, annotations, _meta, icons, output schema, CanAccess,
// Timeout, Task. Tags and CanAccess are always the source's, and so are
// the policies of guards: a guard sees a derived tool's call with the
// source's typed input and the renames ([GuardedCall].InputType and
// InputNames), so that an audit trail redacts an argument by the source's
// struct tags under its new name, and a destructive source's derived
// tool stays destructive (see Annotations).
type Transform struct {
	// Name is the derived tool's name. Required, and not the source's
	// (unless the source was removed first).
	Name string
	// Title, when set, replaces the source's title.
	Title string
	// Description, when set, replaces the source's description.
	Description string
	// Annotations, when set, replace the source's annotations, but for a
	// DestructiveHint left nil, which keeps the source's. Over a source
	// whose destructiveHint is true, a DestructiveHint false or a
	// ReadOnlyHint true is refused: the derived tool runs the source's
	// code, so the guards that ask for approval of destructive calls
	// (package approval) keep applying to it.
	Annotations *ToolAnnotations
	// Meta, when set, replaces the source's _meta.
	Meta map[string]any
	// Args change the source's arguments, keyed by the name the source
	// gives them (a property of its input schema's top level). Arguments
	// not named here are kept as they are.
	Args map[string]ArgTransform
	// Wrap, when set, runs around every call of the derived tool: it gets
	// the arguments as the client sent them (under the derived names,
	// validated, defaults applied) and calls next to run the source tool,
	// with those arguments or others; it may change the result, or not
	// call next at all.
	Wrap ToolWrapper
}

// ArgTransform changes one argument of a source tool in a [Transform].
// Its zero value changes nothing.
type ArgTransform struct {
	// Name, when set, is the argument's name in the derived tool: the
	// schema's property is renamed (its place in the required list too),
	// and a call's argument is passed to the source under the old name.
	Name string
	// Description, when set, replaces the argument's description.
	Description string
	// Default, when not nil, is the argument's new default in the derived
	// schema: a call without the argument gets it, so a required argument
	// of the source becomes optional. It must be valid for the argument's
	// schema.
	Default any
	// Required makes an optional argument required in the derived tool.
	Required bool
	// Hide removes the argument from the derived tool's schema: clients
	// neither see nor set it (a client's value under its name is refused
	// by a schema that allows no additional properties, and dropped by one
	// that does). The source gets Value, or ValueFunc's result, or, with
	// neither, no value (its own default applies); a required argument
	// must have one.
	Hide bool
	// Value is the fixed value a hidden argument always has.
	Value any
	// ValueFunc computes a hidden argument's value on every call, from the
	// request (its context, the caller's session); an error fails the
	// call like the tool's own.
	ValueFunc func(ctx context.Context, c *Context) (any, error)
}

// ToolWrapper runs around the calls of a derived tool (see
// [Transform.Wrap]). args are the call's arguments under the derived
// tool's names; numbers are json.Number, so that none loses precision on
// the way to the source. next maps its arguments back to the source's
// names, adds the hidden arguments' values, validates them against the
// source's schema and runs the source tool.
type ToolWrapper func(ctx context.Context, c *Context, args map[string]any, next ToolCall) (*ContentResult, error)

// ToolCall runs a tool with the given arguments; see [ToolWrapper].
type ToolCall func(ctx context.Context, args map[string]any) (*ContentResult, error)

// AddTransformedTool registers the tool t derives from the registered tool
// named source (see [Transform]). The derived tool holds the source as it
// is now: removing the source afterwards ([Registry.Remove]) leaves the derived
// tool working, which is how a tool is replaced by its transform. A
// source with versions ([Tool].Version) is its newest version, whose
// Version the derived tool keeps. It panics when the transform cannot
// work; transforms made at run time use [Registry.AddTransformedTool].
func (s *Server) AddTransformedTool(source string, t Transform) {
	must("AddTransformedTool", s.tryAddTransformedTool(source, t))
}

// tryAddTransformedTool is [Server.AddTransformedTool] returning the
// error ([Registry.AddTransformedTool]).
func (s *Server) tryAddTransformedTool(source string, t Transform) error {
	src, ok := s.reg.Load().tools.byKey[source]
	if !ok {
		return invalid("transform %q: no tool named %q to derive it from", t.Name, source)
	}
	if src.vs != nil {
		src = src.vs.list[0] // a versioned source: its newest version
	}
	tr, schema, err := newTransformer(src, t)
	if err != nil {
		return invalid("transform %q of tool %q: %v", t.Name, source, err)
	}
	d := src.tool
	d.Name, d.InputSchema = t.Name, schema
	d.Title = cmpOr(t.Title, d.Title)
	d.Description = cmpOr(t.Description, d.Description)
	if t.Annotations != nil {
		a, err := derivedAnnotations(src.tool.Annotations, *t.Annotations)
		if err != nil {
			return invalid("transform %q of tool %q: %v", t.Name, source, err)
		}
		d.Annotations = a
	}
	if t.Meta != nil {
		d.Meta = t.Meta
	}
	e, err := newToolEntry(d, tr.run)
	if err != nil {
		return err
	}
	e.local = src.local // a catalog tool's transform serves the same catalog
	// What guards and the audit trail read of the source, so that its
	// calls are judged and recorded by the source's own policy: its typed
	// input under the derived names, and the guards of the servers it was
	// imported from.
	e.inType, e.inNames, e.guardedBy = src.inType, tr.inputNames(src, schema), src.guardedBy
	return s.addEntry("", e)
}

// derivedAnnotations are a derived tool's annotations when its Transform
// sets some: t, with the source's destructiveHint where t leaves it
// unset. A derived tool runs its source's code with arguments a wrapper
// may choose, so what the source declares destructive stays so: t may not
// set destructiveHint false nor readOnlyHint true over a source whose
// destructiveHint is true, which would let the derived tool past the
// guards that ask for approval (package approval) and tell clients it is
// safe to call unasked.
func derivedAnnotations(src *ToolAnnotations, t ToolAnnotations) (*ToolAnnotations, error) {
	if src == nil || src.DestructiveHint == nil || !*src.DestructiveHint {
		return &t, nil
	}
	switch {
	case t.DestructiveHint != nil && !*t.DestructiveHint:
		return nil, fmt.Errorf("the source declares destructiveHint true, and a derived tool runs its code, so it stays destructive: its Annotations may not set destructiveHint false (leave it unset; a tool that is really harmless is registered as a tool of its own, or exempted by the guard's own configuration, such as approval.Config.Require)")
	case t.ReadOnlyHint:
		return nil, fmt.Errorf("the source declares destructiveHint true, and a derived tool runs its code, so it stays destructive: its Annotations may not set readOnlyHint true (a tool that is really read-only is registered as a tool of its own)")
	}
	t.DestructiveHint = src.DestructiveHint
	return &t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// transformer maps a derived tool's calls to its source.
type transformer struct {
	src  *toolEntry
	wrap ToolWrapper
	// toOld maps a renamed argument's derived name to the source's.
	toOld map[string]string
	// shadowed are source names the derived tool does not expose under
	// that name (hidden or renamed): a client never sets them.
	shadowed map[string]bool
	hidden   []hiddenArg
}

type hiddenArg struct {
	name  string
	value any // nil: none, unless fn
	fn    func(ctx context.Context, c *Context) (any, error)
}

// schemaCombinators are the keywords of a root schema that may name or
// constrain its properties elsewhere than in properties and required:
// renaming or hiding an argument would leave them wrong.
func schemaCombinators(s *jsonschema.Schema) string {
	switch {
	case s.DependentRequired != nil:
		return "dependentRequired"
	case s.DependentSchemas != nil:
		return "dependentSchemas"
	case s.AllOf != nil:
		return "allOf"
	case s.AnyOf != nil:
		return "anyOf"
	case s.OneOf != nil:
		return "oneOf"
	case s.Not != nil:
		return "not"
	case s.If != nil:
		return "if"
	case s.PatternProperties != nil:
		return "patternProperties"
	case s.PropertyNames != nil:
		return "propertyNames"
	}
	return ""
}

// newTransformer checks t against the source and returns the mapping and
// the derived input schema.
func newTransformer(src *toolEntry, t Transform) (*transformer, *jsonschema.Schema, error) {
	in := src.tool.InputSchema
	tr := &transformer{src: src, wrap: t.Wrap, toOld: map[string]string{}, shadowed: map[string]bool{}}
	required := map[string]bool{}
	for _, r := range in.Required {
		required[r] = true
	}
	for _, old := range slices.Sorted(maps.Keys(t.Args)) {
		if err := checkTransformArg(in, old, t.Args[old], required[old]); err != nil {
			return nil, nil, err
		}
	}

	// The derived schema: a copy whose properties, required list and
	// order are rebuilt.
	out := in.CloneSchemas()
	out.Properties = make(map[string]*jsonschema.Schema, len(in.Properties))
	out.Required = nil
	out.PropertyOrder = nil
	if err := tr.deriveProperties(in, t, out); err != nil {
		return nil, nil, err
	}
	order := in.PropertyOrder
	if len(order) == 0 {
		order = slices.Sorted(maps.Keys(in.Properties))
	}
	for _, old := range order {
		if _, ok := in.Properties[old]; ok && !t.Args[old].Hide {
			out.PropertyOrder = append(out.PropertyOrder, t.argName(old))
		}
	}
	out.Required = derivedRequired(in, t, order, required)
	if len(in.Properties) == 0 {
		out.Properties = in.Properties
	}
	return tr, out, nil
}

// argName is the derived name of the source argument old.
func (t Transform) argName(old string) string { return cmpOr(t.Args[old].Name, old) }

// deriveProperties fills out's properties with the source's (in), each
// under its derived name with its derived schema, and records in tr the
// hidden and renamed ones. Two arguments may not end up with one name.
func (tr *transformer) deriveProperties(in *jsonschema.Schema, t Transform, out *jsonschema.Schema) error {
	exposed := map[string]string{} // derived name → source name
	for _, old := range slices.Sorted(maps.Keys(in.Properties)) {
		a := t.Args[old]
		if a.Hide {
			tr.shadowed[old] = true
			tr.hidden = append(tr.hidden, hiddenArg{name: old, value: a.Value, fn: a.ValueFunc})
			continue
		}
		name := t.argName(old)
		if other, dup := exposed[name]; dup {
			first, second := min(other, old), max(other, old)
			return fmt.Errorf("arguments %q and %q would both be named %q", first, second, name)
		}
		exposed[name] = old
		p, err := derivedProperty(in.Properties[old], old, a)
		if err != nil {
			return err
		}
		out.Properties[name] = p
		if name != old {
			tr.toOld[name] = old
			tr.shadowed[old] = true
		}
	}
	return nil
}

// derivedRequired is the derived schema's required list, in the
// properties' order: the source's required arguments still shown and
// without a default, those the transform makes required, and any
// required name the source's properties do not declare.
func derivedRequired(in *jsonschema.Schema, t Transform, order []string, required map[string]bool) []string {
	var out []string
	for _, old := range order {
		a := t.Args[old]
		if _, ok := in.Properties[old]; ok && !a.Hide && (required[old] && a.Default == nil || a.Required) {
			out = append(out, t.argName(old))
		}
	}
	for _, r := range in.Required {
		if _, ok := in.Properties[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}

// checkTransformArg refuses a transform of the source argument old that
// cannot work: an argument the source lacks, an invalid ArgTransform, a
// rename or hiding under schema combinators, a required argument hidden
// without a value, a hidden Value its schema refuses.
func checkTransformArg(in *jsonschema.Schema, old string, a ArgTransform, required bool) error {
	if _, ok := in.Properties[old]; !ok {
		return fmt.Errorf("argument %q: the source has no such argument (it has %s)", old, argList(in))
	}
	if err := a.check(); err != nil {
		return fmt.Errorf("argument %q: %v", old, err)
	}
	if (a.Hide || a.Name != "" && a.Name != old) && schemaCombinators(in) != "" {
		return fmt.Errorf("argument %q: the source's schema constrains its arguments with %s, which a renamed or hidden argument would break", old, schemaCombinators(in))
	}
	if a.Hide && required && a.Value == nil && a.ValueFunc == nil {
		return fmt.Errorf("argument %q: it is required, so hiding it needs a Value or ValueFunc", old)
	}
	if a.Hide && a.Value != nil {
		if err := validValue(in.Properties[old], a.Value); err != nil {
			return fmt.Errorf("argument %q: the Value %v", old, err)
		}
	}
	return nil
}

// derivedProperty is the schema of the exposed argument: a copy of the
// source's with the transform's description and default.
func derivedProperty(src *jsonschema.Schema, old string, a ArgTransform) (*jsonschema.Schema, error) {
	p := src.CloneSchemas()
	if a.Description != "" {
		p.Description = a.Description
	}
	if a.Default != nil {
		b, err := json.Marshal(a.Default)
		if err != nil {
			return nil, fmt.Errorf("argument %q: the Default does not encode as JSON: %v", old, err)
		}
		if err := validValue(p, a.Default); err != nil {
			return nil, fmt.Errorf("argument %q: the Default %v", old, err)
		}
		p.Default = b
	}
	return p, nil
}

// check refuses fields of one ArgTransform that do not go together.
func (a ArgTransform) check() error {
	switch {
	case a.Name != "" && !validArgName(a.Name):
		return fmt.Errorf("the new name %q is not a usable argument name (1 to 128 characters, no control characters)", a.Name)
	case !a.Hide && (a.Value != nil || a.ValueFunc != nil):
		return fmt.Errorf("a Value or ValueFunc is for a hidden argument (set Hide); a value the client may change is a Default")
	case a.Value != nil && a.ValueFunc != nil:
		return fmt.Errorf("set Value or ValueFunc, not both")
	case a.Hide && (a.Name != "" || a.Description != "" || a.Default != nil || a.Required):
		return fmt.Errorf("a hidden argument takes no Name, Description, Default or Required (its value is Value or ValueFunc)")
	case a.Required && a.Default != nil:
		return fmt.Errorf("a required argument has no use for a Default")
	}
	return nil
}

// validArgName reports whether name can be a property of the derived
// schema: 1 to 128 characters, none a control character.
func validArgName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// argList names the source's arguments for an error.
func argList(s *jsonschema.Schema) string {
	if len(s.Properties) == 0 {
		return "none"
	}
	names := slices.Sorted(maps.Keys(s.Properties))
	for i, n := range names {
		names[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(names, ", ")
}

// validValue checks v against the property schema p. A schema that does
// not resolve on its own (a $ref into the root's $defs) is left to the
// source's validation on each call.
func validValue(p *jsonschema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("does not encode as JSON: %v", err)
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		return err
	}
	res, err := p.CloneSchemas().Resolve(nil)
	if err != nil {
		return nil
	}
	if err := res.Validate(inst); err != nil {
		return fmt.Errorf("%s is not valid for the argument: %v", b, err)
	}
	return nil
}

// inputNames maps each argument of the derived schema whose name in the
// source's typed input differs (renamed here, or by src when it is a
// transform itself) to that name; nil when none does.
func (tr *transformer) inputNames(src *toolEntry, schema *jsonschema.Schema) map[string]string {
	var names map[string]string
	for name := range schema.Properties {
		old := cmpOr(tr.toOld[name], name)
		if o, ok := src.inNames[old]; ok {
			old = o
		}
		if old != name {
			if names == nil {
				names = map[string]string{}
			}
			names[name] = old
		}
	}
	return names
}

// run is the derived tool's RawToolFunc: args passed the derived schema.
func (tr *transformer) run(ctx context.Context, c *Context, raw json.RawMessage) (*ContentResult, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, &argError{msg: err.Error()}
	}
	if args == nil {
		args = map[string]any{}
	}
	next := func(ctx context.Context, args map[string]any) (*ContentResult, error) { return tr.call(ctx, c, args) }
	if tr.wrap == nil {
		return next(ctx, args)
	}
	return tr.wrap(ctx, c, args, next)
}

// call maps args to the source's names, adds the hidden values and runs
// the source after its own validation.
func (tr *transformer) call(ctx context.Context, c *Context, args map[string]any) (*ContentResult, error) {
	out := make(map[string]any, len(args)+len(tr.hidden))
	for k, v := range args {
		if old, ok := tr.toOld[k]; ok {
			out[old] = v
		} else if !tr.shadowed[k] {
			out[k] = v
		}
	}
	for _, h := range tr.hidden {
		v := h.value
		if h.fn != nil {
			var err error
			if v, err = h.fn(ctx, c); err != nil {
				return nil, err
			}
		}
		if v != nil {
			out[h.name] = v
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the arguments for tool %q: %w", tr.src.tool.Name, err)
	}
	src, err := tr.src.prepare(b)
	if err != nil {
		return nil, &argError{msg: err.Error()}
	}
	return tr.src.run(ctx, c, src)
}
