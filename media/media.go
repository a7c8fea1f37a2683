// Package media makes the image and audio content of a tool result
// (mcp.ImageContent, mcp.AudioContent) from bytes, a file or a URL, its
// MIME type detected from the data, a download bounded in time and size;
// and icons (mcp.Icon) as data: URIs from bytes or a file.
package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpchain/mcp"
)

// Errors of the media helpers ([ImageFromBytes], [AudioFromURL], …).
var (
	// ErrType means the data is not of the kind asked for (an image
	// for the Image helpers, audio for the Audio ones, an image type an
	// icon may have for the Icon ones), or its type could not be told.
	ErrType = errors.New("media: unrecognised media type")
	// ErrTooLarge means a download exceeded FetchOptions.MaxBytes.
	ErrTooLarge = errors.New("media: larger than the size limit")
)

// Defaults of [FetchOptions].
const (
	DefaultFetchTimeout  = 30 * time.Second
	DefaultFetchMaxBytes = 10 << 20 // 10 MiB
)

// FetchOptions bound the download of [ImageFromURL] and [AudioFromURL].
// A nil *FetchOptions means the defaults.
type FetchOptions struct {
	// Client sends the request. Default: http.DefaultClient. The
	// download is bounded by Timeout whatever the client's own timeout.
	Client *http.Client
	// Timeout bounds the whole download, headers and body. Default:
	// [DefaultFetchTimeout].
	Timeout time.Duration
	// MaxBytes is the largest body accepted. Default:
	// [DefaultFetchMaxBytes].
	MaxBytes int64
}

// ImageFromBytes returns an [mcp.ImageContent] holding data, its MIME type
// detected from the data (PNG, JPEG, GIF, WebP, BMP, ICO, SVG). It fails
// with [ErrType] when data is not a recognised image.
func ImageFromBytes(data []byte) (mcp.ImageContent, error) {
	m, err := detectMedia(data, "image/", "", "")
	if err != nil {
		return mcp.ImageContent{}, err
	}
	return mcp.ImageContent{Data: data, MIMEType: m}, nil
}

// ImageFromFile reads the image at path. Its MIME type is detected from
// the data, else from the file's extension. A missing or unreadable file
// is an error that names the path (and wraps fs.ErrNotExist when missing).
func ImageFromFile(path string) (mcp.ImageContent, error) {
	data, m, err := readMediaFile(path, "image")
	if err != nil {
		return mcp.ImageContent{}, err
	}
	return mcp.ImageContent{Data: data, MIMEType: m}, nil
}

// ImageFromURL downloads the image at rawURL (http or https). Its MIME
// type is the response's Content-Type when that is an image type, else
// detected from the data or the URL's extension. A failed fetch (a
// transport error, a status other than 200, a timeout, a body over the
// size limit: [ErrTooLarge]) is an error that names the URL.
func ImageFromURL(ctx context.Context, rawURL string, opts *FetchOptions) (mcp.ImageContent, error) {
	data, m, err := fetchMedia(ctx, rawURL, "image", opts)
	if err != nil {
		return mcp.ImageContent{}, err
	}
	return mcp.ImageContent{Data: data, MIMEType: m}, nil
}

// AudioFromBytes returns an [mcp.AudioContent] holding data, its MIME type
// detected from the data (WAV, MP3, OGG, FLAC, AIFF, MIDI, M4A). It fails
// with [ErrType] when data is not recognised audio.
func AudioFromBytes(data []byte) (mcp.AudioContent, error) {
	m, err := detectMedia(data, "audio/", "", "")
	if err != nil {
		return mcp.AudioContent{}, err
	}
	return mcp.AudioContent{Data: data, MIMEType: m}, nil
}

// AudioFromFile reads the audio file at path, as [ImageFromFile] reads
// images.
func AudioFromFile(path string) (mcp.AudioContent, error) {
	data, m, err := readMediaFile(path, "audio")
	if err != nil {
		return mcp.AudioContent{}, err
	}
	return mcp.AudioContent{Data: data, MIMEType: m}, nil
}

