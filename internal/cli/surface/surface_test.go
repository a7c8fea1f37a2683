package surface

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const before = `{"protocolVersion":"2025-11-25","server":{"name":"s","version":"1"},
"capabilities":{"tools":{"listChanged":true},"prompts":{}},
"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},
         {"name":"a","description":"first","inputSchema":{"type":"object"}}],
"resources":[],"resourceTemplates":[],
"prompts":[{"name":"p","arguments":[{"name":"topic","required":true},{"name":"tone"}]}]}`

func TestJSONIsStable(t *testing.T) {
	s, err := Parse([]byte(before))
	require.NoError(t, err)
	b1, err := s.JSON()
	require.NoError(t, err)
	s2, err := Parse(b1)
	require.NoError(t, err)
	b2, err := s2.JSON()
	require.NoError(t, err)
	require.Equal(t, string(b1), string(b2))
	require.Less(t, strings.Index(string(b1), `"name": "a"`), strings.Index(string(b1), `"name": "b"`), "tools sorted by name")
	require.Less(t, strings.Index(string(b1), `"prompts": {}`), strings.Index(string(b1), `"tools": {`), "keys sorted")
}

func TestDiff(t *testing.T) {
	a, err := Parse([]byte(before))
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		edit   func(s string) string
		expect []string
	}{
		{"same", func(s string) string { return s }, nil},
		{"tool added", func(s string) string {
			return strings.Replace(s, `"tools":[`, `"tools":[{"name":"c"},`, 1)
		}, []string{"+ tools[c]"}},
		{"type changed", func(s string) string {
			return strings.Replace(s, `"x":{"type":"string"}`, `"x":{"type":"number"}`, 1)
		}, []string{`~ tools[b].inputSchema.properties.x.type: "string" → "number"`}},
		{"version changed", func(s string) string {
			return strings.Replace(s, `"version":"1"`, `"version":"2"`, 1)
		}, []string{`~ server.version: "1" → "2"`}},
		{"argument added", func(s string) string {
			return strings.Replace(s, `{"name":"tone"}`, `{"name":"tone"},{"name":"len"}`, 1)
		}, []string{`+ prompts[p].arguments[len]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.edit(before)))
			require.NoError(t, err)
			require.Equal(t, tc.expect, Diff(a, b))
		})
	}
	t.Run("reordered is the same", func(t *testing.T) {
		re := strings.Replace(before,
			`"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},
         {"name":"a","description":"first","inputSchema":{"type":"object"}}]`,
			`"tools":[{"name":"a","description":"first","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}]`, 1)
		require.NotEqual(t, before, re)
		b, err := Parse([]byte(re))
		require.NoError(t, err)
		require.Empty(t, Diff(a, b))
	})
	t.Run("tool removed", func(t *testing.T) {
		re := strings.Replace(before, `,
         {"name":"a","description":"first","inputSchema":{"type":"object"}}`, ``, 1)
		require.NotEqual(t, before, re)
		b, err := Parse([]byte(re))
		require.NoError(t, err)
		require.Equal(t, []string{"- tools[a]"}, Diff(a, b))
	})
}

func TestReport(t *testing.T) {
	s, err := Parse([]byte(before))
	require.NoError(t, err)
	var buf bytes.Buffer
	s.Report(&buf)
	out := buf.String()
	for _, want := range []string{
		"Server        s 1\n",
		"Capabilities  prompts, tools (listChanged)\n",
		"Tools (2)\n  a — first\n    in:  {}\n  b\n    in:  {x: string}\n",
		"Prompts (1)\n  p(topic, tone?)\n",
	} {
		require.Contains(t, out, want)
	}
}

// FuzzParse: a --check file of any content is read or refused, never a
// panic, and a surface that parses diffs against itself as no change.
func FuzzParse(f *testing.F) {
	f.Add(before)
	f.Add(`{"tools":[{"name":1},{"uri":"x"},{}],"prompts":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse([]byte(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		s.Report(&buf)
		require.Empty(t, Diff(s, s))
	})
}

// TestReportEscapesTheServersText: a hostile server's names and
// descriptions hold terminal escape sequences (OSC 52 writes the
// clipboard, CSI rewrites the screen) and bidirectional overrides; the
// report and the diff show them escaped, never raw.
func TestReportEscapesTheServersText(t *testing.T) {
	t.Parallel()
	evil := "x\x1b]52;c;ZXZpbA==\x07\x1b[2K\u202Eexe.txt\u009b\n  forged"
	s := &Surface{ProtocolVersion: "2025-11-25", Server: map[string]any{"name": evil, "version": evil, "title": evil},
		Capabilities: map[string]any{evil: map[string]any{}}, Instructions: evil,
		Tools:     []map[string]any{{"name": evil, "description": evil, "inputSchema": map[string]any{"type": "object", "properties": map[string]any{evil: map[string]any{"type": "string"}}}}},
		Resources: []map[string]any{{"uri": evil, "name": evil, "mimeType": evil}}, ResourceTemplates: []map[string]any{{"uriTemplate": evil, "name": evil}},
		Prompts: []map[string]any{{"name": evil, "arguments": []any{map[string]any{"name": evil}}}}}
	var b strings.Builder
	s.Report(&b)
	lines := Diff(&Surface{}, s)
	require.NotEmpty(t, lines)
	j, err := s.JSON()
	require.NoError(t, err)
	back, err := Parse(j)
	require.NoError(t, err)
	assert.Empty(t, Diff(s, back), "the JSON means the same")
	for _, out := range append(lines, b.String(), string(j)) {
		assert.NotContains(t, out, "\x1b")
		assert.NotContains(t, out, "\u202E")
		assert.NotContains(t, out, "\u009b")
		assert.NotContains(t, out, "\x07")
		assert.NotContains(t, out, "\n  forged", "a newline in a name forges no line")
	}
	assert.Contains(t, b.String(), `x\x1b]52;c;ZXZpbA==\x07\x1b[2K\u202eexe.txt\x9b`, "shown escaped")
}

// TestReportTypes: an enum shows its values, an optional property shows
// no null (it may be left out), a required one does.
func TestReportTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want string
	}{
		{"enum", `{"properties":{"status":{"type":"string","enum":["open","closed"]}}}`, `{status?: "open"|"closed"}`},
		{"required enum", `{"properties":{"status":{"type":"string","enum":["open","closed"]}},"required":["status"]}`, `{status: "open"|"closed"}`},
		{"nullable enum, optional", `{"properties":{"s":{"type":["string","null"],"enum":["a",null]}}}`, `{s?: "a"}`},
		{"nullable enum, required", `{"properties":{"s":{"type":["string","null"],"enum":["a",null]}},"required":["s"]}`, `{s: "a"|null}`},
		{"number enum", `{"properties":{"n":{"type":"integer","enum":[1,2]}}}`, `{n?: 1|2}`},
		{"optional nullable", `{"properties":{"s":{"type":["null","string"]}}}`, `{s?: string}`},
		{"required nullable", `{"properties":{"s":{"type":["string","null"]}},"required":["s"]}`, `{s: string|null}`},
		{"optional nullable list", `{"properties":{"l":{"type":["null","array"],"items":{"type":"string"}}}}`, `{l?: []string}`},
		{"list of an enum", `{"properties":{"l":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`, `{l?: []("a"|"b")}`},
		{"only null", `{"properties":{"z":{"type":["null"]}}}`, `{z?: null}`},
		{"anyOf with null", `{"properties":{"u":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, `{u?: string}`},
		{"anyOf with null, required", `{"properties":{"u":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["u"]}`, `{u: string|null}`},
		{"object", `{"properties":{"o":{"properties":{"a":{}}}}}`, `{o?: object}`},
		{"any", `{"properties":{"x":{}}}`, `{x?: any}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.schema), &s))
			require.Equal(t, tt.want, schemaLine(s))
		})
	}
}
