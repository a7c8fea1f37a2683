package mimetype

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The common extensions are answered from the list, in any case, without
// the system's table; others only when the caller asks for it.
func TestByExtension(t *testing.T) {
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
		assert.Equal(t, tt.want, ByExtension(tt.ext, tt.system), "%q system=%v", tt.ext, tt.system)
	}
}

// TestIconType checks the icon types, which a caller passes lower-case
// and without parameters.
func TestIconType(t *testing.T) {
	t.Parallel()
	for _, mt := range []string{"image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp", "image/gif",
		"image/avif", "image/x-icon", "image/vnd.microsoft.icon"} {
		assert.True(t, IconType(mt), mt)
	}
	for _, mt := range []string{"", "image/bmp", "image/tiff", "text/plain", "application/pdf", "IMAGE/PNG", "image/png; q=1"} {
		assert.False(t, IconType(mt), mt)
	}
}
