package cache

import (
	"context"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// hook holds the engine operations the cache needs and no program may
// call (package engine): the tool a caller sees, to read its annotations
// and check it is still visible, and the server's changes, to drop every
// answer when its tools change.
var hook = struct {
	lookupTool func(s *mcp.Server, ctx context.Context, auth any, sid, name string) (mcp.Tool, bool)
	watch      func(s *mcp.Server, fn func(engine.Change[*mcp.LogMessage])) (stop func())
}{
	lookupTool: engine.LookupTool.(func(*mcp.Server, context.Context, any, string, string) (mcp.Tool, bool)),
	watch:      engine.Watch.(func(*mcp.Server, func(engine.Change[*mcp.LogMessage])) func()),
}
