package surface

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// Diff lists how b differs from a, one line each, sorted: "+ path" for
// what b adds, "- path" for what it removes, "~ path: old → new" for a
// changed value. Items of the lists (tools, prompts, …) are matched by
// name or URI, so a reordering is no change. No lines: the same surface.
// The names and values are the server's: each line is made safe to print
// (termtext.Line).
func Diff(a, b *Surface) []string {
	var out []string
	diff(&out, "", toAny(a), toAny(b))
	for i, l := range out {
		out[i] = termtext.Line(l)
	}
	return out
}

func toAny(s *Surface) any {
	b, err := s.JSON()
	if err != nil {
		return nil
	}
	var v any
	if decode(b, &v) != nil {
		return nil
	}
	return v
}

func diff(out *[]string, path string, a, b any) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		diffObjects(out, path, av, bv)
		return
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if named(av) && named(bv) {
			diffNamed(out, path, byKey(av), byKey(bv))
			return
		}
		if short(av) != short(bv) {
			*out = append(*out, fmt.Sprintf("~ %s: %s → %s", path, short(av), short(bv)))
		}
		return
	}
	if short(a) != short(b) {
		*out = append(*out, fmt.Sprintf("~ %s: %s → %s", path, short(a), short(b)))
	}
}

// unionKeys are the keys of a and b, sorted.
func unionKeys(a, b map[string]any) []string {
	keys := sortedKeys(a)
	for _, k := range sortedKeys(b) {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// diffObjects reports the members added to, removed from and changed
// between objects a and b at path, with the values added or removed.
func diffObjects(out *[]string, path string, a, b map[string]any) {
	for _, k := range unionKeys(a, b) {
		x, inA := a[k]
		y, inB := b[k]
		p := join(path, k)
		switch {
		case !inA:
			*out = append(*out, "+ "+p+": "+short(y))
		case !inB:
			*out = append(*out, "- "+p+": "+short(x))
		default:
			diff(out, p, x, y)
		}
	}
}

// diffNamed reports the items added to, removed from and changed between
// two lists of named items at path, by name.
func diffNamed(out *[]string, path string, a, b map[string]any) {
	for _, k := range unionKeys(a, b) {
		x, inA := a[k]
		y, inB := b[k]
		p := path + "[" + k + "]"
		switch {
		case !inA:
			*out = append(*out, "+ "+p)
		case !inB:
			*out = append(*out, "- "+p)
		default:
			diff(out, p, x, y)
		}
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// named reports whether every element of l is an object with a name or URI.
func named(l []any) bool {
	for _, x := range l {
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["name"].(string); ok {
			continue
		}
		if _, ok := m["uri"].(string); ok {
			continue
		}
		if _, ok := m["uriTemplate"].(string); ok {
			continue
		}
		return false
	}
	return true
}

func byKey(l []any) map[string]any {
	m := map[string]any{}
	for _, x := range l {
		o := x.(map[string]any)
		k := key(o)
		if _, dup := m[k]; dup {
			k += "#" + fmt.Sprint(len(m))
		}
		m[k] = o
	}
	return m
}

func short(v any) string {
	s := compact(v)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return strings.ReplaceAll(s, "\n", " ")
}
