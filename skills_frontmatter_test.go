package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// TestParseSkillFrontmatter: the frontmatter as JSON, read as the server
// reads it for skills/list, with no skill rule applied; an error when
// there is none or it is not a mapping.
func TestParseSkillFrontmatter(t *testing.T) {
	cases := []struct {
		name, md, want string // want "" means an error
	}{
		{"plain", "---\nname: a\ndescription: d\n---\nbody\n", `{"name":"a","description":"d"}`},
		{"CRLF and BOM", "\uFEFF---\r\nname: a\r\nn: 2\r\n---\r\n", `{"name":"a","n":2}`},
		{"timestamp stays text, no rules", "---\nname: Not_Valid\nwhen: 2026-01-02\n---\n", `{"name":"Not_Valid","when":"2026-01-02"}`},
		{"nested", "---\nmetadata:\n  tags: [x, y]\n---\n", `{"metadata":{"tags":["x","y"]}}`},
		{"none", "# Title\n", ""},
		{"not a mapping", "---\n- a\n---\n", ""},
		{"not closed", "---\nname: a\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := mcp.ParseSkillFrontmatter([]byte(tc.md))
			if tc.want == "" {
				assert.Error(t, err)
				assert.Nil(t, raw)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(raw))
		})
	}
}
