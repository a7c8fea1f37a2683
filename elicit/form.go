package elicit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/argschema"
)

// Form is a form-mode elicitation whose answer is a T: the
// requestedSchema inferred from T's fields as a tool's input schema is
// (descriptions from `jsonschema:"…"`, `title:"…"`, `enum:"a,b"`,
// `default:"…"`, and `mcp:"minLength=…,maxLength=…,format=…,minimum=…,
// maximum=…,minItems=…,maxItems=…"`), restricted to what the spec lets a
// form hold: a struct of string, number, integer and boolean fields, and
// lists of strings with an enum (a multi-select). `enumTitles:"Red,Green"`
// gives the enum's values display titles (a titled single- or
// multi-select, revision 2025-11-25), one per value. A field without
// omitempty is required.
//
// Make forms with [NewForm] where the program starts (beside
// mcp.AddTool), so a type the spec cannot express fails there rather than
// in a call; [As] makes and caches one on first use. A form is safe for
// concurrent use.
type Form[T any] struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// NewForm returns the form of T, or an error wrapping
// [mcp.ErrInvalidDefinition] that names the first field a form cannot hold
// and why (a nested struct, a list that is not a multi-select of strings,
// a map, a keyword the form schema lacks such as pattern).
func NewForm[T any]() (*Form[T], error) {
	t := reflect.TypeFor[T]()
	s, err := formSchema(t)
	if err != nil {
		return nil, fmt.Errorf("%w: elicitation form %v: %v", mcp.ErrInvalidDefinition, t, err)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("%w: elicitation form %v: %v", mcp.ErrInvalidDefinition, t, err)
	}
	return &Form[T]{schema: s, resolved: rs}, nil
}

// MustForm is [NewForm] for a package-level variable: it panics when T
// cannot be a form, as mcp.AddTool does for a bad tool.
func MustForm[T any]() *Form[T] {
	f, err := NewForm[T]()
	if err != nil {
		panic("elicit: MustForm: " + err.Error())
	}
	return f
}

// Schema returns a copy of the form's requestedSchema.
func (f *Form[T]) Schema() *jsonschema.Schema { return f.schema.CloneSchemas() }

// Ask puts the form to the user with message (see [Create])
// and returns the answer as a T with the user's action. Only when the
// action is [ActionAccept] is the T filled: from the client's content,
// with the defaults of fields the user left out, checked against the
// form's schema (an answer that does not fit is an *[mcp.Error] with
// [mcp.CodeInvalidParams] saying where). Errors are those of
// [Create].
func (f *Form[T]) Ask(ctx context.Context, c *mcp.Context, message string) (T, string, error) {
	var zero T
	res, err := Create(ctx, c, &Params{Message: message, RequestedSchema: f.schema})
	if err != nil {
		return zero, "", err
	}
	if res.Action != ActionAccept {
		return zero, res.Action, nil
	}
	v, err := f.decode(res.Content)
	if err != nil {
		return zero, res.Action, err
	}
	return v, res.Action, nil
}

// decode checks the client's content against the form and decodes it.
func (f *Form[T]) decode(content map[string]any) (T, error) {
	var v T
	if content == nil {
		content = map[string]any{}
	}
	// Round-trip through JSON: the client's values as plain JSON types
	// (an embedded handler may hand over Go ints or []string).
	b, err := json.Marshal(content)
	if err != nil {
		return v, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: the elicitation answer does not encode as JSON: " + err.Error()}
	}
	var inst map[string]any
	if err := json.Unmarshal(b, &inst); err != nil {
		return v, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: the elicitation answer is not an object: " + err.Error()}
	}
	if inst == nil {
		inst = map[string]any{}
	}
	if err := dropUnknownMembers(f.schema, inst); err != nil {
		return v, err
	}
	dropOptionalNulls(f.schema, inst)
	fillDefaults(f.schema, inst)
	if err := f.resolved.Validate(inst); err != nil {
		return v, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: the elicitation answer does not fit the form: " + argschema.DescribeValidation(err)}
	}
	if b, err = json.Marshal(inst); err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return v, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: the elicitation answer does not decode: " + err.Error()}
	}
	return v, nil
}

// dropUnknownMembers deletes from an elicitation answer the members that
// are not fields of the form. One that differs from a field only in case
// is refused, as for a tool's arguments: encoding/json would fill the
// field from it after the check, with a value the check never saw.
func dropUnknownMembers(form *jsonschema.Schema, inst map[string]any) error {
	for name := range inst {
		if _, ok := form.Properties[name]; ok {
			continue
		}
		for field := range form.Properties {
			if strings.EqualFold(name, field) {
				return &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("Invalid params: the elicitation answer's member %q is not the form's field %q (names are case-sensitive)", name, field)}
			}
		}
		delete(inst, name)
	}
	return nil
}

