package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// inferSchema infers the JSON Schema of t with jsonschema-go, then adds what
// struct tags say beyond descriptions: `enum:"a,b,c"` and `default:"v"`.
// A non-struct type (map, any) gets an object schema. A required property
// (a field without omitempty) never admits null: jsonschema-go types a
// slice, map or pointer field as ["null", …], which would let null pass
// for a required argument; required means present and not null.
func inferSchema(t reflect.Type) (*jsonschema.Schema, error) {
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
	if err := applyTags(t, s); err != nil {
		return nil, err
	}
	requiredNotNull(s)
	return s, nil
}

// requiredNotNull drops "null" from the types of every required property
// of s and of the schemas nested in it.
func requiredNotNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for _, name := range s.Required {
		p := s.Properties[name]
		if p == nil || !slices.Contains(p.Types, "null") {
			continue
		}
		p.Types = slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		if len(p.Types) == 1 {
			p.Type, p.Types = p.Types[0], nil
		}
	}
	for _, p := range s.Properties {
		requiredNotNull(p)
	}
	requiredNotNull(s.Items)
	requiredNotNull(s.AdditionalProperties)
	for _, d := range s.Defs {
		requiredNotNull(d)
	}
}

func applyTags(t reflect.Type, s *jsonschema.Schema) error {
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
		name := f.Name
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
			if err := applyTags(f.Type, s); err != nil {
				return err
			}
			continue
		}
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if tag, ok := f.Tag.Lookup("enum"); ok {
			for _, v := range strings.Split(tag, ",") {
				val, err := tagValue(ft, strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("field %s: enum: %w", f.Name, err)
				}
				ps.Enum = append(ps.Enum, val)
			}
		}
		if tag, ok := f.Tag.Lookup("default"); ok {
			val, err := tagValue(ft, tag)
			if err != nil {
				return fmt.Errorf("field %s: default: %w", f.Name, err)
			}
			b, _ := json.Marshal(val)
			ps.Default = b
		}
		elem := ft
		if elem.Kind() == reflect.Slice || elem.Kind() == reflect.Array {
			elem = elem.Elem()
			if ps.Items != nil {
				if err := applyTags(elem, ps.Items); err != nil {
					return err
				}
			}
			continue
		}
		if err := applyTags(ft, ps); err != nil {
			return err
		}
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
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("%q is not a %v or JSON value", s, t)
	}
	return v, nil
}

func schemaHasDefaults(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	for _, p := range s.Properties {
		if p.Default != nil || schemaHasDefaults(p) {
			return true
		}
	}
	return false
}
