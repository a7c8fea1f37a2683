package session_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/session"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := session.NewID()
		require.True(t, session.ValidID(id), "%q", id)
		require.GreaterOrEqual(t, len(id), 22, "128 bits of randomness")
		for _, c := range []byte(id) {
			require.True(t, c >= 0x21 && c <= 0x7e, "visible ASCII only: %q", id)
		}
		require.False(t, seen[id], "IDs are unique")
		seen[id] = true
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"abc", true},
		{"!~", true},
		{strings.Repeat("a", 256), true},
		{"", false},
		{strings.Repeat("a", 257), false},
		{"has space", false},
		{"tab\t", false},
		{"del\x7f", false},
		{"nl\n", false},
		{"ümlaut", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, session.ValidID(tt.id), "%q", tt.id)
	}
}
