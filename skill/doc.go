// Package skill reads the parts of an Agent Skill (SEP-2640) that a
// server and a host must read alike: the YAML frontmatter of a SKILL.md,
// the naming rule of a skill, and the limits of one skill.
//
// A server serves skills with mcp.Registry.AddSkills, which applies all
// of this at registration; a program needs this package only to check a
// skill before it registers it, or, as a host, to compare a SKILL.md it
// fetched with the entry skills/list gave for it (SEP-2640: a SKILL.md
// whose frontmatter differs from its entry is not loaded), which package
// client does with [ParseFrontmatter], the server's own parser:
//
//	raw, err := skill.ParseFrontmatter(md) // {"name":"review","description":…}
//	if err != nil { … }                      // no frontmatter, or not a mapping
//	ok := skill.ValidName("review")          // a-z, 0-9 and -, at most 64
//
// [ParseFrontmatter] reads the frontmatter the way SEP-2640's clients and
// the conformance suite do: a line "---" first, the YAML, a line "---",
// read by YAML 1.2's core schema (timestamps stay strings, "<<" is an
// ordinary key), bounded in size ([MaxFrontmatterBytes]) and in what
// aliases may expand to. It checks none of the skill rules (name,
// description, metadata); AddSkills does, naming the rule a SKILL.md
// breaks.
package skill
