package mcp

import (
	"mime"
	"strings"
)

// typeByExtension returns the MIME type of a file extension (".png", any
// case): the common types of icons and skill files from the list below,
// else the system's database when system is true, else "". The list gives
// every machine the same answer, and spares a server the system's MIME
// database: its first lookup reads it into about 450 KB of heap that the
// garbage collector then marks in every cycle for the life of the
// process, which made each call of a server with an icon pay about a
// third more for collection.
func typeByExtension(ext string, system bool) string {
	switch strings.ToLower(ext) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".svg":
		return "image/svg+xml"
	case ".avif":
		return "image/avif"
	case ".ico":
		return "image/x-icon"
	case ".txt":
		return "text/plain"
	case ".md", ".markdown":
		return "text/markdown"
	case ".html", ".htm":
		return "text/html"
	case ".css":
		return "text/css"
	case ".csv":
		return "text/csv"
	case ".js", ".mjs":
		return "text/javascript"
	case ".py":
		return "text/x-python"
	case ".json":
		return "application/json"
	case ".xml":
		return "application/xml"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".pdf":
		return "application/pdf"
	case ".wasm":
		return "application/wasm"
	}
	if system {
		return mime.TypeByExtension(ext)
	}
	return ""
}
