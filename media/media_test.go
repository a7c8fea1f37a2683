package media_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/media"
)

var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01")
	jpegBytes = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	gifBytes  = []byte("GIF89a\x01\x00\x01\x00")
	svgBytes  = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>`)
	wavBytes  = []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00")
	mp3Bytes  = []byte("ID3\x03\x00\x00\x00\x00\x00\x00")
	flacBytes = []byte("fLaC\x00\x00\x00\x22")
	oggBytes  = []byte("OggS\x00\x02\x00\x00")
)

func TestMediaFromBytes(t *testing.T) {
	t.Parallel()
	images := []struct {
		data []byte
		want string
	}{{pngBytes, "image/png"}, {jpegBytes, "image/jpeg"}, {gifBytes, "image/gif"}, {svgBytes, "image/svg+xml"}}
	for _, tt := range images {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			c, err := media.ImageFromBytes(tt.data)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.MIMEType)
			assert.Equal(t, tt.data, c.Data)
		})
	}
	audio := []struct {
		data []byte
		want string
	}{{wavBytes, "audio/wave"}, {mp3Bytes, "audio/mpeg"}, {flacBytes, "audio/flac"}, {oggBytes, "audio/ogg"}}
	for _, tt := range audio {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			c, err := media.AudioFromBytes(tt.data)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.MIMEType)
		})
	}
	t.Run("wrong kind", func(t *testing.T) {
		t.Parallel()
		_, err := media.ImageFromBytes(wavBytes)
		require.ErrorIs(t, err, media.ErrType)
		assert.Contains(t, err.Error(), "not image")
		_, err = media.AudioFromBytes([]byte("just text"))
		require.ErrorIs(t, err, media.ErrType)
		_, err = media.ImageFromBytes(nil)
		require.ErrorIs(t, err, media.ErrType)
		assert.Contains(t, err.Error(), "empty")
	})
}

func TestMediaFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o600))
		return p
	}
	c, err := media.ImageFromFile(write("a.png", pngBytes))
	require.NoError(t, err)
	assert.Equal(t, "image/png", c.MIMEType)

	// The data decides first; the extension helps when the data cannot.
	c, err = media.ImageFromFile(write("misnamed.jpg", gifBytes))
	require.NoError(t, err)
	assert.Equal(t, "image/gif", c.MIMEType)
	c, err = media.ImageFromFile(write("blank.webp", []byte("\x00\x00\x00\x00")))
	require.NoError(t, err)
	assert.Equal(t, "image/webp", c.MIMEType)

	a, err := media.AudioFromFile(write("a.wav", wavBytes))
	require.NoError(t, err)
	assert.Equal(t, "audio/wave", a.MIMEType)

	missing := filepath.Join(dir, "nope.png")
	_, err = media.ImageFromFile(missing)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), missing, "the error names the path")

	_, err = media.AudioFromFile(write("text.txt", []byte("hello")))
	require.ErrorIs(t, err, media.ErrType)
	assert.Contains(t, err.Error(), "text.txt")
}

func TestMediaFromURL(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/img", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pngBytes) })
	mux.HandleFunc("/declared", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/avif")
		_, _ = w.Write([]byte("\x00\x00\x00\x1cftypavif"))
	})
	mux.HandleFunc("/song.mp3", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(mp3Bytes)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(pngBytes)
		_, _ = w.Write(make([]byte, 4096))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) })
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"))
	ctx := context.Background()

	img, err := media.ImageFromURL(ctx, srv.URL+"/img", nil)
	require.NoError(t, err)
	assert.Equal(t, "image/png", img.MIMEType)
	assert.Equal(t, pngBytes, img.Data)

	img, err = media.ImageFromURL(ctx, srv.URL+"/declared", nil)
	require.NoError(t, err)
	assert.Equal(t, "image/avif", img.MIMEType, "a declared image type wins")

	au, err := media.AudioFromURL(ctx, srv.URL+"/song.mp3", nil)
	require.NoError(t, err)
	assert.Equal(t, "audio/mpeg", au.MIMEType, "a generic Content-Type falls back to the data")

	failures := []struct {
		name, path string
		opts       *media.FetchOptions
		is         error
		want       string
	}{
		{"status", "/missing", nil, nil, "404"},
		{"size limit", "/big", &media.FetchOptions{MaxBytes: 1024}, media.ErrTooLarge, "1024 bytes"},
		{"timeout", "/slow", &media.FetchOptions{Timeout: 50 * time.Millisecond}, context.DeadlineExceeded, "timed out after 50ms"},
		{"not an image", "/text", nil, media.ErrType, "not image"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := media.ImageFromURL(ctx, srv.URL+tt.path, tt.opts)
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), srv.URL+tt.path, "the error names the URL")
		})
	}
	_, err = media.ImageFromURL(ctx, "file:///etc/passwd", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http or https")
}
