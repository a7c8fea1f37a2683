// Package termtext makes a server's text safe to print on a terminal. A
// hostile server names its tools, writes its descriptions, progress
// messages and errors as it likes; printed raw, an escape sequence in
// them moves the cursor, rewrites what the terminal shows, sets its
// title, or writes the clipboard (OSC 52), and a bidirectional override
// reverses the text after it.
//
// Clean is for text of many lines (a tool's result, an error), Line for
// a field shown on one line (a name, a URI, a progress message: a
// newline in it would forge a line of the CLI's own), JSON for JSON the
// CLI prints (the same value, with the characters a terminal acts on
// written as \u escapes).
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean returns s with every character a terminal would act on instead of
// showing written as a visible escape (ESC as \x1b, U+202E as \u202e,
// an invalid byte as \xff): C0 controls but tab and newline, DEL, C1
// controls and the bidirectional formatting characters. Other text,
// newlines and tabs included, is as it was.
func Clean(s string) string { return clean(s, false) }

// Line is Clean that also escapes newlines and tabs (\x0a, \x09), for a
// field printed on one line.
func Line(s string) string { return clean(s, true) }

func clean(s string, line bool) string {
	bad := func(r rune) bool { return unsafe(r) || line && (r == '\n' || r == '\t') }
	if strings.IndexFunc(s, bad) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case bad(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case bad(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// JSON returns the JSON text b (as encoding/json writes it: valid UTF-8,
// controls below U+0020 inside strings already escaped) with each
// character a terminal acts on written as a \u escape. Such characters
// can only stand inside JSON strings, where the escape means the same
// character: the value is unchanged.
func JSON(b []byte) []byte {
	if !hasUnsafe(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case unsafe(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

func hasUnsafe(b []byte) bool {
	if !utf8.Valid(b) {
		return true
	}
	for _, r := range string(b) {
		if unsafe(r) {
			return true
		}
	}
	return false
}

// unsafe reports whether a terminal may act on r rather than show it.
func unsafe(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r)
}
