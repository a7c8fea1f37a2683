package mcphttp

import (
	"github.com/mcpchain/mcp/internal/jsonrpc"
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