// dropOptionalNulls deletes the members of an elicitation answer that are
// null for an optional field that does not admit null: that is the field
// left out, as for a tool's arguments, so a client may send
// every field, null for those the user left empty.
func dropOptionalNulls(form *jsonschema.Schema, inst map[string]any) {
	for name, val := range inst {
		if p := form.Properties[name]; val == nil && p != nil && !argschema.AdmitsNull(p) && !slices.Contains(form.Required, name) {
			delete(inst, name)
		}
	}
}

// fillDefaults gives each field the user left out its default, required
// or not (the form is flat: its defaults are the properties').
func fillDefaults(form *jsonschema.Schema, inst map[string]any) {
	for name, p := range form.Properties {
		if _, ok := inst[name]; !ok && p.Default != nil {
			var d any
			if json.Unmarshal(p.Default, &d) == nil {
				inst[name] = d
			}
		}
	}
}

// forms caches As's forms by type: *Form[T], or the error.
var forms sync.Map

// As asks the user to fill the form of T (see [Form]) and returns the
// answer with the user's action; T is filled only when the action is
// [ActionAccept]. The form is made on the first call for T and kept; a
// T that cannot be a form is an error wrapping [mcp.ErrInvalidDefinition]
// on every call (use [NewForm] at start-up to fail there instead).
//
//	prefs, action, err := elicit.As[Prefs](ctx, c, "How do you like it?")
func As[T any](ctx context.Context, c *mcp.Context, message string) (T, string, error) {
	t := reflect.TypeFor[T]()
	v, ok := forms.Load(t)
	if !ok {
		f, err := NewForm[T]()
		if err != nil {
			v, _ = forms.LoadOrStore(t, err)
		} else {
			v, _ = forms.LoadOrStore(t, f)
		}
	}
	if err, bad := v.(error); bad {
		var zero T
		return zero, "", err
	}
	return v.(*Form[T]).Ask(ctx, c, message)
}

// formFormats are the string formats a form field may have.
var formFormats = []string{"email", "uri", "date", "date-time"}

// formKeys are the keywords a form property of type typ may have.
func formKeys(typ string) []string {
	switch typ {
	case "string":
		return []string{"type", "title", "description", "minLength", "maxLength", "format", "default", "enum", "oneOf"}
	case "number", "integer":
		return []string{"type", "title", "description", "minimum", "maximum", "default"}
	case "boolean":
		return []string{"type", "title", "description", "default"}
	case "array":
		return []string{"type", "title", "description", "minItems", "maxItems", "items", "default"}
	}
	return nil
}

// formSchema infers the requestedSchema of t: the tool-input schema
// (argschema.Infer, tags included), then each property checked against and
// reduced to the spec's primitive schemas.
func formSchema(t reflect.Type) (*jsonschema.Schema, error) {
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		return nil, fmt.Errorf("a form is a struct of primitive fields, not %v", t)
	}
	if err := argschema.CheckType(st, true); err != nil {
		return nil, err
	}
	in, err := argschema.Infer(st)
	if err != nil {
		return nil, err
	}
	fields := formFields(st)
	out := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Required: in.Required, PropertyOrder: in.PropertyOrder}
	order := in.PropertyOrder
	if len(order) == 0 {
		for name := range in.Properties {
			order = append(order, name)
		}
		slices.Sort(order)
	}
	for _, name := range order {
		ps := in.Properties[name]
		if ps == nil {
			continue
		}
		f, ok := fields[name]
		if !ok {
			return nil, fmt.Errorf("property %q: no field of %v has that JSON name", name, st)
		}
		p, err := formProperty(f, ps)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		out.Properties[name] = p
	}
	if len(out.Properties) == 0 {
		return nil, fmt.Errorf("%v has no exported field to ask", st)
	}
	return out, nil
}

// formFields maps the JSON names of t's fields (embedded structs'
// included, as encoding/json promotes them) to the fields.
func formFields(t reflect.Type) map[string]reflect.StructField {
	m := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue
		}
		name := f.Name
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == "-" {
			continue
		} else if n != "" {
			name = n
		}
		if _, dup := m[name]; !dup {
			m[name] = f
		}
	}
	return m
}

