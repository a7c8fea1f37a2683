package mcp

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp/internal/argschema"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// Null for an optional argument is taken as the argument left out. A
// schema inferred from a Go type gives an optional field its plain type
// ("array", not ["null","array"]: see argschema.PropertiesNotNull), yet models send
// null for what they mean to leave out (OpenAI's strict mode sends every
// property, null for the optional ones). Refusing that would fail a
// well-meaning client for nothing: to the Go field null and absent are
// the same zero value. So prepare drops each member that is null where
// its property is optional and its schema does not admit null, at every
// depth the schema describes, before defaults and validation: the tool,
// a guard and the validator see the arguments without it, and a default
// applies as for an absent argument. A required property sent as null is
// refused, naming it. A schema that admits null (a hand-written
// ["null","string"], an OpenAPI nullable property) keeps null as a value.

// maxNullDepth bounds the walks over nested arguments, as caseVariant's.
const maxNullDepth = 128

// optionalNulls walks the decoded arguments v along their schema s and
// reports whether a member is to be dropped (null, optional, its schema
// does not admit null), and the path ("values", "filter.tags",
// "rows[1].name") of a required property sent as null that its schema does
// not admit, or "". Of several such required ones it names the first in
// name order at each level, so the error does not depend on map order.
// It allocates nothing unless it finds a required one.
func optionalNulls(s *jsonschema.Schema, v any, depth int) (drop bool, required string) {
	if s == nil || depth > maxNullDepth {
		return false, ""
	}
	switch x := v.(type) {
	case map[string]any:
		return objectNulls(s, x, depth)
	case []any:
		if s.Items == nil {
			return false, ""
		}
		// Every item is walked, as every member of an object is: drop must
		// say whether any item has a null to drop, also after the first
		// required null (which required names).
		for i, el := range x {
			d, p := optionalNulls(s.Items, el, depth+1)
			drop = drop || d
			if p != "" && required == "" {
				required = "[" + strconv.Itoa(i) + "]" + pathTail(p)
			}
		}
	}
	return drop, required
}

// objectNulls is optionalNulls of an object: drop when an optional
// member is a null its property does not admit; required names the
// first (by name) required member that is such a null, else the path of
// the first such null inside a member.
func objectNulls(s *jsonschema.Schema, x map[string]any, depth int) (drop bool, required string) {
	var reqKey, sub, subKey string
	for k, val := range x {
		ps := s.Properties[k]
		if ps == nil {
			ps = s.AdditionalProperties
			if ps == nil || val == nil {
				continue // a map's null value is a value
			}
		} else if val == nil && !argschema.AdmitsNull(ps) {
			if !slices.Contains(s.Required, k) {
				drop = true
			} else if reqKey == "" || k < reqKey {
				reqKey = k
			}
			continue
		}
		d, p := optionalNulls(ps, val, depth+1)
		drop = drop || d
		if p != "" && (sub == "" || k < subKey) {
			sub, subKey = p, k
		}
	}
	switch {
	case reqKey != "":
		return drop, reqKey
	case sub != "":
		return drop, subKey + pathTail(sub)
	}
	return drop, ""
}

// pathTail is how a path p inside a member or item follows its name:
// "[0]…" as it is, a name after a dot.
func pathTail(p string) string {
	if p[0] == '[' {
		return p
	}
	return "." + p
}

// withoutOptionalNulls returns raw, valid JSON without duplicate members,
// less the members optionalNulls reports to drop, at every depth. What it
// keeps it copies byte for byte (a large integer keeps every digit, as a
// round trip through float64 would not). It allocates only where it drops.
func withoutOptionalNulls(s *jsonschema.Schema, raw []byte, depth int) []byte {
	if s == nil || depth > maxNullDepth {
		return raw
	}
	i := strictjson.SkipSpace(raw, 0)
	if i >= len(raw) {
		return raw
	}
	switch raw[i] {
	case '{':
		if s.Properties == nil && s.AdditionalProperties == nil {
			return raw
		}
		return objectWithoutNulls(s, raw, depth)
	case '[':
		if s.Items == nil {
			return raw
		}
		return arrayWithoutNulls(s.Items, raw, i, depth)
	}
	return raw
}

// objectWithoutNulls is withoutOptionalNulls of an object: raw itself
// when no member changes, else a copy without the members left out.
func objectWithoutNulls(s *jsonschema.Schema, raw []byte, depth int) []byte {
	var out []byte // nil until a member changes
	n := 0         // members written to out
	pos := 0       // members seen
	ok := strictjson.Members(raw, func(key, val []byte) bool {
		name := string(key)
		if slices.Contains(key, '\\') {
			if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name) != nil {
				return false
			}
		}
		keep, sub := memberWithoutNulls(s, name, val, depth)
		if out == nil && (!keep || len(sub) != len(val)) {
			// The first change: copy the members before it.
			out = append(make([]byte, 0, len(raw)), '{')
			j := 0
			strictjson.Members(raw, func(k, v []byte) bool {
				if j == pos {
					return false
				}
				if j > 0 {
					out = append(out, ',')
				}
				out = appendMember(out, k, v)
				j++
				return true
			})
			n = j
		}
		if out != nil && keep {
			if n > 0 {
				out = append(out, ',')
			}
			out = appendMember(out, key, sub)
			n++
		}
		pos++
		return true
	})
	if !ok || out == nil {
		return raw
	}
	return append(out, '}')
}

// memberWithoutNulls says whether the member name of an object of schema
// s is kept (not when it is an optional null the property does not
// admit), and its value with the nulls inside it left out.
func memberWithoutNulls(s *jsonschema.Schema, name string, val []byte, depth int) (keep bool, sub []byte) {
	ps := s.Properties[name]
	isNull := string(val) == "null"
	switch {
	case ps == nil && (s.AdditionalProperties == nil || isNull):
		return true, val
	case ps == nil:
		return true, withoutOptionalNulls(s.AdditionalProperties, val, depth+1)
	case isNull && !argschema.AdmitsNull(ps) && !slices.Contains(s.Required, name):
		return false, val
	}
	return true, withoutOptionalNulls(ps, val, depth+1)
}

// arrayWithoutNulls is withoutOptionalNulls of the array at raw[i], of
// items of schema items: raw itself when no item changes.
func arrayWithoutNulls(items *jsonschema.Schema, raw []byte, i, depth int) []byte {
	var subs [][]byte
	changed := false
	// Members takes objects only: walk the array by hand.
	j := strictjson.SkipSpace(raw, i+1)
	for j < len(raw) && raw[j] != ']' {
		end := strictjson.Skip(raw, j)
		if end <= j {
			return raw
		}
		el := raw[j:end]
		sub := withoutOptionalNulls(items, el, depth+1)
		changed = changed || len(sub) != len(el)
		subs = append(subs, sub)
		j = strictjson.SkipSpace(raw, end)
		if j < len(raw) && raw[j] == ',' {
			j = strictjson.SkipSpace(raw, j+1)
		}
	}
	if !changed {
		return raw
	}
	out := append(make([]byte, 0, len(raw)), '[')
	for k, el := range subs {
		if k > 0 {
			out = append(out, ',')
		}
		out = append(out, el...)
	}
	return append(out, ']')
}

func appendMember(out, key, val []byte) []byte {
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, '"', ':')
	return append(out, val...)
}

// requiredNullError is prepare's refusal of a required argument sent as
// null.
type requiredNullError struct{ path string }

func (e *requiredNullError) Error() string {
	return "argument " + strictjson.Quote(e.path) + " is required and cannot be null"
}
