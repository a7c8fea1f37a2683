package argschema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// DescribeValidation turns a validation error of jsonschema-go (or of the
// flat validator, which words its errors alike) into a message that starts
// with the word "argument" and names it: "validating root: validating
// /properties/a: type: …" becomes `argument "a": type: …`, and "required:
// missing properties: ["q"]" becomes `argument "q" is required but
// missing`. A constraint on the whole object reads "arguments: …".
func DescribeValidation(err error) string {
	// jsonschema-go prints a JSON null as "<invalid reflect.Value>".
	msg := strings.ReplaceAll(err.Error(), "<invalid reflect.Value>", "null")
	var path string
	for {
		const p = "validating "
		if !strings.HasPrefix(msg, p) {
			break
		}
		rest := msg[len(p):]
		j := strings.Index(rest, ": ")
		if j < 0 {
			break
		}
		if seg := rest[:j]; seg != "root" {
			path = seg
		}
		msg = rest[j+2:]
	}
	msg = tidyBound(msg)
	arg := argumentPath(path)
	join := func(name string) string {
		if arg == "" {
			return name
		}
		return arg + "." + name
	}
	if names, ok := quotedList(msg, "required: missing properties: "); ok {
		out := fmt.Sprintf("argument %q is required but missing", join(names[0]))
		if len(names) > 1 {
			more := make([]string, len(names)-1)
			for i, n := range names[1:] {
				more[i] = strconv.Quote(join(n))
			}
			out += ", and so is " + strings.Join(more, ", ")
		}
		return out
	}
	if names, ok := quotedList(msg, "unexpected additional properties "); ok {
		slices.Sort(names) // jsonschema-go lists them in map order
		// They are the client's names: quote each capped, and name at
		// most maxNamed of them.
		const maxNamed = 4
		quoted := make([]string, 0, min(len(names), maxNamed+1))
		for i, n := range names {
			if i == maxNamed {
				quoted = append(quoted, fmt.Sprintf("%d more", len(names)-maxNamed))
				break
			}
			quoted = append(quoted, strictjson.Quote(join(n)))
		}
		if len(names) == 1 {
			return fmt.Sprintf("argument %s is not accepted (the schema allows no additional properties)", quoted[0])
		}
		verb := "is"
		if len(names) > 2 {
			verb = "are"
		}
		return fmt.Sprintf("argument %s is not accepted, nor %s %s (the schema allows no additional properties)", quoted[0], verb, strings.Join(quoted[1:], ", "))
	}
	if arg == "" {
		return "arguments: " + msg
	}
	return fmt.Sprintf("argument %s: %s", strictjson.Quote(arg), msg)
}

// argumentPath turns a JSON pointer into a schema ("/properties/a/items/
// properties/b") into the argument it names ("a[].b").
func argumentPath(ptr string) string {
	var b strings.Builder
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "patternProperties":
			if i+1 < len(segs) {
				i++
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i]))
			}
		case "items", "additionalItems":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(segs) {
				i++
				b.WriteString("[" + segs[i] + "]")
			}
		case "additionalProperties":
			b.WriteString(".*")
		}
	}
	return b.String()
}

// quotedList parses msg as prefix followed by a Go-quoted list of strings
// (fmt's %q of a []string: ["a" "b"]).
func quotedList(msg, prefix string) ([]string, bool) {
	rest, ok := strings.CutPrefix(msg, prefix)
	if !ok || len(rest) < 2 || rest[0] != '[' || rest[len(rest)-1] != ']' {
		return nil, false
	}
	rest = rest[1 : len(rest)-1]
	var out []string
	for rest != "" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, false
		}
		s, _ := strconv.Unquote(q)
		out = append(out, s)
		rest = strings.TrimPrefix(rest[len(q):], " ")
	}
	return out, len(out) > 0
}

// AdmitsNull reports whether the schema s may admit a JSON null: it has no
// type of its own (any value, or anyOf, oneOf, a $ref: the validator
// decides), or its types include "null".
func AdmitsNull(s *jsonschema.Schema) bool {
	switch {
	case s.Type != "":
		return s.Type == "null"
	case len(s.Types) > 0:
		return slices.Contains(s.Types, "null")
	}
	return true
}
