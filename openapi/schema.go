package openapi

import (
	"encoding/json"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
)

// direction says which side of the API a schema describes: properties
// marked readOnly are left out of what a client sends (input) and those
// marked writeOnly out of what it receives (output).
type direction int

const (
	input direction = iota
	output
)

// maxSchemaDepth bounds the nesting of a converted schema; a deeper (or
// recursive) schema admits any value below it.
const maxSchemaDepth = 32

// maxSchemaNodes bounds the size of a converted schema, counted in
// schema objects (not counting those cut to {}). Inlining components multiplies them: Discord's message
// object inlined in full is 760 KB of JSON per tool that answers one, and
// its tools/list was 17 MB. A schema over the bound is converted again
// with a smaller nesting depth (see depthSteps) until it fits; what is cut
// admits any value, so the schema is looser, never wrong (the request is
// still checked against the document itself).
const maxSchemaNodes = 1000

// depthSteps are the nesting depths convert tries, in order.
var depthSteps = []int{maxSchemaDepth, 16, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1}

// limits is the state of one conversion: its nesting depth and the
// schema objects made so far.
type limits struct {
	depth, nodes int
	last         bool // the last step: convert in full whatever the count
}

// jsonFormats are the formats JSON Schema 2020-12 defines. OpenAPI's own
// (int32, int64, float, double, byte, binary, password) are dropped: a
// validator in strict mode refuses a format it does not know.
var jsonFormats = []string{"date-time", "date", "time", "duration", "email", "idn-email", "hostname",
	"idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid",
	"uri-template", "json-pointer", "relative-json-pointer", "regex"}

// convert turns an OpenAPI schema (with its $refs resolved by the loader)
// into a JSON Schema (draft 2020-12) without references: component
// schemas are inlined, a recursive one becomes {} (any value) where it
// recurses. An allOf of object schemas is merged into one object, so that
// a client (and [Generate]) sees its properties. Nil in, nil out.
//
// A schema of more than maxSchemaNodes objects is cut at a smaller depth.
// goPatterns remembers whether Go's regexp compiles a pattern: a document's
// patterns repeat across its operations (the same component inlined in
// each), and compiling them took a fifth of converting Discord's schemas.
// It stops growing at maxGoPatterns, after which patterns are compiled.
var goPatterns sync.Map // string -> bool

// goPatternsCount is goPatterns' size, roughly (a race may add one twice).
var goPatternsCount atomic.Int32

const maxGoPatterns = 4096

// goPattern reports whether Go's regexp compiles pattern.
func goPattern(pattern string) bool {
	if ok, found := goPatterns.Load(pattern); found {
		return ok.(bool)
	}
	_, err := regexp.Compile(pattern)
	if goPatternsCount.Load() < maxGoPatterns {
		goPatterns.Store(pattern, err == nil)
		goPatternsCount.Add(1)
	}
	return err == nil
}

func convert(sr *openapi3.SchemaRef, dir direction) *jsonschema.Schema {
	var out *jsonschema.Schema
	for i, d := range depthSteps {
		lim := &limits{depth: d, last: i == len(depthSteps)-1}
		out = convertAt(sr, dir, nil, lim)
		if lim.nodes <= maxSchemaNodes {
			break
		}
	}
	return out
}

func convertAt(sr *openapi3.SchemaRef, dir direction, open []*openapi3.Schema, lim *limits) *jsonschema.Schema {
	if sr == nil || sr.Value == nil {
		return nil
	}
	s := sr.Value
	if len(open) >= lim.depth || slices.Contains(open, s) {
		return &jsonschema.Schema{} // cut: any value
	}
	if lim.nodes++; lim.nodes > maxSchemaNodes && !lim.last {
		return &jsonschema.Schema{} // this pass is over the bound and is thrown away
	}
	open = append(open, s)
	if merged := mergeAllOf(s); merged != nil {
		s = merged
	}
	out := &jsonschema.Schema{
		Title:       s.Title,
		Description: s.Description,
		Deprecated:  s.Deprecated,
		MultipleOf:  s.MultipleOf,
		Minimum:     s.Min,
		Maximum:     s.Max,
		UniqueItems: s.UniqueItems,
		Required:    s.Required,
	}
	convertKeywords(s, out)
	convertChildren(s, out, dir, open, lim)
	return out
}

