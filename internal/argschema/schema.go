// Package argschema infers the JSON Schema of a Go type the way a tool's
// arguments are described (jsonschema-go, then the enum, default and mcp
// struct tags), checks that a type can be arguments at all, and words a
// validation error for the client. Package mcp uses it for tools; package
// elicit for the forms of an elicitation, whose fields are described the
// same way.
package argschema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// described holds the descriptions [Describe] was given, by type.
var described sync.Map

// Describe gives the arguments of type t a description for the model,
// for fields that have none of their own: package state describes its
// Handle this way, from its init, so that any tool that takes one says
// how to get it.
func Describe(t reflect.Type, description string) { described.Store(t, description) }

// Infer infers the JSON Schema of t with jsonschema-go, then adds what
// struct tags say beyond descriptions: `enum:"a,b,c"`, `default:"v"` and
// the validation keywords of `mcp:"minimum=1,…"` (see applyMCPTag).
// A field of a type given to [Describe], without a description of its
// own, gets the type's. A non-struct type (map, any) gets an object
// schema. No property admits null (see PropertiesNotNull).
func Infer(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	if s.Type == "" && len(s.Types) == 0 {
		s.Type = "object"
	}
	if len(s.Types) > 0 { // a pointer type: ["null","object"]
		for _, ty := range s.Types {
			if ty != "null" {
				s.Type, s.Types = ty, nil
				break
			}
		}
	}
	if err := applyTags(t, s, ""); err != nil {
		return nil, err
	}
	PropertiesNotNull(s)
	return s, nil
}

// PropertiesNotNull drops "null" from the types of every property of s and
// of the schemas nested in it. jsonschema-go types a slice or pointer
// field as ["null", …] (a nil slice, a nil pointer), but to a struct field
// null means nothing that leaving the argument out does not: encoding/json
// leaves the field at its zero value (nil) for both. So a required
// property is present and not null, and an optional one is optional by
// being left out, with the plain type a model reads best: an optional
// []string is "array", an optional *int "integer", an optional *Filter
// "object" (a map already was). A client that sends null for an optional
// argument anyway is not refused: prepare takes it as absent
// (dropOptionalNulls). Null stays where it is a value rather than the
// absence of one: the items of a []*T and the values of a map[string]*T.
func PropertiesNotNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for _, p := range s.Properties {
		if p != nil && slices.Contains(p.Types, "null") {
			p.Types = slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
			if len(p.Types) == 1 {
				p.Type, p.Types = p.Types[0], nil
			}
		}
		PropertiesNotNull(p)
	}
	PropertiesNotNull(s.Items)
	PropertiesNotNull(s.AdditionalProperties)
	for _, d := range s.Defs {
		PropertiesNotNull(d)
	}
}

