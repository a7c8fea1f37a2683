package mcp

// Version is a revision of the MCP specification, named by its date
// ("2025-11-25"): what a client asks for in initialize (or carries in
// every request's _meta from 2026-07-28 on) and what the server chose.
// Compare revisions with [Version.Compare], not with the string operators:
// a string that is not a date does not sort as a revision.
type Version string

// The revisions mcpchain speaks, server and client.
const (
	Version20241105 Version = "2024-11-05" // the first revision; also the HTTP+SSE transport's
	Version20250326 Version = "2025-03-26" // Streamable HTTP, JSON-RPC batches
	Version20250618 Version = "2025-06-18" // structured tool output, elicitation
	Version20251125 Version = "2025-11-25" // the newest revision with initialize and sessions
	Version20260728 Version = "2026-07-28" // no initialize, no sessions: each request carries the client's identity
)

// Sessionless reports whether v is a revision without initialize and
// without sessions (2026-07-28): a client sends server/discover instead,
// and every request carries the client's identity and capabilities in
// its _meta. A revision this module does not know is not sessionless.
func (v Version) Sessionless() bool { return v == Version20260728 }

// Compare orders revisions by their dates: -1 when v is older than w, 0
// when they are the same, +1 when v is newer. A string that is not a
// date (YYYY-MM-DD) sorts before every revision, and among its kind by
// its bytes.
func (v Version) Compare(w Version) int {
	vd, wd := v.isDate(), w.isDate()
	switch {
	case vd && !wd:
		return 1
	case !vd && wd:
		return -1
	case v < w: // dates of one fixed form sort as their text
		return -1
	case v > w:
		return 1
	}
	return 0
}

// isDate reports whether v has the form of a revision: YYYY-MM-DD.
func (v Version) isDate() bool {
	if len(v) != len("2006-01-02") {
		return false
	}
	for i := range len(v) {
		switch c := v[i]; i {
		case 4, 7:
			if c != '-' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}
