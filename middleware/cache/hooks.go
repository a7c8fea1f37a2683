package cache

import (
	"context"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// change is a change of a server's registry.
type change = engine.Change[*mcp.LogMessage]

// serverOps is what the cache needs of a server that package mcp's API
// does not offer, two operations of the engine's view of it (package mcp's
// engine.go, reached through engine.View, as package mcphttp reaches it):
// the tool a caller sees, to read its annotations and check it is still
// visible before an answer is given, and the changes of the registry, to
// drop every answer when the tools change. The view implements a larger
// interface (mcphttp's serverOps); this one names only these methods, with
// their types, so the compiler checks the calls here too.
type serverOps interface {
	// LookupTool returns the named tool as the caller sees it.
	LookupTool(ctx context.Context, who engine.Caller, name string) (mcp.Tool, bool)
	// Watch calls fn for every change of the registry until stop is
	// called; fn must not block.
	Watch(fn func(change)) (stop func())
}

// viewOf is package mcp's engine.View, asserted to its type once.
var viewOf = engine.View.(func(*mcp.Server) any)

// opsOf returns the engine's view of srv.
func opsOf(srv *mcp.Server) serverOps { return viewOf(srv).(serverOps) }
