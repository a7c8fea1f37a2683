package mcphttp

import (
	"context"

	"github.com/mcpchain/mcp"
)

// The server side of MCP Apps (io.modelcontextprotocol/ui, SEP-1865;
// mcp.Server.AddAppResource): a server with an app's view declares the
// extension in initialize (2025 revisions) and server/discover
// (2026-07-28), and to a client that did not declare it (in initialize's
// capabilities, or a modern request's _meta clientCapabilities) lists
// neither the tools only an app may call nor the views, and answers a
// tools/call of such a tool as of an unknown one (before it could become
// a task). A stateless handler's 2025 requests carry no capabilities, so
// they get everything.

// appsFallback runs a method with the apps' access policy in the
// request's context when the server has apps and the client does not
// support them; otherwise as is (one atomic load for a server without
// apps, on the tools/call path).
func appsFallback(fn methodFunc) methodFunc {
	return func(h *Handler, ctx context.Context, k *call) (any, error) {
		// A stateless 2025 request's throw-away session does not know what
		// the client declared in initialize: nothing is hidden from it.
		unknown := k.c.ephemeral && !k.c.modern
		if !h.ops.HasApps() || unknown || k.c.sess.Capabilities().SupportsApps() {
			return fn(h, ctx, k)
		}
		p := h.ops.AppsFallback()
		k.r = k.r.WithContext(mcp.WithAccessPolicy(k.r.Context(), p))
		return fn(h, mcp.WithAccessPolicy(ctx, p), k)
	}
}

// appsExtension is what the server declares for the apps extension under
// capabilities.extensions: nothing (the extension has no server settings
// yet), and only when the server has an app.
func (h *Handler) appsExtension(ext map[string]any) map[string]any {
	if h.ops.HasApps() {
		if ext == nil {
			ext = map[string]any{}
		}
		ext[mcp.AppsExtension] = struct{}{}
	}
	return ext
}
