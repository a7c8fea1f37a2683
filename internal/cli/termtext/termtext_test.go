package termtext

import (
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text, a tab\tand\nlines", "plain text, a tab\tand\nlines"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},           // OSC 52 writes the clipboard
		{"ok\x1b[2K\x1b[1Gfake prompt", `ok\x1b[2K\x1b[1Gfake prompt`}, // erase the line, rewrite it
		{"over\rwrite", `over\x0dwrite`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"evil\u202Etxt.exe", `evil\u202etxt.exe`},
		{"\u2066iso\u2069", `\u2066iso\u2069`},
		{"bad \xff byte", `bad \xff byte`},
	} {
		assert.Equal(t, tc.want, Clean(tc.in), "%q", tc.in)
	}
}

// FuzzClean: what Clean returns is valid UTF-8 with no character a
// terminal acts on.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\u202e", "\xff\xfe", "\r\n", "\u0085\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		require.True(t, utf8.ValidString(out))
		for _, r := range out {
			require.False(t, r < 0x20 && r != '\n' && r != '\t', "%q → %q", s, out)
			require.False(t, r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r), "%q → %q", s, out)
		}
	})
}

func TestLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"add_numbers", "add_numbers"},
		{"tool\n  fake — a line of the CLI's own", `tool\x0a  fake — a line of the CLI's own`},
		{"a\tb\x1b[2K", `a\x09b\x1b[2K`},
	} {
		assert.Equal(t, tc.want, Line(tc.in), "%q", tc.in)
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	v := map[string]any{"text": "ok\x1b]52;c;ZXZpbA==\x07 \u009b31m \u202eexe \x7f ✓", "n": 1.5}
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	out := JSON(b)
	require.NotContains(t, string(out), "\u009b")
	require.NotContains(t, string(out), "\u202e")
	require.NotContains(t, string(out), "\x7f")
	require.Contains(t, string(out), `\u202eexe`)
	var back map[string]any
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, v, back, "the value is unchanged")
	clean := []byte(`{"a": "plain ✓"}`)
	assert.Equal(t, clean, JSON(clean))
}

// FuzzJSON: for any value encoding/json writes, JSON keeps the value and
// leaves no character a terminal acts on.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\u202e", "\xff\xfe", "\r\n", "\u0085\u009b\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.MarshalIndent(map[string]any{s: []any{s, 1}}, "", "\t")
		require.NoError(t, err)
		out := JSON(b)
		var want, got any
		require.NoError(t, json.Unmarshal(b, &want))
		require.NoError(t, json.Unmarshal(out, &got), "%q", out)
		require.Equal(t, want, got)
		for _, r := range string(out) {
			require.False(t, r < 0x20 && r != '\n' && r != '\t', "%q → %q", s, out)
			require.False(t, r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r), "%q → %q", s, out)
		}
	})
}