// convertKeywords copies the keywords of s that hold values, not
// schemas, into out, in JSON Schema's spelling.
func convertKeywords(s *openapi3.Schema, out *jsonschema.Schema) {
	if len(s.Enum) > 0 {
		// An empty enum ("enum": [], as in Discord's document next to an
		// allOf naming the real one) admits no value in JSON Schema; the
		// OpenAPI validator ignores it, and so do we.
		out.Enum = s.Enum
	}
	if s.Type != nil {
		types := slices.Clone([]string(*s.Type))
		if s.Nullable && !slices.Contains(types, "null") {
			types = append(types, "null")
		}
		if len(types) == 1 {
			out.Type = types[0]
		} else {
			out.Types = types
		}
	}
	if slices.Contains(jsonFormats, s.Format) {
		out.Format = s.Format
	}
	if s.Default != nil {
		if b, err := json.Marshal(s.Default); err == nil {
			out.Default = b
		}
	}
	if s.Const != nil {
		c := s.Const
		out.Const = &c
	}
	convertBounds(s, out)
}

// convertChildren converts the schemas s holds (items, properties,
// additional properties, the combinations, not) into out. A property
// that only the other direction sees (readOnly on input, writeOnly on
// output) is left out, and is no longer required.
func convertChildren(s *openapi3.Schema, out *jsonschema.Schema, dir direction, open []*openapi3.Schema, lim *limits) {
	out.Items = convertAt(s.Items, dir, open, lim)
	for _, p := range s.PrefixItems {
		if c := convertAt(p, dir, open, lim); c != nil {
			out.PrefixItems = append(out.PrefixItems, c)
		}
	}
	convertProperties(s, out, dir, open, lim)
	switch ap := s.AdditionalProperties; {
	case ap.Has != nil && !*ap.Has:
		out.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	case ap.Schema != nil:
		out.AdditionalProperties = convertAt(ap.Schema, dir, open, lim)
	}
	for _, list := range []struct {
		from openapi3.SchemaRefs
		to   *[]*jsonschema.Schema
	}{{s.AllOf, &out.AllOf}, {s.AnyOf, &out.AnyOf}, {s.OneOf, &out.OneOf}} {
		for _, m := range list.from {
			if c := convertAt(m, dir, open, lim); c != nil {
				*list.to = append(*list.to, c)
			}
		}
	}
	if s.Not != nil {
		out.Not = convertAt(s.Not, dir, open, lim)
	}
}

// convertProperties converts s's properties into out, in name order,
// leaving out (and no longer requiring) those only the other direction
// sees: readOnly on input, writeOnly on output.
func convertProperties(s *openapi3.Schema, out *jsonschema.Schema, dir direction, open []*openapi3.Schema, lim *limits) {
	if len(s.Properties) == 0 {
		return
	}
	out.Properties = map[string]*jsonschema.Schema{}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if p == nil || p.Value == nil {
			continue
		}
		if dir == input && p.Value.ReadOnly || dir == output && p.Value.WriteOnly {
			out.Required = slices.DeleteFunc(slices.Clone(out.Required), func(r string) bool { return r == name })
			continue
		}
		out.Properties[name] = convertAt(p, dir, open, lim)
		out.PropertyOrder = append(out.PropertyOrder, name)
	}
}

