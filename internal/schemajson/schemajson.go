// Package schemajson encodes a JSON Schema of github.com/google/jsonschema-go
// byte for byte as its own MarshalJSON does, in one pass over the tree.
//
// jsonschema.Schema.MarshalJSON marshals each nested schema separately, and
// encoding/json copies and compacts a Marshaler's output again at every level
// of nesting above it, so encoding a deep schema costs its size times its
// depth. The tools of a large OpenAPI document have deep, inlined schemas
// (Discord's 242 operations: 3 MB of tools/list), where that took most of the
// time to register them. Here each nested schema is written once, into one
// buffer; only leaves (strings, numbers, enums, defaults) go through
// encoding/json.
package schemajson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Marshal returns the JSON encoding of s, equal to json.Marshal(s).
func Marshal(s *jsonschema.Schema) ([]byte, error) {
	return Append(nil, s)
}

// Append appends the JSON encoding of s (json.Marshal(s)) to b.
func Append(b []byte, s *jsonschema.Schema) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	return appendSchema(b, s)
}

// kind is how a field of Schema is written.
type kind int

const (
	leaf        kind = iota // by encoding/json
	schemaPtr               // *Schema
	schemaSlice             // []*Schema
	schemaMap               // map[string]*Schema
)

// field is one field of Schema that encoding/json writes.
type field struct {
	index int
	key   []byte // the quoted name and a colon
	kind  kind
}

var (
	fieldsOnce sync.Once
	fields     []field
	// names are the JSON names of Schema's fields and of the four members
	// MarshalJSON writes itself: an Extra key equal to one is an error.
	names map[string]bool
)

var (
	schemaPtrType   = reflect.TypeFor[*jsonschema.Schema]()
	schemaSliceType = reflect.TypeFor[[]*jsonschema.Schema]()
	schemaMapType   = reflect.TypeFor[map[string]*jsonschema.Schema]()
)

// loadFields reads Schema's fields once, in declaration order, as
// encoding/json orders them after the four MarshalJSON writes first.
func loadFields() {
	t := reflect.TypeFor[jsonschema.Schema]()
	names = map[string]bool{"type": true, "properties": true, "dependencies": true, "items": true}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		names[name] = true
		if name == "properties" {
			continue // written first, in PropertyOrder
		}
		k := leaf
		switch f.Type {
		case schemaPtrType:
			k = schemaPtr
		case schemaSliceType:
			k = schemaSlice
		case schemaMapType:
			k = schemaMap
		}
		key, _ := json.Marshal(name)
		fields = append(fields, field{index: i, key: append(key, ':'), kind: k})
	}
}

// appendSchema writes one non-nil schema.
func appendSchema(b []byte, s *jsonschema.Schema) ([]byte, error) {
	fieldsOnce.Do(loadFields)
	if err := basicChecks(s); err != nil {
		return nil, err
	}
	start := len(b)
	b = append(b, '{')
	var err error
	member := func(key string) {
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, key...)
	}
	switch {
	case s.Type != "":
		member(`"type":`)
		if b, err = appendLeaf(b, s.Type); err != nil {
			return nil, err
		}
	case s.Types != nil:
		member(`"type":`)
		if b, err = appendLeaf(b, s.Types); err != nil {
			return nil, err
		}
	}
	if s.Properties != nil {
		member(`"properties":`)
		if b, err = appendProperties(b, s.Properties, s.PropertyOrder); err != nil {
			return nil, err
		}
	}
	if len(s.DependencySchemas)+len(s.DependencyStrings) > 0 {
		member(`"dependencies":`)
		if b, err = appendDependencies(b, s); err != nil {
			return nil, err
		}
	}
	switch {
	case s.Items != nil:
		member(`"items":`)
		if b, err = appendSchema(b, s.Items); err != nil {
			return nil, err
		}
	case s.ItemsArray != nil:
		member(`"items":`)
		if b, err = appendSchemas(b, s.ItemsArray); err != nil {
			return nil, err
		}
	}
	v := reflect.ValueOf(s).Elem()
	for _, f := range fields {
		fv := v.Field(f.index)
		if isEmpty(fv) {
			continue
		}
		member(string(f.key))
		switch f.kind {
		case schemaPtr:
			b, err = appendSchema(b, fv.Interface().(*jsonschema.Schema))
		case schemaSlice:
			b, err = appendSchemas(b, fv.Interface().([]*jsonschema.Schema))
		case schemaMap:
			b, err = appendSchemaMap(b, fv.Interface().(map[string]*jsonschema.Schema))
		default:
			b, err = appendLeaf(b, fv.Interface())
		}
		if err != nil {
			return nil, err
		}
	}
	if len(s.Extra) > 0 {
		for k := range s.Extra {
			if names[k] {
				return nil, fmt.Errorf("map key %q duplicates struct field", k)
			}
		}
		extra, err := json.Marshal(s.Extra)
		if err != nil {
			return nil, err
		}
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, extra[1:len(extra)-1]...)
	}
	b = append(b, '}')
	// As MarshalJSON: {} is true and {"not":true} is false.
	switch {
	case bytes.Equal(b[start:], []byte(`{}`)):
		b = append(b[:start], "true"...)
	case bytes.Equal(b[start:], []byte(`{"not":true}`)):
		b = append(b[:start], "false"...)
	}
	return b, nil
}

