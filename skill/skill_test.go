package skill_test

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/skill"
)

// TestValidName checks the naming rule.
func TestValidName(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"a": true, "a-b": true, "a1-2b": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false, "a.b": false,
		strings.Repeat("a", 65): false, "é": false,
	} {
		assert.Equal(t, ok, skill.ValidName(name), "%q", name)
	}
}

// TestValidNameMatchesGrammar checks ValidName against the grammar's
// regexp (which it replaced) on chosen edge cases and random strings over
// the alphabet that matters.
func TestValidNameMatchesGrammar(t *testing.T) {
	t.Parallel()
	ref := regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	refOK := func(s string) bool { return ref.MatchString(s) && !strings.Contains(s, "--") }
	names := []string{
		"", "a", "-", "--", "a-b", "a--b", "-a", "a-", "A", "a.b", "a_b", "a b", "é",
		strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("x", 128), strings.Repeat("x", 129),
		"get_weather", "admin.tools.list", "DATA_EXPORT_v2", "tool/name", "tool,name",
	}
	rng := rand.New(rand.NewPCG(10, 10))
	gen := func(alphabet string, maxLen int) string {
		b := make([]byte, rng.IntN(maxLen+1))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		names = append(names, gen("az09-_.A ", 12))
	}
	for range 200 {
		names = append(names, gen("ab-", 140))
	}
	for _, n := range names {
		assert.Equal(t, refOK(n), skill.ValidName(n), "ValidName(%q)", n)
	}
}

// TestParseFrontmatter: the frontmatter as JSON, read as the server
// reads it for skills/list, with no skill rule applied; an error when
// there is none, it is not a mapping, it is too large or it expands
// without bound.
func TestParseFrontmatter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, md, want string // want "" means an error
	}{
		{"plain", "---\nname: a\ndescription: d\n---\nbody\n", `{"name":"a","description":"d"}`},
		{"CRLF and BOM", "\uFEFF---\r\nname: a\r\nn: 2\r\n---\r\n", `{"name":"a","n":2}`},
		{"timestamp stays text, no rules", "---\nname: Not_Valid\nwhen: 2026-01-02\n---\n", `{"name":"Not_Valid","when":"2026-01-02"}`},
		{"nested", "---\nmetadata:\n  tags: [x, y]\n---\n", `{"metadata":{"tags":["x","y"]}}`},
		{"merge key is a key", "---\n<<: x\n---\n", `{"<<":"x"}`},
		{"none", "# Title\n", ""},
		{"not a mapping", "---\n- a\n---\n", ""},
		{"not closed", "---\nname: a\n", ""},
		{"not a number JSON carries", "---\nn: .nan\n---\n", ""},
		{"a key that is not a scalar", "---\n? [k]\n: v\n---\n", ""},
		{"too large", "---\nx: " + strings.Repeat("a", skill.MaxFrontmatterBytes) + "\n---\n", ""},
		{"aliases that expand", "---\n" + laughs() + "---\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := skill.ParseFrontmatter([]byte(tc.md))
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

// laughs is a YAML document whose aliases expand to 10^6 values.
func laughs() string {
	var b strings.Builder
	b.WriteString("a0: [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 6; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// FuzzParseFrontmatter feeds arbitrary SKILL.md files to the parser (a
// server reads them from a user's directory, a host from a server): it
// never panics, and what it accepts is a JSON object.
func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: d\n---\nbody",
		"\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\n",
		"---\nname: a\ndescription: d\nx: &a [*a]\n---\n",
		"---\nname: a\ndescription: d\nx:\n  1: one\n  ? [k]\n  : v\n---\n",
		"---\nname: a\ndescription: d\nn: .nan\nbig: 123456789012345678901234567890\n---\n",
		"---\n- list\n---\n",
		"---\n---\n",
		"no frontmatter",
		"---\n!!binary aGk=: x\n---\n",
		"---\na: &x {b: *x}\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, md []byte) {
		raw, err := skill.ParseFrontmatter(md)
		if err != nil {
			if raw != nil {
				t.Fatalf("an error (%v) with a frontmatter %q", err, raw)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			t.Fatalf("frontmatter %q is not a JSON object: %v", raw, err)
		}
	})
}
