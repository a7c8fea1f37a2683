package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/skill"
)

func skillMD(front string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\n" + front + "\n---\n\n# Body\n")}
}

func newSkillServer(t *testing.T) *mcp.Server {
	t.Helper()
	return mcp.NewServer(mcp.Options{Name: "skills", Version: "1.0.0"})
}

// TestAddSkillsRejects checks every rule Registry.AddSkills enforces: each bad
// file system is refused with the sentinel and a message naming the rule,
// and nothing is registered.
func TestAddSkillsRejects(t *testing.T) {
	long := strings.Repeat("x", 1025)
	tests := []struct {
		name string
		fsys fstest.MapFS
		is   error
		want string
	}{
		{"no skills", fstest.MapFS{"README.md": {Data: []byte("hi")}}, mcp.ErrNoSkills, "no directory holds a SKILL.md"},
		{"no frontmatter", fstest.MapFS{"a/SKILL.md": {Data: []byte("# just markdown\n")}}, mcp.ErrInvalidSkill, "no YAML frontmatter"},
		{"unterminated frontmatter", fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\ndescription: d\n")}}, mcp.ErrInvalidSkill, "no YAML frontmatter"},
		{"not yaml", fstest.MapFS{"a/SKILL.md": skillMD("name: [a\ndescription: d")}, mcp.ErrInvalidSkill, "not valid YAML"},
		{"not a mapping", fstest.MapFS{"a/SKILL.md": skillMD("- a\n- b")}, mcp.ErrInvalidSkill, "not a YAML mapping"},
		{"missing name", fstest.MapFS{"a/SKILL.md": skillMD("description: d")}, mcp.ErrInvalidSkill, "needs a name"},
		{"name not a string", fstest.MapFS{"a/SKILL.md": skillMD("name: 12\ndescription: d")}, mcp.ErrInvalidSkill, "needs a name"},
		{"uppercase name", fstest.MapFS{"Bad/SKILL.md": skillMD("name: Bad\ndescription: d")}, mcp.ErrInvalidSkill, "breaks the naming rule"},
		{"double hyphen", fstest.MapFS{"a--b/SKILL.md": skillMD("name: a--b\ndescription: d")}, mcp.ErrInvalidSkill, "breaks the naming rule"},
		{"leading hyphen", fstest.MapFS{"-a/SKILL.md": skillMD("name: -a\ndescription: d")}, mcp.ErrInvalidSkill, "breaks the naming rule"},
		{"name too long", fstest.MapFS{strings.Repeat("a", 65) + "/SKILL.md": skillMD("name: " + strings.Repeat("a", 65) + "\ndescription: d")}, mcp.ErrInvalidSkill, "breaks the naming rule"},
		{"name differs from directory", fstest.MapFS{"a/SKILL.md": skillMD("name: b\ndescription: d")}, mcp.ErrInvalidSkill, "differs from its directory"},
		{"missing description", fstest.MapFS{"a/SKILL.md": skillMD("name: a")}, mcp.ErrInvalidSkill, "needs a description"},
		{"blank description", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: '  '")}, mcp.ErrInvalidSkill, "needs a description"},
		{"description too long", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: " + long)}, mcp.ErrInvalidSkill, "over 1024"},
		{"reserved metadata key", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1")}, mcp.ErrInvalidSkill, "reserved"},
		{"metadata not a mapping", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d\nmetadata: 3")}, mcp.ErrInvalidSkill, "metadata must be a mapping"},
		{"complex key", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d\nx:\n  ? [k]\n  : v")}, mcp.ErrInvalidSkill, "JSON keys are strings"},
		{"alias bomb", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]")}, mcp.ErrInvalidSkill, "more than 10000 values"},
		{"infinite number", fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d\nx: .inf")}, mcp.ErrInvalidSkill, "JSON cannot carry"},
		{"SKILL.md at the root", fstest.MapFS{"SKILL.md": skillMD("name: a\ndescription: d")}, mcp.ErrInvalidSkill, "at the root"},
		{"skill inside a skill", fstest.MapFS{
			"a/SKILL.md":   skillMD("name: a\ndescription: d"),
			"a/b/SKILL.md": skillMD("name: b\ndescription: d"),
		}, mcp.ErrInvalidSkill, "is inside skill a"},
		{"duplicate names", fstest.MapFS{
			"x/a/SKILL.md": skillMD("name: a\ndescription: d"),
			"y/a/SKILL.md": skillMD("name: a\ndescription: d"),
		}, mcp.ErrAlreadyRegistered, "must be unique"},
		{"too many files", func() fstest.MapFS {
			m := fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d")}
			for i := range skill.MaxFiles {
				m["a/f/"+strings.Repeat("z", i%7)+string(rune('a'+i%26))+strings.Repeat("q", i/26)] = &fstest.MapFile{Data: []byte("x")}
			}
			return m
		}(), mcp.ErrInvalidSkill, "more than 512 files"},
		{"too large", fstest.MapFS{
			"a/SKILL.md": skillMD("name: a\ndescription: d"),
			"a/big.bin":  {Data: make([]byte, skill.MaxBytes)},
		}, mcp.ErrInvalidSkill, "over 16777216 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSkillServer(t)
			err := srv.Registry().AddSkills(tt.fsys)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, srv.HasSkills())
			assert.Empty(t, srv.ListResources(t.Context(), nil), "nothing is registered on error")
			assert.Panics(t, func() { srv.AddSkills(tt.fsys) }, "AddSkills panics where Registry.AddSkills errs")
		})
	}
}

// TestAddSkillsResourceClash checks that a file URI already taken by a
// resource refuses the whole registration and leaves no skill resource.
func TestAddSkillsResourceClash(t *testing.T) {
	srv := newSkillServer(t)
	srv.AddResource(mcp.Resource{URI: "skill://b/SKILL.md", Name: "taken",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return nil, nil }})
	err := srv.Registry().AddSkills(fstest.MapFS{
		"a/SKILL.md": skillMD("name: a\ndescription: d"),
		"b/SKILL.md": skillMD("name: b\ndescription: d"),
	})
	require.ErrorIs(t, err, mcp.ErrAlreadyRegistered)
	assert.False(t, srv.HasSkills())
	res := srv.ListResources(t.Context(), nil)
	require.Len(t, res, 1)
	assert.Equal(t, "taken", res[0].Name)
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// TestAddSkills checks what a good file system becomes: entries with the
// frontmatter as JSON, every file with its digest and size, resources with
// the right names and MIME types, directories, and escaping.
func TestAddSkills(t *testing.T) {
	md := []byte("\uFEFF---\r\nname: pdf-tools\r\ndescription: Work with PDFs.\r\nlicense: MIT\r\nallowed-tools: [read, write]\r\nmetadata:\r\n  version: \"1.0\"\r\n  count: 3\r\n  when: 2024-01-02\r\n  1: one\r\n  <<: {m: 1}\r\n  yes: no\r\n---\r\nBody\r\n")
	bin := []byte{0xff, 0x00, 0xfe}
	fsys := fstest.MapFS{
		"team a/pdf-tools/SKILL.md":             {Data: md},
		"team a/pdf-tools/scripts/data.json":    {Data: []byte("{\"a\":1}")},
		"team a/pdf-tools/assets/logo.bin":      {Data: bin},
		"team a/pdf-tools/references/REF.md":    {Data: []byte("# ref\n")},
		"other/notes/SKILL.md":                  {Data: []byte("---\nname: notes\ndescription: Notes.\n---\n")},
		"other/README.txt":                      {Data: []byte("not part of a skill")},
		"team a/pdf-tools/references/deep/x.md": {Data: []byte("x")},
	}
	srv := newSkillServer(t)
	require.NoError(t, srv.Registry().AddSkills(fsys))
	require.True(t, srv.HasSkills())

	skills := srv.ListSkills(t.Context(), nil)
	require.Len(t, skills, 2)
	assert.Equal(t, "skill://other/notes/SKILL.md", skills[0].URI, "sorted by URI")
	pdf := skills[1]
	assert.Equal(t, "skill://team%20a/pdf-tools/SKILL.md", pdf.URI, "segments are percent-encoded")
	assert.JSONEq(t, `{"name":"pdf-tools","description":"Work with PDFs.","license":"MIT","allowed-tools":["read","write"],
		"metadata":{"version":"1.0","count":3,"when":"2024-01-02","1":"one","<<":{"m":1},"yes":"no"}}`, string(pdf.Frontmatter))
	assert.Equal(t, "pdf-tools", pdf.Name)
	assert.Equal(t, "Work with PDFs.", pdf.Description)
	byURI := map[string]mcp.SkillFile{}
	for _, f := range pdf.Resources {
		byURI[f.URI] = f
	}
	require.Len(t, byURI, 5, "every file once, README.txt outside the skill excluded")
	assert.Equal(t, mcp.SkillFile{URI: pdf.URI, Digest: digest(md), Size: int64(len(md))}, byURI[pdf.URI])
	assert.Equal(t, digest(bin), byURI["skill://team%20a/pdf-tools/assets/logo.bin"].Digest)

	got, err := srv.GetSkill(t.Context(), nil, pdf.URI)
	require.NoError(t, err)
	assert.Equal(t, pdf.URI, got.URI)
	_, err = srv.GetSkill(t.Context(), nil, "skill://nope/SKILL.md")
	var je *mcp.Error
	require.ErrorAs(t, err, &je)
	assert.Equal(t, int64(mcp.CodeInvalidParams), je.Code)

	// Resources: SKILL.md carries the frontmatter's name and description.
	res := map[string]mcp.Resource{}
	for _, r := range srv.ListResources(t.Context(), nil) {
		res[r.URI] = r
	}
	require.Len(t, res, 6)
	assert.Equal(t, "pdf-tools", res[pdf.URI].Name)
	assert.Equal(t, "Work with PDFs.", res[pdf.URI].Description)
	assert.Equal(t, "text/markdown", res[pdf.URI].MIMEType)
	assert.Equal(t, "application/octet-stream", res["skill://team%20a/pdf-tools/assets/logo.bin"].MIMEType)
	assert.Equal(t, "application/json", res["skill://team%20a/pdf-tools/scripts/data.json"].MIMEType)

	c := &mcp.Context{}
	rr, err := srv.ReadResource(t.Context(), c, pdf.URI)
	require.NoError(t, err)
	assert.Equal(t, string(md), rr.Contents[0].Text, "served byte for byte, so the digest holds")
	rr, err = srv.ReadResource(t.Context(), c, "skill://team%20a/pdf-tools/assets/logo.bin")
	require.NoError(t, err)
	assert.Equal(t, bin, rr.Contents[0].Blob, "a file that is not UTF-8 is a blob")

	// Directories: direct children, subdirectories as inode/directory.
	dirTests := []struct {
		uri  string
		want []string
	}{
		{"skill://team%20a/pdf-tools", []string{"SKILL.md", "assets/", "references/", "scripts/"}},
		{"skill://team%20a/pdf-tools/", []string{"SKILL.md", "assets/", "references/", "scripts/"}},
		{"skill://team%20a/pdf-tools/references", []string{"REF.md", "deep/"}},
		{"skill://team%20a", []string{"pdf-tools/"}},
		{"skill://other", []string{"notes/"}},
	}
	for _, tt := range dirTests {
		kids, err := srv.ReadSkillDirectory(t.Context(), nil, tt.uri)
		require.NoError(t, err, tt.uri)
		var names []string
		for _, k := range kids {
			n := k.URI[strings.LastIndexByte(k.URI, '/')+1:]
			if k.MIMEType == "inode/directory" {
				n += "/"
			}
			names = append(names, n)
		}
		assert.Equal(t, tt.want, names, tt.uri)
	}
	for _, bad := range []string{pdf.URI, "skill://nope", "skill://", "", "skill://team%20a/pdf-tools/scripts/data.json"} {
		_, err := srv.ReadSkillDirectory(t.Context(), nil, bad)
		require.ErrorAs(t, err, &je, bad)
		assert.Equal(t, int64(mcp.CodeInvalidParams), je.Code, bad)
	}

	// A second file system adds to the first; a name served already is refused.
	require.NoError(t, srv.Registry().AddSkills(fstest.MapFS{"more/SKILL.md": skillMD("name: more\ndescription: d")}))
	assert.Len(t, srv.ListSkills(t.Context(), nil), 3)
	err = srv.Registry().AddSkills(fstest.MapFS{"again/notes/SKILL.md": skillMD("name: notes\ndescription: d")})
	assert.ErrorIs(t, err, mcp.ErrAlreadyRegistered)
	assert.Len(t, srv.ListSkills(t.Context(), nil), 3)
}

// TestSkillJSON checks the wire shape of an entry.
func TestSkillJSON(t *testing.T) {
	srv := newSkillServer(t)
	srv.AddSkills(fstest.MapFS{"a/SKILL.md": skillMD("name: a\ndescription: d")})
	b, err := json.Marshal(srv.ListSkills(t.Context(), nil)[0])
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	assert.ElementsMatch(t, []string{"uri", "frontmatter", "resources"}, keys(m))
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestAddSkillsFSError checks that a file system failure is returned as is.
func TestAddSkillsFSError(t *testing.T) {
	srv := newSkillServer(t)
	err := srv.Registry().AddSkills(errFS{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, fs.ErrPermission), "%v", err)
}

type errFS struct{}

func (errFS) Open(string) (fs.File, error) { return nil, fs.ErrPermission }