// basicChecks are MarshalJSON's refusals of a schema it cannot write.
func basicChecks(s *jsonschema.Schema) error {
	if s.Type != "" && s.Types != nil {
		return errors.New("both Type and Types are set; at most one should be")
	}
	if s.Defs != nil && s.Definitions != nil {
		return errors.New("both Defs and Definitions are set; at most one should be")
	}
	if s.Items != nil && s.ItemsArray != nil {
		return errors.New("both Items and ItemsArray are set; at most one should be")
	}
	seen := make(map[string]bool, len(s.PropertyOrder))
	for _, p := range s.PropertyOrder {
		if seen[p] {
			return fmt.Errorf("property order slice cannot contain duplicate entries, found duplicate %q", p)
		}
		seen[p] = true
	}
	for k := range s.DependencySchemas {
		if _, ok := s.DependencyStrings[k]; ok {
			return fmt.Errorf("dependency key %q cannot be defined as both a schema and a string array", k)
		}
	}
	return nil
}

// isEmpty is encoding/json's omitempty test for the kinds Schema's fields
// have.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}

func appendLeaf(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

func appendKey(b []byte, k string) []byte {
	j, _ := json.Marshal(k) // a string always encodes
	return append(append(b, j...), ':')
}

// appendProperties writes properties in order, then the others sorted.
func appendProperties(b []byte, props map[string]*jsonschema.Schema, order []string) ([]byte, error) {
	b = append(b, '{')
	first := true
	var err error
	write := func(name string, p *jsonschema.Schema) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendKey(b, name)
		b, err = Append(b, p)
	}
	done := make(map[string]bool, len(order))
	for _, name := range order {
		if p, ok := props[name]; ok {
			if write(name, p); err != nil {
				return nil, err
			}
			done[name] = true
		}
	}
	rest := make([]string, 0, len(props)-len(done))
	for name := range props {
		if !done[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		if write(name, props[name]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendSchemas(b []byte, list []*jsonschema.Schema) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = Append(b, s); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendSchemaMap writes a map of schemas with its keys sorted, as
// encoding/json does (a nil map is null).
func appendSchemaMap(b []byte, m map[string]*jsonschema.Schema) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, k)
		if b, err = Append(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendDependencies writes DependencySchemas and DependencyStrings as one
// object, keys sorted.
func appendDependencies(b []byte, s *jsonschema.Schema) ([]byte, error) {
	keys := make([]string, 0, len(s.DependencySchemas)+len(s.DependencyStrings))
	for k := range s.DependencySchemas {
		keys = append(keys, k)
	}
	for k := range s.DependencyStrings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, k)
		if d, ok := s.DependencySchemas[k]; ok {
			b, err = Append(b, d)
		} else {
			b, err = appendLeaf(b, s.DependencyStrings[k])
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