// convertExclusiveBounds copies the exclusive minimum and maximum of s
// into out, in either OpenAPI spelling: 3.1's numbers, or 3.0's booleans
// that make minimum and maximum exclusive.
func convertExclusiveBounds(s *openapi3.Schema, out *jsonschema.Schema) {
	if s.ExclusiveMin.Value != nil {
		out.ExclusiveMinimum = s.ExclusiveMin.Value
	} else if s.ExclusiveMin.Bool != nil && *s.ExclusiveMin.Bool && s.Min != nil {
		out.ExclusiveMinimum, out.Minimum = s.Min, nil
	}
	if s.ExclusiveMax.Value != nil {
		out.ExclusiveMaximum = s.ExclusiveMax.Value
	} else if s.ExclusiveMax.Bool != nil && *s.ExclusiveMax.Bool && s.Max != nil {
		out.ExclusiveMaximum, out.Maximum = s.Max, nil
	}
}

// convertBounds copies the numeric, length, size and pattern bounds of s
// into out.
func convertBounds(s *openapi3.Schema, out *jsonschema.Schema) {
	convertExclusiveBounds(s, out)
	if s.MinLength > 0 {
		out.MinLength = intp(s.MinLength)
	}
	if s.MaxLength != nil {
		out.MaxLength = intp(*s.MaxLength)
	}
	if s.Pattern != "" {
		// OpenAPI patterns are ECMA-262; one Go's regexp cannot compile
		// (lookahead, backreferences) is left out rather than refused.
		if goPattern(s.Pattern) {
			out.Pattern = s.Pattern
		}
	}
	if s.MinItems > 0 {
		out.MinItems = intp(s.MinItems)
	}
	if s.MaxItems != nil {
		out.MaxItems = intp(*s.MaxItems)
	}
	if s.MinProps > 0 {
		out.MinProperties = intp(s.MinProps)
	}
	if s.MaxProps != nil {
		out.MaxProperties = intp(*s.MaxProps)
	}
}

func intp(n uint64) *int {
	v := int(min(n, 1<<31))
	return &v
}

// mergeAllOf returns s with its allOf merged into it when every member is
// a plain object schema (properties, required, no combinators of its
// own), or nil when s has no allOf or it cannot be merged.
func mergeAllOf(s *openapi3.Schema) *openapi3.Schema {
	if len(s.AllOf) == 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		return nil
	}
	m := *s
	m.AllOf = nil
	m.Properties = openapi3.Schemas{}
	for k, v := range s.Properties {
		m.Properties[k] = v
	}
	m.Required = slices.Clone(s.Required)
	for _, part := range s.AllOf {
		p := mergeablePart(part)
		if p == nil {
			return nil
		}
		for k, v := range p.Properties {
			if _, dup := m.Properties[k]; !dup {
				m.Properties[k] = v
			}
		}
		for _, r := range p.Required {
			if !slices.Contains(m.Required, r) {
				m.Required = append(m.Required, r)
			}
		}
		if m.Description == "" {
			m.Description = p.Description
		}
	}
	m.Type = &openapi3.Types{openapi3.TypeObject}
	return &m
}

// mergeablePart is the allOf member part as a plain object schema (its
// own allOf merged), or nil when it is not one.
func mergeablePart(part *openapi3.SchemaRef) *openapi3.Schema {
	if part == nil || part.Value == nil {
		return nil
	}
	p := part.Value
	if len(p.AllOf) > 0 {
		p = mergeAllOf(p)
		if p == nil {
			return nil
		}
	}
	if !isObject(p) || len(p.AnyOf) > 0 || len(p.OneOf) > 0 || p.Not != nil {
		return nil
	}
	return p
}

// isObject reports whether s describes a JSON object: typed "object", or
// untyped with properties.
func isObject(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	if s.Type != nil {
		return s.Type.Is(openapi3.TypeObject) || slices.Equal(*s.Type, []string{"object", "null"}) || slices.Equal(*s.Type, []string{"null", "object"})
	}
	return len(s.Properties) > 0
}

// objectSchema reports whether the converted schema describes an object
// and nothing else (MCP's requirement of an output schema).
func objectSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Type == "object" && len(s.AnyOf) == 0 && len(s.OneOf) == 0
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
