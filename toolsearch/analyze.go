package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The text of a tool is cut into terms the same way for the index and
// for a query: split at every character that is not a letter or a digit
// and at the joints of camelCase and letters-to-digits, lower-cased,
// without the commonest English words, each reduced by a light stemmer
// (plurals, -ing, -ed and a final e), so that "members", "member" and
// "getGuildMember" meet, and so do "banned" and "ban".

// maxFieldBytes bounds the text of one field that is analysed (a long
// description is cut): it bounds the work of indexing a tool and of a
// regular expression over it.
const maxFieldBytes = 8 << 10

// stopWords are left out of queries and documents: they match nearly
// every tool and say nothing about which one fits.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "for": true, "in": true, "on": true,
	"at": true, "by": true, "with": true, "from": true, "and": true, "or": true, "is": true, "are": true,
	"be": true, "this": true, "that": true, "it": true, "its": true, "as": true, "i": true, "me": true,
	"my": true, "we": true, "our": true, "you": true, "your": true, "please": true, "can": true,
	"could": true, "would": true, "should": true, "will": true, "want": true, "wants": true, "so": true,
	"some": true, "into": true, "which": true, "what": true, "there": true, "their": true, "them": true,
	"these": true, "those": true, "if": true, "then": true, "than": true, "do": true, "does": true,
	"was": true, "were": true, "has": true, "have": true, "had": true, "not": true, "no": true,
}

// terms calls fn with each term of s, in order, at most max of them
// (max ≤ 0: no limit). It allocates only the terms it keeps.
func terms(s string, max int, fn func(term string)) {
	if len(s) > maxFieldBytes {
		s = s[:maxFieldBytes]
	}
	n := 0
	emit := func(w string) bool {
		if w == "" {
			return true
		}
		w = strings.ToLower(w)
		if stopWords[w] {
			return true
		}
		fn(stem(w))
		n++
		return max <= 0 || n < max
	}
	start := -1 // start of the current word, -1 outside one
	var prev rune
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !word {
			if start >= 0 && !emit(s[start:i]) {
				return
			}
			start = -1
			prev = r
			continue
		}
		if start >= 0 && boundary(prev, r, s[i+utf8.RuneLen(r):]) {
			if !emit(s[start:i]) {
				return
			}
			start = i
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// boundary reports whether a word ends between prev and r: a lower-case
// letter followed by an upper-case one (guildMember), the last capital
// of a run that starts a capitalised word (HTTPServer: HTTP|Server), or a
// change between letters and digits (v2, oauth2).
func boundary(prev, r rune, rest string) bool {
	switch {
	case unicode.IsLower(prev) && unicode.IsUpper(r):
		return true
	case unicode.IsUpper(prev) && unicode.IsUpper(r):
		next, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsLower(next)
	case unicode.IsDigit(prev) != unicode.IsDigit(r):
		return true
	}
	return false
}

// stem reduces an English word to a stem shared by its plural, its -ing
// and -ed forms and its form ending in e: a light stemmer, since tool
// texts are short and a heavy one (Porter's) conflates words a tool
// search must tell apart. w is lower case.
func stem(w string) string {
	if len(w) <= 3 || !isASCIILetters(w) {
		return w
	}
	w = withoutVerbEnding(singular(w))
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

// singular drops a plural's ending: -ies becomes -y, -sses, -xes,
// -ches, -shes and -zes lose -es, and any other -s (but -ss, -us, -is)
// is dropped.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// withoutVerbEnding drops an -ing or -ed ending (not -eed), and the
// double consonant it may leave.
func withoutVerbEnding(w string) string {
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4 && !strings.HasSuffix(w, "eed"):
		return undouble(w[:len(w)-2])
	}
	return w
}

// undouble drops the last letter of a double consonant left by -ing or
// -ed (bann → ban, runn → run), except the ones English keeps (ll, ss,
// zz: "install", "pass").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func isASCIILetters(w string) bool {
	for i := range len(w) {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
