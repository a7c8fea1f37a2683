package mcphttp

// The server side of MCP Apps (io.modelcontextprotocol/ui, SEP-1865;
// mcp.Server.AddAppResource): a server with an app's view declares the
// extension in initialize (2025 revisions) and server/discover
// (2026-07-28), and to a client that did not declare it (in initialize's
// capabilities, or a 2026-07-28 request's _meta clientCapabilities) lists
// neither the tools only an app may call nor the views, and answers a
// tools/call of such a tool as of an unknown one (before it could become
// a task). A stateless handler's 2025 requests carry no capabilities, so
// they get everything. Package mcp hides them (its entries carry the
// mark), told by the request's Context for a call (requestInfo's
// CapabilitiesUnknown and the client's capabilities) and by
// engine.Caller's NoApps for a list or a lookup (call.caller).

// capsUnknown reports whether the engine does not know what the client
// declared: a stateless handler's 2025 request has a throw-away session
// that never saw initialize.
func (k *call) capsUnknown() bool { return k.c.ephemeral && !k.c.rev20260728 }
