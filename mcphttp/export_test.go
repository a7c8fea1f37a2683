package mcphttp

import "github.com/mcpchain/mcp"

// SetTaskPrePeer replaces the request's peer of a deferred task's first
// phase (the MRTR peer of revision 2026-07-28) with what wrap returns.
func SetTaskPrePeer(h *Handler, wrap func(mcp.Peer) mcp.Peer) { h.tasks.prePeer = wrap }

// Versions is every protocol revision the handler speaks.
func Versions() []string {
	return append(append([]string(nil), supportedVersions...), modernVersions...)
}
