package media

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/mimetype"
)

// IconFromBytes returns an icon whose Src is a data: URI holding data in
// base64, for mcp.Options.Icons or an object's Icons. mimeType names the
// image's type; when empty it is detected from the bytes (PNG, JPEG, GIF,
// WebP, ICO, and SVG that starts with <svg or an XML declaration). It
// fails with an error wrapping [ErrType] when the type is not an image
// type an icon may have, and when the URI would exceed 64 KiB (about 48
// KiB of image): icons travel in every listing, so a larger image is
// better served from an https: URL.
func IconFromBytes(data []byte, mimeType string) (mcp.Icon, error) {
	if len(data) == 0 {
		return mcp.Icon{}, errors.New("media: icon: no image data")
	}
	if mimeType == "" {
		mimeType = sniffIcon(data)
	}
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil || !mimetype.IconType(mt) {
		return mcp.Icon{}, fmt.Errorf("%w: icon: MIME type %q is not an image type an icon may have (%s)", ErrType, mimeType, mimetype.IconTypeList)
	}
	prefix := "data:" + mt + ";base64,"
	if n := len(prefix) + base64.StdEncoding.EncodedLen(len(data)); n > mimetype.MaxIconDataURI {
		return mcp.Icon{}, fmt.Errorf("media: icon: the data: URI would be %d bytes, over the limit of %d (64 KiB): use a smaller image or an https: URL", n, mimetype.MaxIconDataURI)
	}
	return mcp.Icon{Src: prefix + base64.StdEncoding.EncodeToString(data), MIMEType: mt}, nil
}

// IconFromFS is [IconFromBytes] for the file name of fsys (an embed.FS
// compiled into the program, say). The MIME type comes from the file's
// extension (".png", ".svg", ".webp", …), else from its bytes.
func IconFromFS(fsys fs.FS, name string) (mcp.Icon, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return mcp.Icon{}, fmt.Errorf("media: icon: %w", err)
	}
	if len(data) > mimetype.MaxIconDataURI {
		return mcp.Icon{}, fmt.Errorf("media: icon: %s is %d bytes, over the limit of a data: URI (64 KiB): use a smaller image or an https: URL", name, len(data))
	}
	ic, err := IconFromBytes(data, mimetype.ByExtension(path.Ext(name), false))
	if err != nil {
		return mcp.Icon{}, fmt.Errorf("%w (file %s)", err, name)
	}
	return ic, nil
}

// sniffIcon is http.DetectContentType, which also knows SVG when the
// document starts with its root element or an XML declaration before it.
func sniffIcon(data []byte) string {
	t := http.DetectContentType(data)
	if strings.HasPrefix(t, "text/") {
		head := bytes.TrimSpace(data[:min(len(data), 512)])
		if bytes.HasPrefix(head, []byte("<svg")) || (bytes.HasPrefix(head, []byte("<?xml")) && bytes.Contains(head, []byte("<svg"))) {
			return "image/svg+xml"
		}
	}
	return t
}
