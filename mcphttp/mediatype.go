package mcphttp

import (
	"net/http"
	"strings"

	"github.com/mcpchain/mcp/internal/header"
)

// accepts reports whether the Accept header lists every one of types (or
// a wildcard that covers them). It allocates nothing: it runs on every
// POST.
func accepts(r *http.Request, types ...string) bool {
	vals := r.Header[header.Accept]
	if len(vals) == 0 {
		return false
	}
	// The value the SDKs' clients send, which lists both types a POST
	// needs, is known without parsing it.
	both := len(vals) == 1 && vals[0] == acceptBoth
	for _, t := range types {
		if both && (t == mediaJSON || t == mediaSSE) {
			continue
		}
		if !acceptsType(vals, t) {
			return false
		}
	}
	return true
}

// The media types of the transport, and the Accept value that lists both.
const (
	mediaJSON  = "application/json"
	mediaSSE   = "text/event-stream"
	acceptBoth = mediaJSON + ", " + mediaSSE
)

// acceptsType reports whether one of the media ranges in vals covers t:
// t itself, its type's wildcard ("text/*") or "*/*" (case does not matter;
// parameters such as q are ignored).
func acceptsType(vals []string, t string) bool {
	major, _, _ := strings.Cut(t, "/")
	for _, v := range vals {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt := mediaType(part)
			if strings.EqualFold(mt, t) || mt == "*/*" {
				return true
			}
			if m, sub, ok := strings.Cut(mt, "/"); ok && sub == "*" && strings.EqualFold(m, major) {
				return true
			}
		}
	}
	return false
}

// mediaType is the media type of a Content-Type value or Accept range:
// what precedes the first ';', without surrounding spaces.
func mediaType(v string) string {
	mt, _, _ := strings.Cut(v, ";")
	return strings.TrimSpace(mt)
}
