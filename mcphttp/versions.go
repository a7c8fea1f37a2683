package mcphttp

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// The protocol revisions the engine speaks, each named by its date so
// that the names sort as the revisions do.
const (
	Version20241105 = "2024-11-05" // the first revision; also the HTTP+SSE transport's
	Version20250326 = "2025-03-26" // Streamable HTTP, JSON-RPC batches
	Version20250618 = "2025-06-18" // structured tool output, elicitation
	Version20251125 = "2025-11-25" // the newest revision with initialize and sessions
	Version20260728 = "2026-07-28" // no initialize, no sessions: served per request
)

// NewestVersion is the newest revision the engine speaks.
const NewestVersion = Version20260728

// supportedVersions are the revisions negotiated by initialize, newest
// first; a client that asks for another is offered the first.
var supportedVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}

// allVersions are every revision the endpoint serves, newest first: what
// server/discover lists and what a -32022 error names as supported.
var allVersions = append(slices.Clone(modernVersions), supportedVersions...)

// SupportedVersions returns every protocol revision the engine speaks,
// newest first. The slice is a copy: changing it changes nothing.
func SupportedVersions() []string { return slices.Clone(allVersions) }

// versionAssumed is what a request without MCP-Protocol-Version is taken
// to speak (the transport spec's rule).
const versionAssumed = "2025-03-26"

// hdrProtocolVersion is the MCP-Protocol-Version header in its canonical
// form (read with header.Get, which does not canonicalize).
const hdrProtocolVersion = header.ProtocolVersion

// checkVersion refuses (400, naming both) a request on session c whose
// MCP-Protocol-Version header differs from the version the session
// negotiated: the client must speak what it agreed to, and a header must
// not unlock what the session's version forbids (batches). A request
// without the header is taken to speak the negotiated version (the
// transport spec: the server relies on the version negotiated at
// initialization). Options.AllowVersionMismatch lets a supported version
// pass (servePost already refused an unsupported one). It reports whether
// the request may go on.
func (h *Handler) checkVersion(w http.ResponseWriter, r *http.Request, c *sessionState, id []byte) bool {
	v := header.Get(r.Header, hdrProtocolVersion)
	negotiated := c.sess.ProtocolVersion()
	if v == "" || negotiated == "" || v == negotiated {
		return true
	}
	if h.opts.AllowVersionMismatch && slices.Contains(supportedVersions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, id, mcp.CodeServerError, fmt.Sprintf(
		"Bad Request: MCP-Protocol-Version %s does not match the session's negotiated version %q; send the version initialize returned",
		strictjson.Quote(v), negotiated))
	return false
}

// refuseVersion answers a request whose MCP-Protocol-Version this server
// does not speak.
func refuseVersion(w http.ResponseWriter, id []byte, version string) {
	httpError(w, http.StatusBadRequest, id, mcp.CodeServerError,
		fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %s (supported: %s)", strictjson.Quote(version), strings.Join(supportedVersions, ", ")))
}
