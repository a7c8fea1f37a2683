package toolname

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// grammar is the rule as a regexp, which Valid replaced (a package-level
// regexp is compiled at init); the loop must agree with it on every input.
var grammar = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// TestValid checks the rule on chosen names, the length bounds included.
func TestValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"echo", true},
		{"get_user-v2.beta", true},
		{"A1", true},
		{strings.Repeat("a", 128), true},
		{"", false},
		{"my tool", false},
		{"a/b", false},
		{"héllo", false},
		{"a:b", false},
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 200), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ok, Valid(tt.name), "Valid(%q)", tt.name)
	}
}

// TestValidMatchesGrammar compares Valid with the grammar's regexp on
// edge cases and on random strings over the characters that matter.
func TestValidMatchesGrammar(t *testing.T) {
	t.Parallel()
	names := []string{
		"", "a", "-", "--", "a-b", "a--b", "-a", "a-", "A", "a.b", "a_b", "a b", "é",
		strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("x", 128), strings.Repeat("x", 129),
		"get_weather", "admin.tools.list", "DATA_EXPORT_v2", "tool/name", "tool,name",
	}
	for _, n := range names {
		assert.Equal(t, grammar.MatchString(n), Valid(n), "Valid(%q)", n)
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
		n := gen("az09-_.A ", 12)
		assert.Equal(t, grammar.MatchString(n), Valid(n), "Valid(%q)", n)
	}
	for range 200 {
		n := gen("ab-", 140)
		assert.Equal(t, grammar.MatchString(n), Valid(n), "Valid(%q)", n)
	}
}
