package client_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpchain/mcp"
)

// FuzzSkillEntries decodes the skills member of a skills/list page, the
// server's input the client keeps to verify files against: it must never
// panic, and what it keeps must be usable (a frontmatter that is an
// object or nothing, files with URIs, no files for a dynamic skill).
func FuzzSkillEntries(f *testing.F) {
	for _, s := range []string{
		`[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":12}]}]`,
		`[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}]`,
		`[{"uri":"u","resources":[{"uri":"f","size":12.0},7,null,{"uri":"g","size":1e400}]}]`,
		`[{"frontmatter":[1]},{"resources":{}},null]`,
		`[]`, `null`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var skills []mcp.Skill
		if json.Unmarshal(data, &skills) != nil {
			return
		}
		for _, sk := range skills {
			if len(sk.Frontmatter) > 0 && (sk.Frontmatter[0] != '{' || !json.Valid(sk.Frontmatter)) {
				t.Fatalf("frontmatter %q kept though not an object", sk.Frontmatter)
			}
			if sk.Dynamic && sk.Resources != nil {
				t.Fatalf("dynamic skill with files %v", sk.Resources)
			}
			for _, f := range sk.Resources {
				if f.URI == "" || f.Size < -1 {
					t.Fatalf("file entry %+v kept", f)
				}
			}
		}
	})
}
