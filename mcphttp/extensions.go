package mcphttp

import (
	"context"
	"encoding/json"

	"github.com/mcpchain/mcp"
)

// The extensions a server offers (SEP-2133; mcp.Server.AddExtension,
// docs/architecture.md, "Extensions"): the engine advertises them, under
// capabilities.extensions of initialize at the 2025 revisions and of
// server/discover at 2026-07-28; serves the methods they add after those
// of the method table; and runs their wrappers around the methods they
// name. The server's own extensions come through the same registry:
// skills and MCP Apps are advertised from it, and the methods the table
// marks with an extension (skills/*) are served only while it is.

// advertisedExtensions are capabilities.extensions: what the server
// advertises, with the tasks extension of 2026-07-28 (the engine's own)
// at 2026-07-28 (rev20260728); nil for none.
func (h *Handler) advertisedExtensions(rev20260728 bool) map[string]json.RawMessage {
	settings, _ := h.ops.Extensions()
	if !rev20260728 {
		if len(settings) == 0 {
			return nil
		}
		return settings
	}
	ext := make(map[string]json.RawMessage, len(settings)+1)
	for id, s := range settings {
		ext[id] = s
	}
	ext[mcp.TasksExtension] = json.RawMessage("{}") // ext_tasks.go
	return ext
}

// extensionMethod returns the runner of a method an extension added, or
// nil.
func (h *Handler) extensionMethod(method string) methodFunc {
	fn := h.ops.ExtensionMethod(method)
	if fn == nil {
		return nil
	}
	return func(h *Handler, ctx context.Context, k *call) (any, error) {
		return fn(h.withRequestContext(ctx, k), k.mcpCall())
	}
}

// withRequestContext returns ctx carrying the request's mcp.Context, for
// an extension's handler or wrapper (mcp.FromContext).
func (h *Handler) withRequestContext(ctx context.Context, k *call) context.Context {
	var meta *requestMeta
	if m, ok := requestMetaOf(k.msg.Params); ok {
		meta = &requestMeta{Members: m, ProgressToken: m["progressToken"]}
	}
	return h.ops.WithContext(ctx, h.context(ctx, k, meta))
}

// wrapMethod runs fn inside the extensions' wrappers of its method, when
// there are any.
func (h *Handler) wrapMethod(method string, fn methodFunc) methodFunc {
	w := h.ops.ExtensionWrap(method)
	if w == nil || fn == nil {
		return fn
	}
	return func(h *Handler, ctx context.Context, k *call) (any, error) {
		next := func(ctx context.Context, _ *mcp.Call) (any, error) { return fn(h, ctx, k) }
		return w(next)(h.withRequestContext(ctx, k), k.mcpCall())
	}
}

// mcpCall is the request as an interceptor or an extension's handler sees
// it.
func (k *call) mcpCall() *mcp.Call {
	sess := k.c.sess
	mc := &mcp.Call{Method: k.msg.Method, ID: k.msg.ID, Params: k.msg.Params, Auth: k.auth,
		ProtocolVersion: mcp.Version(sess.ProtocolVersion()), Request: k.r, Logger: k.h.log}
	if !k.c.ephemeral {
		mc.SessionID = sess.ID
	}
	return mc
}
