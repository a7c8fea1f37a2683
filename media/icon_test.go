package media_test

import (
	"bytes"
	"encoding/base64"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/media"
)

var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")

// TestIconFromBytes: the type given or sniffed, the data: URI built, and
// what registration takes; a type no icon may have, no data or too much
// is refused.
func TestIconFromBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mime string
		data       []byte
		wantType   string
		wantErr    string
	}{
		{"sniffed png", "", pngHeader, "image/png", ""},
		{"sniffed gif", "", []byte("GIF89a\x01\x00\x01\x00"), "image/gif", ""},
		{"given svg", "image/svg+xml", []byte("<svg/>"), "image/svg+xml", ""},
		{"parameters dropped", "image/webp; q=1", []byte("RIFF"), "image/webp", ""},
		{"sniffed svg", "", []byte(` <svg xmlns="http://www.w3.org/2000/svg"/>`), "image/svg+xml", ""},
		{"sniffed svg after xml declaration", "", []byte(`<?xml version="1.0"?><svg/>`), "image/svg+xml", ""},
		{"html is not svg", "", []byte(`<html><svg/></html>`), "", `MIME type "text/html; charset=utf-8" is not an image type`},
		{"not an image", "application/pdf", []byte("%PDF"), "", `MIME type "application/pdf" is not an image type`},
		{"empty", "image/png", nil, "", "no image data"},
		{"too big", "image/png", bytes.Repeat([]byte{1}, 48<<10), "", "over the limit of 65536 (64 KiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ic, err := media.IconFromBytes(tt.data, tt.mime)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantType, ic.MIMEType)
			assert.Equal(t, "data:"+tt.wantType+";base64,"+base64.StdEncoding.EncodeToString(tt.data), ic.Src)
			// What the helper builds, registration takes.
			assert.NotPanics(t, func() { mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", Icons: []mcp.Icon{ic}}) })
		})
	}
	// The largest image that fits is taken.
	n := (64<<10-len("data:image/png;base64,"))/4*3 - 2
	ic, err := media.IconFromBytes(bytes.Repeat([]byte{1}, n), "image/png")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(ic.Src), 64<<10)
	assert.NotPanics(t, func() { mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", Icons: []mcp.Icon{ic}}) })

	// A type no icon may have is media's ErrType, as for the other helpers.
	_, err = media.IconFromBytes([]byte("%PDF"), "application/pdf")
	assert.ErrorIs(t, err, media.ErrType)
}

// TestIconFromFS: the type from the extension, else from the bytes; a
// file no icon may be, too large or missing is refused, naming it.
func TestIconFromFS(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a/logo.png":  {Data: pngHeader},
		"logo.svg":    {Data: []byte("<svg/>")},
		"noext":       {Data: pngHeader},
		"notes.txt":   {Data: []byte("hello")},
		"huge.png":    {Data: make([]byte, 65<<10)},
		"fake.png.js": {Data: []byte("alert(1)")},
	}
	for name, want := range map[string]string{"a/logo.png": "image/png", "logo.svg": "image/svg+xml", "noext": "image/png"} {
		ic, err := media.IconFromFS(fsys, name)
		require.NoError(t, err, name)
		assert.Equal(t, want, ic.MIMEType, name)
	}
	for name, want := range map[string]string{
		"notes.txt":   `is not an image type an icon may have`,
		"fake.png.js": `is not an image type an icon may have`,
		"huge.png":    "huge.png is 66560 bytes, over the limit",
		"missing.png": "file does not exist",
	} {
		_, err := media.IconFromFS(fsys, name)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), want, name)
	}
}
