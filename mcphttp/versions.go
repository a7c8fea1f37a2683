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

// supportedVersions are the revisions negotiated by initialize, newest
// first; a client that asks for another is offered the first.
var supportedVersions = []string{string(mcp.Version20251125), string(mcp.Version20250618), string(mcp.Version20250326), string(mcp.Version20241105)}

// allVersions are every revision the endpoint serves, newest first: what
// server/discover lists and what a -32022 error names as supported.
var allVersions = append(slices.Clone(rev20260728Versions), supportedVersions...)

// SupportedVersions returns every protocol revision the engine speaks,
// newest first (mcp.Version20260728, then the revisions with initialize).
// The slice is new: changing it changes nothing.
func SupportedVersions() []mcp.Version {
	out := make([]mcp.Version, len(allVersions))
	for i, v := range allVersions {
		out[i] = mcp.Version(v)
	}
	return out
}

// versionAssumed is what a request without MCP-Protocol-Version is taken
// to speak (the transport spec's rule).
const versionAssumed = string(mcp.Version20250326)

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
