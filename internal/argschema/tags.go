package argschema

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The `mcp:"…"` struct tag puts JSON Schema validation keywords on an
// argument: `mcp:"minimum=1,maximum=10"`. One tag for all of them, so that
// an unknown keyword (a typo) is an error rather than a tag nobody reads;
// `jsonschema:"…"` cannot hold them (jsonschema-go reserves "WORD=" there),
// and `enum` and `default` keep tags of their own (an enum's values are
// comma-separated). pattern takes the rest of the tag, commas included, so
// it comes last: `mcp:"minLength=2,pattern=^[a-z]{2,8}$"`.

// tagKeyword is what the mcp tag knows of one keyword: the kind of value
// it constrains ("number", "string" or "array") and how it sets it.
type tagKeyword struct {
	applies string
	set     func(s *jsonschema.Schema, v string) error
}

var tagKeywords = map[string]tagKeyword{
	"minimum":          {"number", setFloat(func(s *jsonschema.Schema) **float64 { return &s.Minimum })},
	"maximum":          {"number", setFloat(func(s *jsonschema.Schema) **float64 { return &s.Maximum })},
	"exclusiveMinimum": {"number", setFloat(func(s *jsonschema.Schema) **float64 { return &s.ExclusiveMinimum })},
	"exclusiveMaximum": {"number", setFloat(func(s *jsonschema.Schema) **float64 { return &s.ExclusiveMaximum })},
	"minLength":        {"string", setCount(func(s *jsonschema.Schema) **int { return &s.MinLength })},
	"maxLength":        {"string", setCount(func(s *jsonschema.Schema) **int { return &s.MaxLength })},
	"pattern": {"string", func(s *jsonschema.Schema, v string) error {
		if _, err := regexp.Compile(v); err != nil {
			return fmt.Errorf("does not compile: %v", err)
		}
		s.Pattern = v
		return nil
	}},
	"format": {"string", func(s *jsonschema.Schema, v string) error {
		if !slices.Contains(knownFormats, v) {
			return fmt.Errorf("%q is not a JSON Schema format (%s)", v, strings.Join(knownFormats, ", "))
		}
		s.Format = v
		return nil
	}},
	"minItems": {"array", setCount(func(s *jsonschema.Schema) **int { return &s.MinItems })},
	"maxItems": {"array", setCount(func(s *jsonschema.Schema) **int { return &s.MaxItems })},
	"uniqueItems": {"array", func(s *jsonschema.Schema, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		s.UniqueItems = b
		return nil
	}},
}

// knownFormats are the formats JSON Schema 2020-12 defines. format is an
// annotation: it tells the client (and the model) what the string holds,
// and is not checked on a call, as the format-annotation vocabulary says.
var knownFormats = []string{"date-time", "date", "time", "duration", "email", "idn-email", "hostname",
	"idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid",
	"uri-template", "json-pointer", "relative-json-pointer", "regex"}

func setFloat(field func(*jsonschema.Schema) **float64) func(*jsonschema.Schema, string) error {
	return func(s *jsonschema.Schema, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("%q is not a number", v)
		}
		p := field(s)
		// A bound of the Go type (0 for a uint, 127 for an int8) stays
		// when it is tighter than the tag's.
		if *p != nil && (p == &s.Minimum && **p > f || p == &s.Maximum && **p < f) {
			return nil
		}
		*p = &f
		return nil
	}
}

func setCount(field func(*jsonschema.Schema) **int) func(*jsonschema.Schema, string) error {
	return func(s *jsonschema.Schema, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a count (an integer ≥ 0)", v)
		}
		*field(s) = &n
		return nil
	}
}

// applyMCPTag puts the keywords of f's `mcp` tag on ps, the schema of the
// property f (field is its path, ft its type without pointers). A keyword of a string or
// number on a slice or array field constrains its items. Every error
// names the field and the rule.
func applyMCPTag(f reflect.StructField, field string, ft reflect.Type, ps *jsonschema.Schema) error {
	for name := range tagKeywords {
		if v, ok := f.Tag.Lookup(name); ok {
			return fmt.Errorf("field %s: tag %s:%q: JSON Schema keywords go in the mcp tag: `mcp:\"%s=%s\"`", field, name, v, name, v)
		}
	}
	tag, ok := f.Tag.Lookup("mcp")
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for rest := tag; rest != ""; {
		var item string
		if strings.HasPrefix(rest, "pattern=") {
			item, rest = rest, "" // a pattern may hold commas: the rest of the tag
		} else {
			item, rest, _ = strings.Cut(rest, ",")
		}
		key, val, hasVal := strings.Cut(strings.TrimSpace(item), "=")
		val, err := tagKeywordValue(field, key, val, hasVal, seen)
		if err != nil {
			return err
		}
		kw := tagKeywords[key]
		seen[key] = true
		target, kind := ps, schemaKind(ft)
		if kind == "array" && kw.applies != "array" && ps.Items != nil {
			target, kind = ps.Items, schemaKind(ft.Elem())
		}
		if kind != kw.applies {
			return fmt.Errorf("field %s: mcp tag: %s applies to %ss, and the field is a %v", field, key, kw.applies, f.Type)
		}
		if err := kw.set(target, val); err != nil {
			return fmt.Errorf("field %s: mcp tag: %s: %v", field, key, err)
		}
	}
	for _, s := range []*jsonschema.Schema{ps, ps.Items} {
		if err := checkBounds(s); err != nil {
			return fmt.Errorf("field %s: mcp tag: %v", field, err)
		}
	}
	return nil
}

