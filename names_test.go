package mcp

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The regexps the name and version checks replaced (they were compiled at
// package init): the hand-written checks must agree with them on every
// input. Compiled on first use, not at init, so that they do not count in
// what TestPackageInitHeap measures.
var (
	semverRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
			`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
			`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	})
	toolNameRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })
)

// TestNameChecksMatchGrammar checks validSemver and ValidToolName
// against the grammars' regexps on chosen edge cases.
func TestNameChecksMatchGrammar(t *testing.T) {
	t.Parallel()
	versions := []struct {
		v  string
		ok bool
	}{
		{"1.2.3", true}, {"v1.2.3", true}, {"0.0.0", true}, {"10.20.30", true},
		{"1.0.0-alpha", true}, {"1.0.0-alpha.1", true}, {"1.0.0-0.3.7", true}, {"1.0.0-x.7.z.92", true},
		{"1.0.0-x-y-z.--", true}, {"1.0.0+20130313144700", true}, {"1.0.0-beta+exp.sha.5114f85", true},
		{"1.0.0-0A.is.legal", true}, {"1.0.0-00a", true}, {"1.0.0+001", true}, {"1.0.0-rc.1+build.1", true},
		{"", false}, {"v", false}, {"1", false}, {"1.0", false}, {"1.0.", false}, {"1.0.0.", false},
		{"01.0.0", false}, {"1.01.0", false}, {"1.0.01", false}, {"1.0.0-", false}, {"1.0.0+", false},
		{"1.0.0-01", false}, {"1.0.0-a..b", false}, {"1.0.0+a..b", false}, {"1.0.0-a_b", false},
		{"1.0.0 ", false}, {" 1.0.0", false}, {"vv1.0.0", false}, {"V1.0.0", false}, {"1.0.0-é", false},
		{"1.0.0+a+b", false}, {"1.0.0-a+b-c", true}, {"1.0.0x", false}, {"1.-0.0", false}, {"1.0.0-.a", false},
	}
	for _, tt := range versions {
		assert.Equal(t, tt.ok, validSemver(tt.v), "validSemver(%q)", tt.v)
		assert.Equal(t, semverRef().MatchString(tt.v), validSemver(tt.v), "validSemver(%q) against the grammar", tt.v)
	}
	names := []string{
		"", "a", "-", "--", "a-b", "a--b", "-a", "a-", "A", "a.b", "a_b", "a b", "é",
		strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("x", 128), strings.Repeat("x", 129),
		"get_weather", "admin.tools.list", "DATA_EXPORT_v2", "tool/name", "tool,name",
	}
	for _, n := range names {
		assert.Equal(t, toolNameRef().MatchString(n), ValidToolName(n), "ValidToolName(%q)", n)
	}
}

// TestNameChecksMatchGrammarRandom compares the checks with the regexps on
// random strings over the alphabet that matters to each.
func TestNameChecksMatchGrammarRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 10))
	gen := func(alphabet string, maxLen int) string {
		b := make([]byte, rng.IntN(maxLen+1))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		v := gen("0123.-+av", 14)
		assert.Equal(t, semverRef().MatchString(v), validSemver(v), "validSemver(%q)", v)
		n := gen("az09-_.A ", 12)
		assert.Equal(t, toolNameRef().MatchString(n), ValidToolName(n), "ValidToolName(%q)", n)
	}
	for range 200 {
		n := gen("ab-", 140)
		assert.Equal(t, toolNameRef().MatchString(n), ValidToolName(n), "ValidToolName(%q)", n)
	}
}
