package mcp

import "encoding/json"

// ParseSkillFrontmatter returns the YAML frontmatter of a SKILL.md as a
// JSON object, read the way [Server.AddSkills] reads it for skills/list:
// a line "---" first, the YAML, a line "---"; YAML 1.2's core schema
// (timestamps stay strings). A host compares it with a listed skill's
// frontmatter before it uses the file (SEP-2640: a SKILL.md whose
// frontmatter differs from its entry is not loaded); package client does.
// It fails when there is no frontmatter, when it is not a YAML mapping, or
// when a value has no JSON form. It checks none of the skill rules
// (name, description): a host only compares.
func ParseSkillFrontmatter(md []byte) (json.RawMessage, error) {
	_, raw, err := parseFrontmatter(md)
	return raw, err
}
