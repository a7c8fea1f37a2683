package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp/internal/schemajson"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// flatSchema validates the common shape of a tool's arguments without
// reflection: an object of primitive properties (string, number, integer,
// boolean, each optionally nullable and with an enum), a required list,
// and additionalProperties false. compileFlat returns nil for any schema
// that uses more, which then goes to jsonschema-go. Messages follow
// jsonschema-go's wording, so both paths read alike.
type flatSchema struct {
	props    map[string]flatProp
	required []string
	closed   bool
}

type flatProp struct {
	typ      string
	nullable bool
	enum     []any
}

var (
	flatRootKeys = []string{"type", "properties", "required", "additionalProperties", "description", "title", "$schema"}
	flatPropKeys = []string{"type", "enum", "description", "title", "default"}
	flatTypes    = []string{"string", "number", "integer", "boolean"}
)

func compileFlat(s *jsonschema.Schema) *flatSchema {
	b, err := schemajson.Marshal(s)
	if err != nil {
		return nil
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(b, &root) != nil || !onlyKeys(root, flatRootKeys) || string(root["type"]) != `"object"` {
		return nil
	}
	f := &flatSchema{props: map[string]flatProp{}}
	switch ap := string(root["additionalProperties"]); ap {
	case "false":
		f.closed = true
	case "", "true", "{}":
	default:
		return nil
	}
	if r := root["required"]; r != nil && json.Unmarshal(r, &f.required) != nil {
		return nil
	}
	var props map[string]map[string]json.RawMessage
	if p := root["properties"]; p != nil && json.Unmarshal(p, &props) != nil {
		return nil
	}
	for name, p := range props {
		fp, ok := compileFlatProp(p)
		if !ok {
			return nil
		}
		f.props[name] = fp
	}
	return f
}

// compileFlatProp compiles the property p of a flat schema: only the
// keys of flatPropKeys, one type of flatTypes (or it and "null"), an
// enum of scalars. False when p is not flat.
func compileFlatProp(p map[string]json.RawMessage) (flatProp, bool) {
	var fp flatProp
	if !onlyKeys(p, flatPropKeys) {
		return fp, false
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(p["type"], &one) == nil:
	case json.Unmarshal(p["type"], &many) == nil && len(many) == 2 && slices.Contains(many, "null"):
		fp.nullable = true
		one = many[0]
		if one == "null" {
			one = many[1]
		}
	default:
		return fp, false
	}
	if !slices.Contains(flatTypes, one) {
		return fp, false
	}
	fp.typ = one
	if e := p["enum"]; e != nil {
		if json.Unmarshal(e, &fp.enum) != nil {
			return fp, false
		}
		for _, v := range fp.enum {
			switch v.(type) {
			case map[string]any, []any:
				return fp, false
			}
		}
	}
	return fp, true
}

func onlyKeys(m map[string]json.RawMessage, allowed []string) bool {
	for k := range m {
		if !slices.Contains(allowed, k) {
			return false
		}
	}
	return true
}

// validate checks the decoded arguments.
func (f *flatSchema) validate(m map[string]any) error {
	if f.valid(m) {
		return nil // the common case, without sorting or allocating
	}
	// Properties in a fixed order, so the first error is deterministic.
	names := slices.Sorted(maps.Keys(m))
	var extra []string
	for _, k := range names {
		p, ok := f.props[k]
		if !ok {
			extra = append(extra, k)
			continue
		}
		if err := p.check(m[k]); err != nil {
			return fmt.Errorf("validating root: validating /properties/%s: %w", k, err)
		}
	}
	if f.closed && len(extra) > 0 {
		return fmt.Errorf("validating root: unexpected additional properties %q", extra)
	}
	var missing []string
	for _, r := range f.required {
		if _, ok := m[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("validating root: required: missing properties: %q", missing)
	}
	return nil
}

// validRaw reports whether the arguments args (JSON that may not be valid)
// surely pass, read from the raw bytes without decoding them into a map:
// an object whose members are each a property of the right type (not one
// with an enum, which it does not check), with every required property,
// and without a member that differs from a property only in case (nor a
// duplicate member: strictjson.Check, its one pass over the bytes). False
// means "not surely": prepare then decodes and validates the arguments the
// full way, which words the error. It allocates nothing.
func (f *flatSchema) validRaw(args []byte) bool {
	if len(f.required) > 64 || strictjson.Check(args, 0) != nil {
		return false
	}
	var seen uint64
	return strictjson.Members(args, func(key, val []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			return false // an escaped name: the full way
		}
		p, ok := f.props[string(key)]
		switch {
		case !ok:
			if f.closed {
				return false
			}
			for name := range f.props {
				if strings.EqualFold(name, string(key)) {
					return false
				}
			}
		case p.enum != nil || !p.okRaw(val):
			return false
		default:
			if n := slices.Index(f.required, string(key)); n >= 0 {
				seen |= 1 << n
			}
		}
		return true
	}) && f.allRequired(seen)
}

// allRequired reports whether seen has the bit of every required property.
func (f *flatSchema) allRequired(seen uint64) bool {
	n := len(f.required)
	return n == 0 || seen == (uint64(1)<<n)-1 || (n == 64 && seen == math.MaxUint64)
}

// okRaw is ok for a value's JSON text (valid JSON). An integer is a
// number without a fraction; a number with an exponent or more than 15
// characters (which could overflow, or be integral only once rounded) and
// an integer property's number with a fraction ("1.0") are left to the
// full way.
func (p flatProp) okRaw(v []byte) bool {
	var got string
	switch v[0] {
	case '"':
		got = "string"
	case 't', 'f':
		got = "boolean"
	case 'n':
		got = "null"
	case '{', '[':
		return false
	default:
		if len(v) > 15 || bytes.ContainsAny(v, "eE") {
			return false // may overflow a float64: the full way decides
		}
		if bytes.IndexByte(v, '.') >= 0 {
			if p.typ != "number" {
				return false
			}
			got = "number"
		} else {
			got = "integer"
		}
	}
	return got == p.typ || (p.typ == "number" && got == "integer") || (p.nullable && got == "null")
}

// valid reports whether m passes, in map order and without allocating:
// validate then needs to find the first error only when there is one.
func (f *flatSchema) valid(m map[string]any) bool {
	for k, v := range m {
		p, ok := f.props[k]
		if !ok {
			if f.closed {
				return false
			}
			continue
		}
		if !p.ok(v) {
			return false
		}
	}
	for _, r := range f.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	return true
}

// ok reports whether v passes the property's checks (check without the
// error).
func (p flatProp) ok(v any) bool {
	got := jsonType(v)
	if got != p.typ && (p.typ != "number" || got != "integer") && (!p.nullable || got != "null") {
		return false
	}
	return p.enum == nil || slices.ContainsFunc(p.enum, func(e any) bool { return equalJSON(e, v) })
}

func (p flatProp) check(v any) error {
	got := jsonType(v)
	ok := got == p.typ || (p.typ == "number" && got == "integer") || (p.nullable && got == "null")
	if !ok {
		shown := v
		if v == nil {
			shown = "null" // not <nil>
		}
		if p.nullable {
			return fmt.Errorf("type: %v has type %q, want one of %q", shown, got, "null, "+p.typ)
		}
		return fmt.Errorf("type: %v has type %q, want %q", shown, got, p.typ)
	}
	if p.enum != nil && !slices.ContainsFunc(p.enum, func(e any) bool { return equalJSON(e, v) }) {
		return fmt.Errorf("enum: %v does not equal any of: %v", v, p.enum)
	}
	return nil
}

// jsonType names the JSON type of a decoded value; an integral number is
// "integer", as JSON Schema counts it.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func equalJSON(a, b any) bool {
	af, aok := a.(float64)
	bf, bok := b.(float64)
	if aok && bok {
		return af == bf
	}
	return a == b
}

