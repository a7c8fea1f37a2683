package claims

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Path
		err  string
	}{
		{in: "roles", want: Path{"roles"}},
		{in: "realm_access.roles", want: Path{"realm_access", "roles"}},
		{in: "resource_access.my-client.roles", want: Path{"resource_access", "my-client", "roles"}},
		{in: "cognito:groups", want: Path{"cognito:groups"}},
		{in: `"https://mcp.example.com/roles"`, want: Path{"https://mcp.example.com/roles"}},
		{in: `"https://a.example/app".roles`, want: Path{"https://a.example/app", "roles"}},
		{in: `"say \"hi\" \\ there"`, want: Path{`say "hi" \ there`}},
		{in: "", err: "empty"},
		{in: ".roles", err: "empty name at byte 0"},
		{in: "roles.", err: "ends with '.'"},
		{in: "a..b", err: "empty name at byte 2"},
		{in: `""`, err: "empty name"},
		{in: `"unterminated`, err: "no closing quote"},
		{in: `"a"b`, err: "must be followed by '.'"},
		{in: `a"b`, err: "must be quoted"},
		{in: `a\b`, err: "must be quoted"},
		{in: `"a\n"`, err: `escapes only`},
		{in: "a.b.c.d.e.f.g.h.i", err: "more than 8 names"},
		{in: strings.Repeat("a", 257), err: "exceeds 256"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePath(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, p)
			back, err := ParsePath(p.String())
			require.NoError(t, err, "String() %q must parse", p.String())
			assert.Equal(t, p, back)
		})
	}
}

func TestStringsAndRoles(t *testing.T) {
	t.Parallel()
	var claims map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{
		"roles": ["admin", "viewer", 7, "", null],
		"groups": "ops",
		"realm_access": {"roles": ["admin", "deployer"]},
		"https://mcp.example.com/roles": ["billing"],
		"n": 3,
		"obj": {"x": 1},
		"empty": ""
	}`), &claims))
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"roles", []string{"admin", "viewer"}},
		{"groups", []string{"ops"}},
		{"realm_access.roles", []string{"admin", "deployer"}},
		{`"https://mcp.example.com/roles"`, []string{"billing"}},
		{"n", nil},
		{"obj", nil},
		{"empty", nil},
		{"missing", nil},
		{"groups.x", nil},
		{"roles.0", nil},
	} {
		p, err := ParsePath(tc.path)
		require.NoError(t, err)
		assert.Equal(t, tc.want, nilIfEmpty(p.Strings(claims)), tc.path)
	}
	paths, err := ParsePaths([]string{"realm_access.roles", "roles", "groups", "missing"})
	require.NoError(t, err)
	assert.Equal(t, []string{"admin", "deployer", "viewer", "ops"}, Roles(claims, paths))
	assert.Nil(t, Roles(nil, paths))
	_, err = ParsePaths([]string{"ok", "bad."})
	assert.ErrorContains(t, err, `"bad."`)
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func seg(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestPeek(t *testing.T) {
	t.Parallel()
	hdr := seg(`{"alg":"RS256","typ":"at+jwt","kid":"k"}`)
	for _, tc := range []struct {
		name string
		tok  string
		want Peeked
		ok   bool
	}{
		{"jwt", hdr + "." + seg(`{"iss":"https://id.example","sub":"a"}`) + ".c2ln", Peeked{"RS256", "at+jwt", "https://id.example"}, true},
		{"no iss", hdr + "." + seg(`{"sub":"a"}`) + ".c2ln", Peeked{"RS256", "at+jwt", ""}, true},
		{"iss not a string", hdr + "." + seg(`{"iss":7}`) + ".c2ln", Peeked{"RS256", "at+jwt", ""}, true},
		{"opaque", "mcpk_abcdefghijklmnopqrstuvwxyz", Peeked{}, false},
		{"two segments", hdr + "." + seg(`{}`), Peeked{}, false},
		{"JWE (five)", hdr + ".a.b.c.d", Peeked{}, false},
		{"no signature", hdr + "." + seg(`{}`) + ".", Peeked{}, false},
		{"header not JSON", seg("x") + "." + seg(`{}`) + ".c2ln", Peeked{}, false},
		{"header without alg", seg(`{"typ":"JWT"}`) + "." + seg(`{}`) + ".c2ln", Peeked{}, false},
		{"payload a list", hdr + "." + seg(`[1]`) + ".c2ln", Peeked{}, false},
		{"padding", hdr + "." + base64.URLEncoding.EncodeToString([]byte(`{"iss":"x"}`)) + "=.c2ln", Peeked{}, false},
		{"too long", hdr + "." + seg(`{"iss":"`+strings.Repeat("a", 17<<10)+`"}`) + ".c2ln", Peeked{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Peek(tc.tok)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzClaimPath: ParsePath never panics, what it accepts is within its
// limits and survives String and ParsePath unchanged, and Strings on any
// claims never panics.
func FuzzClaimPath(f *testing.F) {
	for _, s := range []string{"roles", "realm_access.roles", `"https://x/roles"`, `"a\"b".c`, `a..b`, `"`, `\`, "a.b.c.d.e.f.g.h"} {
		f.Add(s, `{"roles":["a"],"realm_access":{"roles":["b"]}}`)
	}
	f.Fuzz(func(t *testing.T, s, doc string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		if len(p) == 0 || len(p) > maxPathSegments {
			t.Fatalf("%q parsed to %d names", s, len(p))
		}
		back, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("String of %q is %q, which does not parse: %v", s, p.String(), err)
		}
		if len(back) != len(p) {
			t.Fatalf("%q: round trip changed %q into %q", s, p, back)
		}
		for i := range p {
			if back[i] != p[i] {
				t.Fatalf("%q: round trip changed %q into %q", s, p, back)
			}
		}
		var claims map[string]any
		if json.Unmarshal([]byte(doc), &claims) == nil {
			_ = p.Strings(claims)
		}
	})
}

// FuzzPeek: Peek never panics and accepts only three-segment tokens.
func FuzzPeek(f *testing.F) {
	f.Add(seg(`{"alg":"RS256"}`) + "." + seg(`{"iss":"x"}`) + ".c2ln")
	f.Add("mcpk_abc")
	f.Add("..")
	f.Fuzz(func(t *testing.T, tok string) {
		if _, ok := Peek(tok); ok && strings.Count(tok, ".") != 2 {
			t.Fatalf("%q accepted without three segments", tok)
		}
	})
}
