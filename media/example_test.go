package media_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/media"
)

// Images and audio come from bytes, files or URLs, their MIME type
// detected from the data; a download is bounded by FetchOptions.
func ExampleImageFromBytes() {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	img, err := media.ImageFromBytes(png)
	fmt.Println(img.MIMEType, err)
	_, err = media.ImageFromBytes([]byte("not an image"))
	fmt.Println(errors.Is(err, media.ErrType))

	dir, _ := os.MkdirTemp("", "media")
	defer os.RemoveAll(dir)
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), make([]byte, 32)...)
	_ = os.WriteFile(filepath.Join(dir, "beep.wav"), wav, 0o600)
	_ = os.WriteFile(filepath.Join(dir, "logo.png"), png, 0o600)
	audio, err := media.AudioFromFile(filepath.Join(dir, "beep.wav"))
	fmt.Println(audio.MIMEType, err)
	logo, _ := media.ImageFromFile(filepath.Join(dir, "logo.png"))
	same, _ := media.AudioFromBytes(wav)
	fmt.Println(logo.MIMEType, same.MIMEType)

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(png) }))
	defer web.Close()
	ctx := context.Background()
	fetched, err := media.ImageFromURL(ctx, web.URL+"/logo.png", &media.FetchOptions{Timeout: media.DefaultFetchTimeout, MaxBytes: media.DefaultFetchMaxBytes})
	fmt.Println(fetched.MIMEType, err)
	_, err = media.AudioFromURL(ctx, web.URL+"/logo.png", &media.FetchOptions{MaxBytes: 4})
	fmt.Println(errors.Is(err, media.ErrTooLarge))

	// Content read back from the wire has its concrete type again.
	raw, _ := json.Marshal(img)
	back, _ := mcp.UnmarshalContent(raw)
	_, isImage := back.(mcp.ImageContent)
	fmt.Println(isImage)
	// Output:
	// image/png <nil>
	// true
	// audio/wave <nil>
	// image/png audio/wave
	// image/png <nil>
	// true
	// true
}
