package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpchain/mcp/skill"
)

// FuzzSkillFrontmatter feeds arbitrary SKILL.md files to the frontmatter
// parser and checker (skills come from a user's directory: outside
// input). Neither may panic; an accepted frontmatter is a JSON object
// whose raw form decodes to the map returned, and a checked one has a
// valid name and a description.
func FuzzSkillFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: d\n---\nbody",
		"\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\n",
		"---\nname: a\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n",
		"---\nname: a\ndescription: d\nx: &a [*a]\n---\n",
		"---\nname: a\ndescription: d\nx:\n  1: one\n  ? [k]\n  : v\n---\n",
		"---\nname: a\ndescription: d\nn: .nan\nbig: 123456789012345678901234567890\n---\n",
		"---\n- list\n---\n",
		"---\n---\n",
		"---\nname: a\n",
		"no frontmatter",
		"---\n!!binary aGk=: x\n---\n",
		"---\na: &x {b: *x}\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, md []byte) {
		fm, raw, err := parseFrontmatter(md)
		if err != nil {
			return
		}
		var back map[string]any
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("raw frontmatter %q is not a JSON object: %v", raw, err)
		}
		again, err := json.Marshal(fm)
		if err != nil || !reflect.DeepEqual(json.RawMessage(again), raw) {
			t.Fatalf("raw frontmatter %q differs from the map's JSON %q (%v)", raw, again, err)
		}
		name, desc, err := checkFrontmatter(fm, "a")
		if err == nil && (!skill.ValidName(name) || name != "a" || desc == "") {
			t.Fatalf("accepted name %q, description %q", name, desc)
		}
	})
}
