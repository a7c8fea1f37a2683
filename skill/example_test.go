package skill_test

import (
	"fmt"

	"github.com/mcpchain/mcp/skill"
)

// A host compares the frontmatter of a SKILL.md it fetched with the
// entry skills/list gave; ParseFrontmatter reads it as the server did.
func ExampleParseFrontmatter() {
	md := []byte("---\nname: review\ndescription: Review a change\n---\nRead the diff first.\n")
	raw, err := skill.ParseFrontmatter(md)
	fmt.Println(string(raw), err)
	_, err = skill.ParseFrontmatter([]byte("# no frontmatter\n"))
	fmt.Println(err != nil)
	// Output:
	// {"description":"Review a change","name":"review"} <nil>
	// true
}

// The naming rule and the limits a server applies to each skill.
func ExampleValidName() {
	fmt.Println(skill.ValidName("review"), skill.ValidName("Bad Name"), skill.ValidName("a--b"))
	fmt.Println(skill.MaxFiles, skill.MaxBytes>>20, skill.MaxFrontmatterBytes>>10)
	// Output:
	// true false false
	// 512 16 64
}
