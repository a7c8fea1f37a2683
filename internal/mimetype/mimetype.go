// Package mimetype holds the MIME types the module knows without the
// system's database: those of common file extensions (skill files,
// icons), and the image types an icon may have, which package mcp checks
// when an icon is registered and package media builds icons of.
package mimetype

import (
	"mime"
	"strings"
)

// extensionTypes are the MIME types of the file extensions icons and skill
// files commonly have (an array, not a map: static data, nothing built
// when the package starts).
var extensionTypes = [...]struct{ ext, mimeType string }{
	{".png", "image/png"}, {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"}, {".gif", "image/gif"},
	{".webp", "image/webp"}, {".svg", "image/svg+xml"}, {".avif", "image/avif"}, {".ico", "image/x-icon"},
	{".txt", "text/plain"}, {".md", "text/markdown"}, {".markdown", "text/markdown"},
	{".html", "text/html"}, {".htm", "text/html"}, {".css", "text/css"}, {".csv", "text/csv"},
	{".js", "text/javascript"}, {".mjs", "text/javascript"}, {".py", "text/x-python"},
	{".json", "application/json"}, {".xml", "application/xml"}, {".yaml", "application/yaml"},
	{".yml", "application/yaml"}, {".pdf", "application/pdf"}, {".wasm", "application/wasm"},
}

// ByExtension returns the MIME type of a file extension (".png", any
// case) from extensionTypes, else from the system's database when system
// is true, else "". The list gives every machine the same answer, and
// spares a server the system's database: its first lookup reads it into
// about 450 KB of heap that the garbage collector then marks in every
// cycle for the life of the process, which made each call of a server
// with an icon pay about a third more for collection.
func ByExtension(ext string, system bool) string {
	for _, t := range extensionTypes {
		if strings.EqualFold(t.ext, ext) {
			return t.mimeType
		}
	}
	if system {
		return mime.TypeByExtension(ext)
	}
	return ""
}

// MaxIconDataURI bounds the length of an icon's data: URI. Icons travel
// in every list result (and initialize): a large image there would cost
// every client on every listing.
const MaxIconDataURI = 64 << 10

// IconTypeList names the image types an icon may have, for errors.
const IconTypeList = "image/png, image/jpeg, image/svg+xml, image/webp, image/gif, image/avif, image/x-icon"

// IconType reports whether mt, a lower-case MIME type without
// parameters, is an image type an icon may have: those clients must or
// should render (PNG, JPEG, SVG, WebP) and the other common ones. A
// switch, not a map: nothing is built when the package starts.
func IconType(mt string) bool {
	switch mt {
	case "image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp",
		"image/gif", "image/avif", "image/x-icon", "image/vnd.microsoft.icon":
		return true
	}
	return false
}
