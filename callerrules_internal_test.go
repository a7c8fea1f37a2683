package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchain/mcp/access"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeCallerRules: the rules read from the shared store decode as
// they were encoded, and what encodeCallerRules would not write is
// refused with an error rather than applied: too large, too many rules,
// a kind that is not one, JSON that is not the rules' form.
func TestDecodeCallerRules(t *testing.T) {
	t.Parallel()
	rules := []rule{
		{m: Match{Kind: access.KindTool, Names: []string{"vault"}}, on: true},
		{m: Match{Tags: []string{"admin"}}, on: false},
	}
	for i := range rules {
		rules[i].key = rules[i].m.key()
	}
	b, err := encodeCallerRules(rules)
	require.NoError(t, err)
	got, err := decodeCallerRules(b)
	require.NoError(t, err)
	assert.Equal(t, rules, got)

	many := "[" + strings.Repeat(`{"n":["x"]},`, MaxCallerRules) + `{"n":["x"]}]`
	for _, tt := range []struct{ name, in, has string }{
		{"too large", `[{"n":["` + strings.Repeat("a", maxCallerRulesBytes) + `"]}]`, "over the limit"},
		{"too many", many, "rules, over the limit"},
		{"bad kind", `[{"k":"widget"}]`, "not a kind"},
		{"not an array", `{"k":"tool"}`, "not valid"},
		{"duplicate member", `[{"k":"tool","k":"prompt"}]`, "not valid"},
		{"too deep", `[{"n":[["x"]]}]`, "not valid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeCallerRules([]byte(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.has)
		})
	}
	none, err := decodeCallerRules(nil)
	require.NoError(t, err)
	assert.Empty(t, none)
}

// FuzzCallerRules: whatever the shared store holds, decoding it returns
// rules or an error, never a panic, and rules it accepts encode and
// decode again to the same rules.
func FuzzCallerRules(f *testing.F) {
	for _, s := range []string{`[{"k":"tool","n":["vault"],"on":true}]`, `[{"t":["admin"]},{"n":["a","b"],"on":true}]`, `null`, `[]`, `[{"k":"x"}]`, `[{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rules, err := decodeCallerRules(b)
		if err != nil {
			return
		}
		enc, err := encodeCallerRules(rules)
		if err != nil {
			t.Fatalf("decoded rules %v do not encode: %v", rules, err)
		}
		again, err := decodeCallerRules(enc)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(rules) {
			t.Fatalf("rules %v encode as %s, which decodes to %v, %v", rules, enc, again, err)
		}
	})
}