// tagKeywordValue checks keyword key of field's mcp tag, given with val
// (hasVal false when it has no "="): a known keyword, not enum nor
// default (they have tags of their own), not seen before, with a value
// (uniqueItems alone means true). It returns the value to set.
func tagKeywordValue(field, key, val string, hasVal bool, seen map[string]bool) (string, error) {
	_, known := tagKeywords[key]
	switch {
	case key == "enum" || key == "default":
		return "", fmt.Errorf("field %s: mcp tag: %s has a tag of its own: `%s:\"%s\"`", field, key, key, val)
	case !known:
		return "", fmt.Errorf("field %s: mcp tag: unknown keyword %q (known: %s)", field, key, strings.Join(sortedKeywords(), ", "))
	case seen[key]:
		return "", fmt.Errorf("field %s: mcp tag: %s given twice", field, key)
	case !hasVal && key == "uniqueItems":
		return "true", nil
	case !hasVal:
		return "", fmt.Errorf("field %s: mcp tag: %s needs a value (%s=…)", field, key, key)
	}
	return val, nil
}

// schemaKind is the kind of JSON value a Go type encodes as, in the terms
// of tagKeyword.applies ("" for any other).
func schemaKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return ""
}

// checkBounds refuses bounds no value can meet (minimum above maximum).
func checkBounds(s *jsonschema.Schema) error {
	if s == nil {
		return nil
	}
	lo, hi := s.Minimum, s.Maximum
	if lo != nil && hi != nil && *lo > *hi {
		return fmt.Errorf("minimum %v is above maximum %v: no value passes", *lo, *hi)
	}
	if s.ExclusiveMinimum != nil && s.ExclusiveMaximum != nil && *s.ExclusiveMinimum >= *s.ExclusiveMaximum {
		return fmt.Errorf("exclusiveMinimum %v is not below exclusiveMaximum %v: no value passes", *s.ExclusiveMinimum, *s.ExclusiveMaximum)
	}
	for _, c := range []struct {
		lo, hi *int
		what   string
	}{{s.MinLength, s.MaxLength, "Length"}, {s.MinItems, s.MaxItems, "Items"}} {
		if c.lo != nil && c.hi != nil && *c.lo > *c.hi {
			return fmt.Errorf("min%s %d is above max%s %d: no value passes", c.what, *c.lo, c.what, *c.hi)
		}
	}
	return nil
}

func sortedKeywords() []string {
	var ks []string
	for k := range tagKeywords {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// tidyBound rewrites jsonschema-go's message for a broken numeric bound,
// which prints the value as a fraction and the bound with six decimals
// ("minimum: 0/1 is less than 1.000000"), as a model reads it best
// ("minimum: 0 is less than 1"). Other messages pass unchanged.
func tidyBound(msg string) string {
	kw, rest, ok := strings.Cut(msg, ": ")
	if !ok || tagKeywords[kw].applies != "number" {
		return msg
	}
	val, rest, ok := strings.Cut(rest, " is ")
	if !ok {
		return msg
	}
	i := strings.LastIndexByte(rest, ' ')
	bound, err := strconv.ParseFloat(rest[i+1:], 64)
	if err != nil {
		return msg
	}
	if num, den, ok := strings.Cut(val, "/"); ok {
		n, err1 := strconv.ParseFloat(num, 64)
		d, err2 := strconv.ParseFloat(den, 64)
		if err1 != nil || err2 != nil || d == 0 {
			return msg
		}
		val = strconv.FormatFloat(n/d, 'g', -1, 64)
	}
	return kw + ": " + val + " is " + rest[:i+1] + strconv.FormatFloat(bound, 'g', -1, 64)
}
