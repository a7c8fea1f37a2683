package main

import (
	"embed"
	"io/fs"

	"github.com/mcpchain/mcp"
)

// skillFiles holds the fixture skill of the sep-2640-skills-* scenarios:
// demo-skill/SKILL.md and demo-skill/references/NOTES.md (the directory
// scenario needs a subdirectory to descend into).
//
//go:embed skills
var skillFiles embed.FS

// addSkills serves skills/ (SEP-2640): skills/list, skills/get,
// resources/directory/read, and the files as skill:// resources.
func addSkills(srv *mcp.Server) {
	sub, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		panic(err)
	}
	srv.AddSkills(sub)
}
