package mcphttp

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/header"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// Defaults of [Options.MaxDepth] and [Options.MaxBatch].
const (
	DefaultMaxDepth = jsonrpc.DefaultMaxDepth
	DefaultMaxBatch = jsonrpc.DefaultMaxBatch
)

// limits are the decoder's bounds from Options; errors name the fields.
func (h *Handler) limits() jsonrpc.Limits {
	return jsonrpc.Limits{MaxDepth: h.opts.MaxDepth, MaxBatch: h.opts.MaxBatch, Setting: "mcphttp.Options"}
}

// checkVersion refuses (400, naming both) a request on session c whose
// MCP-Protocol-Version header differs from the version the session
// negotiated: the client must speak what it agreed to, and a header must
// not unlock what the session's version forbids (batches). A request
// without the header is taken to speak the negotiated version (the
// transport spec: the server relies on the version negotiated at
// initialization). Options.AllowVersionMismatch lets a supported version
// pass (servePost already refused an unsupported one). It reports whether
// the request may go on.
func (h *Handler) checkVersion(w http.ResponseWriter, r *http.Request, c *conn, id []byte) bool {
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
