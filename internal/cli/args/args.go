// Package args converts the key=value arguments of `mcpchain call` and
// `mcpchain prompt` into the JSON a tool expects, by the types of its
// input schema.
package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Tool builds a tool's arguments: base (the --json object, or empty) with
// each key=value of kvs set on it, the value converted by the type its
// property has in schema (the tool's inputSchema as JSON; nil or
// unparsable means no types): number and integer parse as numbers,
// boolean as true/false, array, object and null as JSON, string stays
// as written. A property with several types tries them in order (a
// string last). A key the schema does not name keeps its text, unless
// it is JSON of an object or array.
func Tool(schema json.RawMessage, base string, kvs []string) (map[string]any, error) {
	out := map[string]any{}
	if strings.TrimSpace(base) != "" {
		d := json.NewDecoder(strings.NewReader(base))
		d.UseNumber()
		if err := d.Decode(&out); err != nil || out == nil {
			return nil, fmt.Errorf("--json: want a JSON object: %v", errOr(err, "null"))
		}
	}
	props := properties(schema)
	for _, kv := range kvs {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q: want key=value", kv)
		}
		v, err := convert(value, types(props[key]))
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", key, err)
		}
		out[key] = v
	}
	return out, nil
}

// Strings reads key=value pairs as strings (prompt arguments are strings).
func Strings(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q: want key=value", kv)
		}
		out[key] = value
	}
	return out, nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// properties returns the schema's properties by name.
func properties(schema json.RawMessage) map[string]json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	return s.Properties
}

// types returns the JSON types a property allows: its "type" (a string or
// a list), or those of its anyOf/oneOf branches.
func types(prop json.RawMessage) []string {
	var p struct {
		Type  json.RawMessage   `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
	}
	if len(prop) == 0 || json.Unmarshal(prop, &p) != nil {
		return nil
	}
	var ts []string
	var one string
	if json.Unmarshal(p.Type, &one) == nil && one != "" {
		ts = append(ts, one)
	} else {
		var many []string
		if json.Unmarshal(p.Type, &many) == nil {
			ts = append(ts, many...)
		}
	}
	for _, b := range append(p.AnyOf, p.OneOf...) {
		ts = append(ts, types(b)...)
	}
	return ts
}

// convert converts value to the first of ts it parses as; a string type
// is tried last, since every value is one.
func convert(value string, ts []string) (any, error) {
	if len(ts) == 0 {
		if t := strings.TrimSpace(value); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			if v, err := decodeJSON(t); err == nil {
				return v, nil
			}
		}
		return value, nil
	}
	var errs []string
	hasString := false
	for _, t := range ts {
		if t == "string" {
			hasString = true
			continue
		}
		v, ok, why := convertTo(value, t)
		if ok {
			return v, nil
		}
		if why != "" {
			errs = append(errs, why)
		}
	}
	if hasString || len(errs) == 0 {
		return value, nil
	}
	return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
}

// convertTo converts value to the non-string JSON type t; when it is not
// one it says why ("" for a type it does not know).
func convertTo(value, t string) (v any, ok bool, why string) {
	switch t {
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true, ""
		}
		return nil, false, fmt.Sprintf("%q is not a number", value)
	case "integer":
		i, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err == nil {
			return i, true, ""
		}
		return nil, false, fmt.Sprintf("%q is not an integer", value)
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err == nil {
			return b, true, ""
		}
		return nil, false, fmt.Sprintf("%q is not a boolean (true or false)", value)
	case "array", "object", "null":
		v, err := decodeJSON(value)
		if err == nil && kind(v) == t {
			return v, true, ""
		}
		return nil, false, fmt.Sprintf("%q is not a JSON %s", value, t)
	}
	return nil, false, ""
}

func decodeJSON(s string) (any, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func kind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return ""
}
