package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp"
)

// TestVersionCompare: revisions order by date, and a string that is not
// a date sorts before every revision (where byte order would put "9"
// after "2025-11-25" and "2025-11-25x" after "2025-11-25").
func TestVersionCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b mcp.Version
		want int
	}{
		{mcp.Version20241105, mcp.Version20250326, -1},
		{mcp.Version20251125, mcp.Version20250618, 1},
		{mcp.Version20260728, mcp.Version20260728, 0},
		{mcp.Version20260728, mcp.Version20251125, 1},
		{"9", mcp.Version20241105, -1},
		{"2025-11-25x", mcp.Version20251125, -1},
		{"", mcp.Version20241105, -1},
		{"2025-1a-25", "2024-11-05", -1},
		{mcp.Version20241105, "latest", 1},
		{"a", "b", -1},
		{"", "", 0},
	} {
		assert.Equal(t, tc.want, tc.a.Compare(tc.b), "%q vs %q", tc.a, tc.b)
		assert.Equal(t, -tc.want, tc.b.Compare(tc.a), "%q vs %q", tc.b, tc.a)
	}
}

// TestVersionSessionless: only 2026-07-28 among the known revisions has
// no initialize and no sessions; an unknown string is not taken for it.
func TestVersionSessionless(t *testing.T) {
	t.Parallel()
	for v, want := range map[mcp.Version]bool{
		mcp.Version20241105: false, mcp.Version20250326: false, mcp.Version20250618: false,
		mcp.Version20251125: false, mcp.Version20260728: true, "": false, "2026-07-28 ": false,
	} {
		assert.Equal(t, want, v.Sessionless(), "%q", v)
	}
}
