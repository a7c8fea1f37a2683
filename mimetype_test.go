package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The common extensions are answered from the list, in any case, without
// the system's table; others only when the caller asks for it.
func TestTypeByExtension(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ext    string
		system bool
		want   string
	}{
		{".png", false, "image/png"},
		{".PNG", false, "image/png"},
		{".Yml", true, "application/yaml"},
		{".md", true, "text/markdown"},
		{".svg", false, "image/svg+xml"},
		{".no-such-extension", false, ""},
		{".no-such-extension", true, ""},
		{"", false, ""},
	} {
		assert.Equal(t, tt.want, typeByExtension(tt.ext, tt.system), "%q system=%v", tt.ext, tt.system)
	}
}
