// Package header reads the HTTP headers of the hot path by their
// canonical names, without the canonicalization that http.Header's
// methods do on every call: textproto.CanonicalMIMEHeaderKey checks and
// folds the key each time, about 300 instructions, and a POST reads six
// such headers.
//
// Every name given to Get must be in canonical form; the names the server
// uses are the constants here, which the package's test checks.
package header

import "net/http"

// The canonical names of the headers the engine and its middleware read.
const (
	Accept          = "Accept"
	ContentType     = "Content-Type"
	Origin          = "Origin"
	SessionID       = "Mcp-Session-Id"
	ProtocolVersion = "Mcp-Protocol-Version"
	LastEventID     = "Last-Event-Id"
)

// Get returns the first value of the header key, or "": h.Get(key) for a
// key in canonical form.
func Get(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