// applyTags adds what the tags of struct t's fields say to s, its schema;
// path names t's field in errors ("Filter." for the fields of Filter).
func applyTags(t reflect.Type, s *jsonschema.Schema, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || s == nil || s.Properties == nil {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, field := f.Name, path+f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := applyTags(f.Type, s, path); err != nil {
				return err
			}
			continue
		}
		if ps := s.Properties[name]; ps != nil {
			if err := applyFieldTags(f, field, ps); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyFieldTags applies the tags of struct field f (named field in
// errors) to its property's schema ps, then those of the fields of its
// type, or of its items' type for a list.
func applyFieldTags(f reflect.StructField, field string, ps *jsonschema.Schema) error {
	ft := f.Type
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if tag, ok := f.Tag.Lookup("enum"); ok {
		if err := applyEnumTag(tag, field, ft, ps); err != nil {
			return err
		}
	}
	if tag, ok := f.Tag.Lookup("default"); ok {
		val, err := tagValue(ft, tag)
		if err != nil {
			return fmt.Errorf("field %s: default: %w", field, err)
		}
		b, _ := json.Marshal(val)
		ps.Default = b
	}
	if err := applyMCPTag(f, field, ft, ps); err != nil {
		return err
	}
	if d, ok := described.Load(ft); ok && ps.Description == "" {
		ps.Description = d.(string)
	}
	if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
		if ps.Items == nil {
			return nil
		}
		return applyTags(ft.Elem(), ps.Items, field+"[].")
	}
	return applyTags(ft, ps, field+".")
}

// applyEnumTag puts the comma-separated values of an enum tag, parsed as
// values of the field's type ft, on its schema ps; on a list, the enum
// restricts its items (a multi-select).
func applyEnumTag(tag, field string, ft reflect.Type, ps *jsonschema.Schema) error {
	target, et := ps, ft
	if (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && ps.Items != nil {
		target, et = ps.Items, ft.Elem()
	}
	for _, v := range strings.Split(tag, ",") {
		val, err := tagValue(et, strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("field %s: enum: %w", field, err)
		}
		target.Enum = append(target.Enum, val)
	}
	return nil
}

// tagValue parses a tag's text as a value of the field's kind.
func tagValue(t reflect.Type, s string) (any, error) {
	switch t.Kind() {
	case reflect.String:
		return s, nil
	case reflect.Bool:
		return strconv.ParseBool(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.ParseInt(s, 10, 64)
	case reflect.Float32, reflect.Float64:
		return strconv.ParseFloat(s, 64)
	case reflect.Slice, reflect.Array:
		// A list of strings may be written without JSON: "a,b".
		if t.Elem().Kind() == reflect.String && !strings.HasPrefix(strings.TrimSpace(s), "[") {
			var list []any
			for _, v := range strings.Split(s, ",") {
				list = append(list, strings.TrimSpace(v))
			}
			return list, nil
		}
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("%q is not a %v or JSON value", s, t)
	}
	return v, nil
}

// HasDefaults reports whether a property of s, at any depth, has a default.
func HasDefaults(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	for _, p := range s.Properties {
		if p.Default != nil || HasDefaults(p) {
			return true
		}
	}
	return false
}

// CheckType walks the argument (input) or result (output) type t of a
// tool before jsonschema-go sees it, and refuses what would fail on every
// call or has no JSON Schema, naming the field path ("Filter.Tags[]") and
// the rule: a channel, function, complex number or unsafe pointer; a map
// whose key is not a string (nor an encoding.TextMarshaler); in an input,
// an interface with methods (encoding/json cannot decode into fmt.Stringer;
// any is fine, it holds the decoded JSON value); a type that contains
// itself. jsonschema-go would name the type but not the field.
func CheckType(t reflect.Type, input bool) error {
	return walkArgType(t, "", input, map[reflect.Type]bool{})
}

var (
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

func walkArgType(t reflect.Type, path string, input bool, open map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	at := func() string {
		if path == "" {
			return ""
		}
		return "field " + path + ": "
	}
	if input && reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		input = false // it decodes itself, whatever its fields
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Errorf("%s%v has no JSON form, so no JSON Schema: use another type or tag the field `json:\"-\"`", at(), t)
	case reflect.Interface:
		if input && t.NumMethod() > 0 {
			return fmt.Errorf("%san argument cannot be the interface %v: encoding/json cannot decode into it; use a concrete type, or any for any JSON value", at(), t)
		}
	case reflect.Map:
		if k := t.Key(); k.Kind() != reflect.String && !k.Implements(textMarshalerType) {
			return fmt.Errorf("%s%v: a JSON object's keys are strings, so a map key must be a string type (or an encoding.TextMarshaler), not %v", at(), t, k)
		}
		return walkArgType(t.Elem(), path+"{}", input, open)
	case reflect.Slice, reflect.Array:
		return walkArgType(t.Elem(), path+"[]", input, open)
	case reflect.Struct:
		if open[t] {
			return fmt.Errorf("%s%v contains itself: a recursive type has no inferred JSON Schema; set the schema by hand", at(), t)
		}
		open[t] = true
		defer delete(open, t)
		return walkArgFields(t, path, input, open)
	}
	return nil
}

// walkArgFields walks the fields of struct t that encoding/json sees
// (exported, not embedded, not tagged "-"), at path.
func walkArgFields(t reflect.Type, path string, input bool, open map[reflect.Type]bool) error {
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "-" {
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		if err := walkArgType(f.Type, p, input, open); err != nil {
			return err
		}
	}
	return nil
}