// caseVariant finds a member of the decoded arguments v that is not a
// property of s but equals one when case is ignored ("Query" when s has
// "query"), in nested objects and array items too, as far as s describes
// them. It returns the member's path ("filter.Lang", "tags[1].Key") and
// the property it imitates, or "" when there is none. Such a member is
// refused: a tool that decodes its arguments with encoding/json (which
// matches names case-insensitively, the last one winning) would read it
// as the property, while a policy that reads the property sees another
// value, or none. Of several, the one whose name sorts first is named, so
// the error does not depend on map order. It does not allocate unless it
// finds one.
func caseVariant(s *jsonschema.Schema, v any, depth int) (path, want string) {
	if s == nil || depth > 128 {
		return "", ""
	}
	switch x := v.(type) {
	case map[string]any:
		if len(s.Properties) == 0 {
			return "", ""
		}
		return objectCaseVariant(s, x, depth)
	case []any:
		if s.Items == nil {
			return "", ""
		}
		for i, el := range x {
			if p, w := caseVariant(s.Items, el, depth+1); p != "" {
				if p[0] == '[' {
					return "[" + strconv.Itoa(i) + "]" + p, w
				}
				return "[" + strconv.Itoa(i) + "]." + p, w
			}
		}
	}
	return "", ""
}

// objectCaseVariant is caseVariant of the object x: a member of its own
// first, else the first (by name) found in the value of a property.
func objectCaseVariant(s *jsonschema.Schema, x map[string]any, depth int) (path, want string) {
	var badKey, badWant, sub, subWant, subKey string
	for k, val := range x {
		ps, ok := s.Properties[k]
		if ok {
			if p, w := caseVariant(ps, val, depth+1); p != "" && (sub == "" || k < subKey) {
				sub, subWant, subKey = p, w, k
			}
			continue
		}
		if badKey != "" && k >= badKey {
			continue
		}
		if name, found := foldedProperty(s, k); found {
			badKey, badWant = k, name
		}
	}
	switch {
	case badKey != "":
		return badKey, badWant
	case sub == "":
		return "", ""
	case sub[0] == '[':
		return subKey + sub, subWant
	}
	return subKey + "." + sub, subWant
}

// foldedProperty is the property of s whose name equals k when case is
// ignored, if there is one.
func foldedProperty(s *jsonschema.Schema, k string) (string, bool) {
	for name := range s.Properties {
		if strings.EqualFold(name, k) {
			return name, true
		}
	}
	return "", false
}

// caseVariantError is the -32602 error for an argument caseVariant found.
func caseVariantError(tool, path, want string) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(
		"Invalid params: argument %s of tool %q is not %q: argument names are case-sensitive",
		strictjson.Quote(path), tool, want)}
}
