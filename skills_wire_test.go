package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// TestSkillEntryDecoding covers the entries a server may send: files as
// a list, "dynamic", sizes as floats, members of the wrong type.
func TestSkillEntryDecoding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want mcp.Skill
	}{
		{"listed", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":12}]}`,
			mcp.Skill{URI: "skill://a/SKILL.md", Frontmatter: json.RawMessage(`{"name":"a","description":"d"}`), Name: "a", Description: "d",
				Resources: []mcp.SkillFile{{URI: "skill://a/SKILL.md", Digest: "sha256:00", Size: 12}}}},
		{"dynamic", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}`,
			mcp.Skill{URI: "skill://a/SKILL.md", Frontmatter: json.RawMessage(`{"name":"a"}`), Name: "a", Dynamic: true}},
		{"float size, bad items", `{"uri":"u","resources":[{"uri":"f","digest":"d","size":12.0},7,{"digest":"x"},{"uri":"g","size":1.5}]}`,
			mcp.Skill{URI: "u", Resources: []mcp.SkillFile{{URI: "f", Digest: "d", Size: 12}, {URI: "g", Size: -1}}}},
		{"frontmatter not an object", `{"uri":"u","frontmatter":"name: a","resources":{}}`, mcp.Skill{URI: "u"}},
		{"name not a string", `{"uri":"u","frontmatter":{"name":3}}`, mcp.Skill{URI: "u", Frontmatter: json.RawMessage(`{"name":3}`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got mcp.Skill
			require.NoError(t, json.Unmarshal([]byte(tc.in), &got))
			assert.Equal(t, tc.want, got)
		})
	}
	var s mcp.Skill
	assert.Error(t, json.Unmarshal([]byte(`{"uri":5}`), &s), "a uri that is not a string")
}

// TestSkillEntryEncoding: an entry encodes as skills/list sends it, and
// decodes back to itself; a dynamic one says "resources": "dynamic".
func TestSkillEntryEncoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   mcp.Skill
		want string
	}{
		{"listed", mcp.Skill{URI: "skill://a/SKILL.md", Frontmatter: json.RawMessage(`{"name":"a","description":"d"}`), Name: "a", Description: "d",
			Resources: []mcp.SkillFile{{URI: "skill://a/SKILL.md", Digest: "sha256:00", Size: 12}}},
			`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":12}]}`},
		{"dynamic", mcp.Skill{URI: "skill://a/SKILL.md", Frontmatter: json.RawMessage(`{"name":"a"}`), Name: "a", Dynamic: true},
			`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.in)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			var back mcp.Skill
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tc.in, back)
		})
	}
}
