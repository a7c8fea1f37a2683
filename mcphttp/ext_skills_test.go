package mcphttp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// skillsFS holds two skills; alpha has a subdirectory.
var skillsFS = fstest.MapFS{
	"alpha/SKILL.md":           {Data: []byte("---\nname: alpha\ndescription: The first skill.\nmetadata:\n  tier: 1\n---\n# Alpha\n")},
	"alpha/references/NOTE.md": {Data: []byte("note\n")},
	"alpha/data.json":          {Data: []byte("{}\n")},
	"beta/SKILL.md":            {Data: []byte("---\nname: beta\ndescription: The second skill.\n---\n")},
}

// newSkillsServer serves skillsFS (or no skills when fsys is nil) with
// options opts.
func newSkillsServer(t *testing.T, fsys fstest.MapFS, opts *mcphttp.Options) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "skills", Version: "1.0.0"})
	if fsys != nil {
		srv.AddSkills(fsys)
	}
	h := mcphttp.New(srv, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

// TestSkillsMethods runs each method of the skills extension at
// 2026-07-28: results (with resultType and the caching fields) and errors.
func TestSkillsMethods(t *testing.T) {
	ts := newSkillsServer(t, skillsFS, nil)
	tests := []struct {
		name     string
		method   string
		params   string
		header   []string
		wantCode int64  // 0: a result
		want     string // JSON the result must contain (assert.Subset on its members)
	}{
		{name: "list", method: "skills/list",
			want: `{"resultType":"complete","ttlMs":0,"cacheScope":"public","skills":[
				{"uri":"skill://alpha/SKILL.md","frontmatter":{"name":"alpha","description":"The first skill.","metadata":{"tier":1}},
				 "resources":[
				   {"uri":"skill://alpha/SKILL.md","digest":"sha256:` + sum(skillsFS["alpha/SKILL.md"].Data) + `","size":` + size("alpha/SKILL.md") + `},
				   {"uri":"skill://alpha/data.json","digest":"sha256:` + sum(skillsFS["alpha/data.json"].Data) + `","size":3},
				   {"uri":"skill://alpha/references/NOTE.md","digest":"sha256:` + sum(skillsFS["alpha/references/NOTE.md"].Data) + `","size":5}]},
				{"uri":"skill://beta/SKILL.md","frontmatter":{"name":"beta","description":"The second skill."},
				 "resources":[{"uri":"skill://beta/SKILL.md","digest":"sha256:` + sum(skillsFS["beta/SKILL.md"].Data) + `","size":` + size("beta/SKILL.md") + `}]}]}`},
		{name: "get", method: "skills/get", params: `"uri":"skill://beta/SKILL.md"`,
			want: `{"resultType":"complete","ttlMs":0,"cacheScope":"public","skill":{"uri":"skill://beta/SKILL.md",
				"frontmatter":{"name":"beta","description":"The second skill."},
				"resources":[{"uri":"skill://beta/SKILL.md","digest":"sha256:` + sum(skillsFS["beta/SKILL.md"].Data) + `","size":` + size("beta/SKILL.md") + `}]}}`},
		{name: "get unknown", method: "skills/get", params: `"uri":"skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"`, wantCode: mcp.CodeInvalidParams},
		{name: "get the directory", method: "skills/get", params: `"uri":"skill://beta"`, wantCode: mcp.CodeInvalidParams},
		{name: "get without uri", method: "skills/get", wantCode: mcp.CodeInvalidParams},
		{name: "get with a bad uri", method: "skills/get", params: `"uri":7`, wantCode: mcp.CodeInvalidParams},
		{name: "directory", method: "resources/directory/read", params: `"uri":"skill://alpha"`,
			want: `{"resultType":"complete","resources":[
				{"uri":"skill://alpha/SKILL.md","name":"alpha","description":"The first skill.","mimeType":"text/markdown","size":` + size("alpha/SKILL.md") + `},
				{"uri":"skill://alpha/data.json","name":"alpha/data.json","mimeType":"application/json","size":3},
				{"uri":"skill://alpha/references","name":"references","mimeType":"inode/directory"}]}`},
		{name: "subdirectory", method: "resources/directory/read", params: `"uri":"skill://alpha/references"`,
			want: `{"resources":[{"uri":"skill://alpha/references/NOTE.md","name":"alpha/references/NOTE.md","mimeType":"text/markdown","size":5}]}`},
		{name: "directory read of a file", method: "resources/directory/read", params: `"uri":"skill://alpha/SKILL.md"`, wantCode: mcp.CodeInvalidParams},
		{name: "directory read of nothing", method: "resources/directory/read", params: `"uri":"skill://zeta"`, wantCode: mcp.CodeInvalidParams},
		{name: "directory read without uri", method: "resources/directory/read", wantCode: mcp.CodeInvalidParams},
		{name: "directory bad cursor", method: "resources/directory/read", params: `"uri":"skill://alpha","cursor":"!!"`, wantCode: mcp.CodeInvalidParams},
		{name: "list bad cursor", method: "skills/list", params: `"cursor":"nope"`, wantCode: mcp.CodeInvalidParams},
		{name: "read SKILL.md", method: "resources/read", params: `"uri":"skill://alpha/SKILL.md"`, header: []string{"Mcp-Name", "skill://alpha/SKILL.md"},
			want: `{"contents":[{"uri":"skill://alpha/SKILL.md","mimeType":"text/markdown","text":"---\nname: alpha\ndescription: The first skill.\nmetadata:\n  tier: 1\n---\n# Alpha\n"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, msgs := rev20260728Post(t, ts, rev20260728Body(tt.method, tt.params), tt.header...)
			require.Len(t, msgs, 1)
			m := msgs[0]
			if tt.wantCode != 0 {
				require.NotNil(t, m.Error, "%s", m.Result)
				assert.Equal(t, tt.wantCode, m.Error.Code, m.Error.Message)
				assert.NotEmpty(t, m.Error.Message)
				assert.JSONEq(t, "7", string(m.ID), "the error echoes the request's id")
				return
			}
			require.Nil(t, m.Error)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			var got, want map[string]any
			require.NoError(t, json.Unmarshal(m.Result, &got))
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			for k, v := range want {
				assert.Equal(t, v, got[k], k)
			}
			assert.NotContains(t, got, "nextCursor")
		})
	}
}

func size(name string) string { return strconv.Itoa(len(skillsFS[name].Data)) }

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestSkillsPagination pages skills/list and resources/directory/read
// one item at a time: every entry whole, on one page, the cursor ending.
func TestSkillsPagination(t *testing.T) {
	ts := newSkillsServer(t, skillsFS, &mcphttp.Options{PageSize: 1})
	pages := func(method, params string, key string) [][]string {
		var out [][]string
		cursor := ""
		for range 10 {
			p := params
			if cursor != "" {
				if p != "" {
					p += ","
				}
				p += `"cursor":"` + cursor + `"`
			}
			_, msgs := rev20260728Post(t, ts, rev20260728Body(method, p))
			require.Len(t, msgs, 1)
			require.Nil(t, msgs[0].Error)
			var res struct {
				Items      []json.RawMessage `json:"-"`
				NextCursor string            `json:"nextCursor"`
			}
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(msgs[0].Result, &raw))
			require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
			var items []struct {
				URI       string            `json:"uri"`
				Resources []json.RawMessage `json:"resources"`
			}
			require.NoError(t, json.Unmarshal(raw[key], &items))
			var uris []string
			for _, it := range items {
				uris = append(uris, it.URI)
				if key == "skills" && it.URI == "skill://alpha/SKILL.md" {
					assert.Len(t, it.Resources, 3, "an entry is never split")
				}
			}
			out = append(out, uris)
			if res.NextCursor == "" {
				return out
			}
			cursor = res.NextCursor
		}
		t.Fatalf("%s: the cursor never ended", method)
		return nil
	}
	assert.Equal(t, [][]string{{"skill://alpha/SKILL.md"}, {"skill://beta/SKILL.md"}}, pages("skills/list", "", "skills"))
	assert.Equal(t, [][]string{{"skill://alpha/SKILL.md"}, {"skill://alpha/data.json"}, {"skill://alpha/references"}},
		pages("resources/directory/read", `"uri":"skill://alpha"`, "resources"))
}

// TestSkillsDiscover checks the capability: declared inline with
// directoryRead when the server has skills, absent (and the methods
// unknown, 404 at 2026-07-28) when it has none.
func TestSkillsDiscover(t *testing.T) {
	tests := []struct {
		name   string
		fsys   fstest.MapFS
		want   string // the extension's value, "" for absent
		status int    // of skills/list
	}{
		{"with skills", skillsFS, `{"directoryRead":true}`, http.StatusOK},
		{"without skills", nil, "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newSkillsServer(t, tt.fsys, nil)
			_, msgs := rev20260728Post(t, ts, rev20260728Body("server/discover", ""))
			require.Len(t, msgs, 1)
			var res struct {
				Capabilities struct {
					Resources  json.RawMessage            `json:"resources"`
					Extensions map[string]json.RawMessage `json:"extensions"`
				} `json:"capabilities"`
			}
			require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
			assert.NotEmpty(t, res.Capabilities.Resources, "skills need the resources capability")
			if tt.want == "" {
				assert.NotContains(t, res.Capabilities.Extensions, skillsExt)
			} else {
				assert.JSONEq(t, tt.want, string(res.Capabilities.Extensions[skillsExt]))
			}
			for _, method := range []string{"skills/list", "skills/get", "resources/directory/read"} {
				resp, msgs := rev20260728Post(t, ts, rev20260728Body(method, `"uri":"skill://alpha/SKILL.md"`))
				require.Len(t, msgs, 1)
				if tt.status == http.StatusOK {
					if method != "resources/directory/read" {
						assert.Nil(t, msgs[0].Error, method)
					}
					continue
				}
				assert.Equal(t, tt.status, resp.StatusCode, method)
				require.NotNil(t, msgs[0].Error, method)
				assert.Equal(t, int64(mcp.CodeMethodNotFound), msgs[0].Error.Code)
				assert.Contains(t, msgs[0].Error.Message, skillsExt)
			}
		})
	}
}

// TestSkillsLegacySession checks that a 2025 session reaches the same
// methods (no caching fields there) and reads skill files as resources.
func TestSkillsLegacySession(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "skills", Version: "1.0.0"})
	srv.AddSkills(skillsFS)
	c, _ := newHTTP(t, srv, nil)
	c.initialize("2025-11-25")
	res, _ := c.call(1, "skills/get", `{"uri":"skill://alpha/SKILL.md"}`)
	require.Nil(t, res.Error)
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(res.Result, &got))
	assert.Contains(t, got, "skill")
	assert.NotContains(t, got, "ttlMs")
	res, _ = c.call(2, "resources/list", "")
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), `"uri":"skill://alpha/SKILL.md","name":"alpha","description":"The first skill.","mimeType":"text/markdown"`)
	res, _ = c.call(3, "resources/read", `{"uri":"skill://alpha/references/NOTE.md"}`)
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), `"text":"note\n"`)
}

// skillsExt is the skills extension's identifier on the wire (SEP-2640).
const skillsExt = "io.modelcontextprotocol/skills"