// formProperty is the form property of field f, whose inferred schema is
// ps: the nullable type of an optional pointer made plain, the title and
// the enum's titles added, and anything a form cannot hold refused.
func formProperty(f reflect.StructField, ps *jsonschema.Schema) (*jsonschema.Schema, error) {
	p := ps.CloneSchemas()
	if len(p.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		if len(types) != 1 {
			return nil, fmt.Errorf("a form field has one type, not %v", p.Types)
		}
		p.Type, p.Types = types[0], nil
	}
	if title, ok := f.Tag.Lookup("title"); ok {
		p.Title = title
	}
	titles, hasTitles := f.Tag.Lookup("enumTitles")
	switch p.Type {
	case "string":
		if err := formString(p, titles, hasTitles); err != nil {
			return nil, err
		}
	case "array":
		if err := formMultiSelect(f, p, titles, hasTitles); err != nil {
			return nil, err
		}
	case "number", "integer", "boolean":
		if len(p.Enum) > 0 {
			return nil, fmt.Errorf("an enum in a form is of strings; a %s field cannot have one", p.Type)
		}
	default:
		return nil, fmt.Errorf("a form holds strings, numbers, integers, booleans and multi-selects of strings, not %v (nested objects and other lists cannot be asked)", f.Type)
	}
	if hasTitles && p.Type != "string" && p.Type != "array" {
		return nil, fmt.Errorf("enumTitles needs an enum of strings")
	}
	if err := onlyFormKeys(p); err != nil {
		return nil, err
	}
	return p, nil
}

// formString checks and completes the string property p of a form: a
// format a form allows, the enum's titles (an enumTitles tag, when
// hasTitles) as a oneOf, and an enum of strings.
func formString(p *jsonschema.Schema, titles string, hasTitles bool) error {
	if p.Format != "" && !slices.Contains(formFormats, p.Format) {
		return fmt.Errorf("format %q is not one a form allows (%s)", p.Format, strings.Join(formFormats, ", "))
	}
	if hasTitles {
		one, err := titledEnum(p.Enum, titles)
		if err != nil {
			return err
		}
		p.OneOf, p.Enum = one, nil
	}
	return enumStrings(p.Enum)
}

// formMultiSelect checks and completes the array property p of form
// field f: a multi-select, a []string with an enum, its items titled
// (anyOf) when hasTitles.
func formMultiSelect(f reflect.StructField, p *jsonschema.Schema, titles string, hasTitles bool) error {
	it := p.Items
	if it == nil || it.Type != "string" || len(it.Enum) == 0 {
		return fmt.Errorf("a list in a form is a multi-select: a []string with an enum tag (`enum:\"a,b\"`), not %v", f.Type)
	}
	if err := enumStrings(it.Enum); err != nil {
		return err
	}
	if !hasTitles {
		p.Items = &jsonschema.Schema{Type: "string", Enum: it.Enum}
		return nil
	}
	titled, err := titledEnum(it.Enum, titles)
	if err != nil {
		return err
	}
	p.Items = &jsonschema.Schema{AnyOf: titled}
	return nil
}

// titledEnum pairs an enum's values with the comma-separated titles of an
// enumTitles tag: [{const, title}, …].
func titledEnum(enum []any, tag string) ([]*jsonschema.Schema, error) {
	if len(enum) == 0 {
		return nil, fmt.Errorf("enumTitles needs an enum tag with the values it titles")
	}
	titles := strings.Split(tag, ",")
	if len(titles) != len(enum) {
		return nil, fmt.Errorf("enumTitles has %d titles for %d enum values; give one title per value, in order", len(titles), len(enum))
	}
	out := make([]*jsonschema.Schema, len(enum))
	for i, v := range enum {
		c := v
		out[i] = &jsonschema.Schema{Const: &c, Title: strings.TrimSpace(titles[i])}
	}
	return out, nil
}

// enumStrings checks that an enum's values are strings.
func enumStrings(enum []any) error {
	for _, v := range enum {
		if _, ok := v.(string); !ok {
			return fmt.Errorf("an enum in a form is of strings, not %v", v)
		}
	}
	return nil
}

// onlyFormKeys refuses the keywords of p that a form property of its type
// may not have (pattern, exclusiveMinimum, uniqueItems, …), naming them.
func onlyFormKeys(p *jsonschema.Schema) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var extra []string
	for k := range m {
		if !slices.Contains(formKeys(p.Type), k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Errorf("a form's %s field cannot have %s (the form schema of the spec allows %s)", p.Type, strings.Join(extra, ", "), strings.Join(formKeys(p.Type)[1:], ", "))
	}
	return nil
}
