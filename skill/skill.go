package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Limits of one skill (SEP-2640: servers SHOULD NOT serve more).
// mcp.Registry.AddSkills refuses a skill beyond them at registration.
const (
	MaxFiles = 512      // files of one skill, SKILL.md included
	MaxBytes = 16 << 20 // bytes of one skill's files together
	// MaxFrontmatterBytes bounds the YAML frontmatter of a SKILL.md.
	MaxFrontmatterBytes = 64 << 10
)

// ValidName reports whether name follows the Agent Skills naming rule
// SEP-2640 adopts: 1 to 64 characters of a-z, 0-9 and -, neither first
// nor last a hyphen, no two hyphens in a row.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := range len(name) {
		switch c := name[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'z':
		case c == '-' && name[i-1] != '-': // i > 0: name[0] is no hyphen
		default:
			return false
		}
	}
	return true
}

// frontmatterRE finds the frontmatter block the way SEP-2640's clients
// (and the conformance suite) do: "---" on the first line, the YAML, then
// "---" on a line of its own. It is compiled on first use: a server with
// no skills never needs it.
var frontmatterRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\A---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\z)`)
})

// ParseFrontmatter returns the YAML frontmatter of a SKILL.md as a JSON
// object, read the way mcp.Registry.AddSkills reads it for skills/list: a
// line "---" first (after an optional byte order mark), the YAML, a line
// "---"; YAML 1.2's core schema (timestamps stay strings). It fails when
// there is no frontmatter, when it is over [MaxFrontmatterBytes], when it
// is not a YAML mapping, when aliases expand it past 10,000 values or 64
// levels, or when a value has no JSON form (a non-scalar key, an
// infinite number). It checks none of the skill rules (name,
// description): a host only compares.
func ParseFrontmatter(md []byte) (json.RawMessage, error) {
	md = bytes.TrimPrefix(md, []byte("\uFEFF"))
	m := frontmatterRE().FindSubmatch(md)
	if m == nil {
		return nil, errors.New("no YAML frontmatter: the file must begin with a line \"---\", the YAML, and a line \"---\"")
	}
	if len(m[1]) > MaxFrontmatterBytes {
		return nil, fmt.Errorf("the frontmatter is %d bytes, over %d", len(m[1]), MaxFrontmatterBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(m[1], &doc); err != nil {
		return nil, fmt.Errorf("the frontmatter is not valid YAML: %v", err)
	}
	conv := yamlToJSON{budget: maxYAMLNodes}
	var v any
	if len(doc.Content) > 0 {
		var err error
		if v, err = conv.value(doc.Content[0], "frontmatter", 0); err != nil {
			return nil, err
		}
	}
	fm, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the frontmatter is %s, not a YAML mapping of name, description, …", yamlKind(v))
	}
	raw, err := json.Marshal(fm)
	if err != nil {
		return nil, fmt.Errorf("the frontmatter has no JSON form: %v", err)
	}
	return raw, nil
}

// Bounds of the YAML-to-JSON conversion: aliases can make a small text
// expand into a huge value ("billion laughs"), and nest deeply.
const (
	maxYAMLNodes = 10000
	maxYAMLDepth = 64
)

// yamlToJSON converts a YAML node tree to JSON values the way YAML 1.2's
// core schema reads it (which is how SEP-2640 clients, and the
// conformance suite, parse a SKILL.md): timestamps stay strings, "<<" is
// an ordinary key, scalar keys are their text.
type yamlToJSON struct{ budget int }

func (c *yamlToJSON) value(n *yaml.Node, at string, depth int) (any, error) {
	if c.budget--; c.budget < 0 {
		return nil, fmt.Errorf("the frontmatter expands to more than %d values (aliases?)", maxYAMLNodes)
	}
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("%s nests deeper than %d levels", at, maxYAMLDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.value(n.Alias, at, depth+1)
	case yaml.MappingNode:
		return c.mapping(n, at, depth)
	case yaml.SequenceNode:
		return c.sequence(n, at, depth)
	case yaml.ScalarNode:
		return yamlScalar(n, at)
	}
	return nil, fmt.Errorf("%s is an empty YAML node", at)
}

// mapping converts a mapping node to a JSON object; its keys must be
// scalars (through aliases), whose text is the member's name.
func (c *yamlToJSON) mapping(n *yaml.Node, at string, depth int) (any, error) {
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		for k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s has a key that is not a scalar (line %d): JSON keys are strings", at, n.Content[i].Line)
		}
		v, err := c.value(n.Content[i+1], at+"."+k.Value, depth+1)
		if err != nil {
			return nil, err
		}
		out[k.Value] = v
	}
	return out, nil
}

// sequence converts a sequence node to a JSON array.
func (c *yamlToJSON) sequence(n *yaml.Node, at string, depth int) (any, error) {
	out := make([]any, len(n.Content))
	for i, e := range n.Content {
		v, err := c.value(e, fmt.Sprintf("%s[%d]", at, i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// yamlScalar converts a scalar node as the core schema reads it: null,
// a bool or a finite number by its tag, else its text (strings,
// timestamps, binary and custom tags).
func yamlScalar(n *yaml.Node, at string) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return nil, fmt.Errorf("%s is %v, which JSON cannot carry", at, f)
		}
		return v, nil
	}
	return n.Value, nil
}

// yamlKind names the kind of a converted value for an error.
func yamlKind(v any) string {
	switch v.(type) {
	case nil:
		return "empty"
	case []any:
		return "a sequence"
	case string:
		return "a string"
	}
	return fmt.Sprintf("a %T", v)
}
