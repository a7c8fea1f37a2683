package mcp

import (
	"math/rand/v2"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// semverRef is the regexp the version check replaced (it was compiled at
// package init): the hand-written check must agree with it on every
// input. Compiled on first use, not at init, so that it does not count in
// what TestPackageInitHeap measures. The tool-name rule's twin is in
// internal/toolname.
var semverRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
		`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
		`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
})

// TestSemverCheckMatchesGrammar checks validSemver against the grammar's
// regexp on chosen edge cases.
func TestSemverCheckMatchesGrammar(t *testing.T) {
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
}

// TestSemverCheckMatchesGrammarRandom compares validSemver with the regexp on
// random strings over the alphabet that matters to it.
func TestSemverCheckMatchesGrammarRandom(t *testing.T) {
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
	}
}