// AudioFromURL downloads the audio at rawURL, as [ImageFromURL] downloads
// images.
func AudioFromURL(ctx context.Context, rawURL string, opts *FetchOptions) (mcp.AudioContent, error) {
	data, m, err := fetchMedia(ctx, rawURL, "audio", opts)
	if err != nil {
		return mcp.AudioContent{}, err
	}
	return mcp.AudioContent{Data: data, MIMEType: m}, nil
}

func readMediaFile(p, kind string) ([]byte, string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, "", fmt.Errorf("media: reading %s file %q: %w", kind, p, err)
	}
	m, err := detectMedia(data, kind+"/", "", filepath.Ext(p))
	if err != nil {
		return nil, "", fmt.Errorf("%w (file %q)", err, p)
	}
	return data, m, nil
}

// fetchOptions is opts (nil: none) with its defaults filled in.
func fetchOptions(opts *FetchOptions) FetchOptions {
	var o FetchOptions
	if opts != nil {
		o = *opts
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultFetchTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultFetchMaxBytes
	}
	return o
}

func fetchMedia(ctx context.Context, rawURL, kind string, opts *FetchOptions) ([]byte, string, error) {
	o := fetchOptions(opts)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("media: fetching %s %s: "+format, append([]any{kind, rawURL}, args...)...)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", fail("not an absolute http or https URL")
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", fail("%v", err)
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, "", fail("timed out after %v: %w", o.Timeout, context.DeadlineExceeded)
		}
		return nil, "", fail("%w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fail("HTTP status %s, want 200 OK", resp.Status)
	}
	if resp.ContentLength > o.MaxBytes {
		return nil, "", fail("%w: Content-Length %d exceeds %d bytes", ErrTooLarge, resp.ContentLength, o.MaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, o.MaxBytes+1))
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, "", fail("timed out after %v: %w", o.Timeout, context.DeadlineExceeded)
	case err != nil:
		return nil, "", fail("reading the body: %w", err)
	case int64(len(data)) > o.MaxBytes:
		return nil, "", fail("%w: the body exceeds %d bytes", ErrTooLarge, o.MaxBytes)
	}
	m, err := detectMedia(data, kind+"/", resp.Header.Get("Content-Type"), path.Ext(u.Path))
	if err != nil {
		return nil, "", fmt.Errorf("%w (URL %s)", err, rawURL)
	}
	return data, m, nil
}

// detectMedia finds the MIME type of data that must start with prefix
// ("image/" or "audio/"): the declared type when it has that prefix, else
// what the data says, else what the file extension says.
func detectMedia(data []byte, prefix, declared, ext string) (string, error) {
	if m, _, err := mime.ParseMediaType(declared); err == nil && strings.HasPrefix(m, prefix) {
		return m, nil
	}
	if m := sniffMedia(data); strings.HasPrefix(m, prefix) {
		return m, nil
	}
	if ext != "" {
		if m, _, err := mime.ParseMediaType(mime.TypeByExtension(ext)); err == nil && strings.HasPrefix(m, prefix) {
			return m, nil
		}
	}
	want := strings.TrimSuffix(prefix, "/")
	if len(data) == 0 {
		return "", fmt.Errorf("%w: the data is empty, not %s", ErrType, want)
	}
	return "", fmt.Errorf("%w: the data (%s) is not %s", ErrType, sniffMedia(data), want)
}

// sniffMedia is http.DetectContentType with the image and audio formats
// it does not know.
func sniffMedia(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("fLaC")):
		return "audio/flac"
	case len(data) >= 12 && string(data[4:8]) == "ftyp" && (string(data[8:11]) == "M4A" || string(data[8:11]) == "M4B"):
		return "audio/mp4"
	case len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0 && data[1]&0x06 != 0:
		return "audio/mpeg" // an MPEG audio frame without an ID3 tag
	}
	m, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	switch m {
	case "application/ogg":
		return "audio/ogg"
	case "text/xml", "text/plain":
		head := data[:min(len(data), 1024)]
		if bytes.Contains(head, []byte("<svg")) {
			return "image/svg+xml"
		}
	}
	return m
}
