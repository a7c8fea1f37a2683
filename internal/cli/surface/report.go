package surface

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// Report writes s for a person: the server, its capabilities, then each
// tool with its arguments and result fields, resources, templates and
// prompts. Every value is the server's and printed on one line, so each
// goes through termtext.Line: an escape sequence or a newline in a name
// or description is shown escaped, never acted on.
func (s *Surface) Report(w io.Writer) {
	p := func(format string, a ...any) {
		for i, v := range a {
			if _, n := v.(int); !n {
				a[i] = termtext.Line(fmt.Sprint(v))
			}
		}
		fmt.Fprintf(w, format, a...)
	}
	name, _ := s.Server["name"].(string)
	version, _ := s.Server["version"].(string)
	p("Server        %s %s\n", name, version)
	if t, _ := s.Server["title"].(string); t != "" {
		p("Title         %s\n", t)
	}
	p("Protocol      %s\n", s.ProtocolVersion)
	p("Capabilities  %s\n", capabilities(s.Capabilities))
	if s.Instructions != "" {
		p("Instructions  %s\n", oneLine(s.Instructions, 200))
	}

	p("\nTools (%d)\n", len(s.Tools))
	for _, t := range s.Tools {
		p("  %s%s\n", key(t), describe(t))
		if in, ok := t["inputSchema"].(map[string]any); ok {
			p("    in:  %s\n", schemaLine(in))
		}
		if out, ok := t["outputSchema"].(map[string]any); ok {
			p("    out: %s\n", schemaLine(out))
		}
		if a, ok := t["annotations"].(map[string]any); ok && len(a) > 0 {
			p("    annotations: %s\n", compact(a))
		}
	}
	p("\nResources (%d)\n", len(s.Resources))
	for _, r := range s.Resources {
		mime, _ := r["mimeType"].(string)
		if mime != "" {
			mime = "  [" + mime + "]"
		}
		p("  %s (%s)%s%s\n", key(r), r["name"], mime, describe(r))
	}
	p("\nResource templates (%d)\n", len(s.ResourceTemplates))
	for _, r := range s.ResourceTemplates {
		p("  %s (%s)%s\n", key(r), r["name"], describe(r))
	}
	p("\nPrompts (%d)\n", len(s.Prompts))
	for _, pr := range s.Prompts {
		p("  %s(%s)%s\n", key(pr), promptArgNames(pr), describe(pr))
	}
}

// promptArgNames lists a prompt's argument names, an optional one
// followed by "?".
func promptArgNames(pr map[string]any) string {
	var args []string
	list, _ := pr["arguments"].([]any)
	for _, a := range list {
		m, _ := a.(map[string]any)
		n, _ := m["name"].(string)
		if req, _ := m["required"].(bool); !req {
			n += "?"
		}
		args = append(args, n)
	}
	return strings.Join(args, ", ")
}

func describe(m map[string]any) string {
	d, _ := m["description"].(string)
	if d == "" {
		d, _ = m["title"].(string)
	}
	if d == "" {
		return ""
	}
	return " — " + oneLine(d, 100)
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func capabilities(c map[string]any) string {
	var out []string
	for _, k := range sortedKeys(c) {
		sub, _ := c[k].(map[string]any)
		var flags []string
		for _, f := range sortedKeys(sub) {
			if b, ok := sub[f].(bool); ok && b {
				flags = append(flags, f)
			}
		}
		if len(flags) > 0 {
			k += " (" + strings.Join(flags, ", ") + ")"
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// schemaLine renders an object schema as "{a: number, b?: string}"
// (a "?" marks a property that is not required; an enum is its values,
// status?: "open"|"closed"; null is shown only where the property is
// required, since an optional one may be left out anyway).
func schemaLine(s map[string]any) string {
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		if t := typeOf(s, false); t != "object" && t != "" {
			return t
		}
		return "{}"
	}
	req := map[string]bool{}
	list, _ := s["required"].([]any)
	for _, r := range list {
		if n, ok := r.(string); ok {
			req[n] = true
		}
	}
	var fields []string
	for _, k := range sortedKeys(props) {
		p, _ := props[k].(map[string]any)
		name := k
		if !req[k] {
			name += "?"
		}
		fields = append(fields, name+": "+typeOf(p, !req[k]))
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// typeOf renders a property's schema p: its enum's values as JSON joined
// by "|" ("open"|"closed"), else its type ([]string for an array of
// strings, string|null for a list of types); without null when optional.
func typeOf(p map[string]any, optional bool) string {
	if e, ok := p["enum"].([]any); ok {
		if vs := enumValues(e, optional); len(vs) > 0 {
			return strings.Join(vs, "|")
		}
	}
	if types := typeNames(p, optional); len(types) > 0 {
		return strings.Join(types, "|")
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if bs, ok := p[k].([]any); ok {
			if ts := alternatives(bs, optional); len(ts) > 0 {
				return strings.Join(ts, "|")
			}
		}
	}
	if _, ok := p["properties"]; ok {
		return "object"
	}
	return "any"
}

// enumValues are an enum's values as JSON, without null when optional.
func enumValues(e []any, optional bool) []string {
	var vs []string
	for _, v := range e {
		if v == nil && optional {
			continue
		}
		vs = append(vs, compact(v))
	}
	return vs
}

// typeNames are the types p's type keyword names (without null when
// optional, unless null is all it admits), an array's written as
// []items.
func typeNames(p map[string]any, optional bool) []string {
	var types []string
	switch t := p["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && (s != "null" || !optional) {
				types = append(types, s)
			}
		}
		if len(types) == 0 && len(t) > 0 {
			types = []string{"null"} // null is all it admits
		}
	}
	items, ok := p["items"].(map[string]any)
	if !ok {
		return types
	}
	for i, t := range types {
		if t == "array" {
			it := typeOf(items, false)
			if strings.Contains(it, "|") {
				it = "(" + it + ")"
			}
			types[i] = "[]" + it
		}
	}
	return types
}

// alternatives are the types of an anyOf's or oneOf's members, without
// null when optional.
func alternatives(bs []any, optional bool) []string {
	var ts []string
	for _, b := range bs {
		m, _ := b.(map[string]any)
		t := typeOf(m, false)
		if t == "null" && optional {
			continue
		}
		ts = append(ts, t)
	}
	return ts
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
