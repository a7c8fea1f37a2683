// Package mcphttp is the MCP protocol engine as an http.Handler, and the
// ways to run it.
//
// [New] returns the Streamable HTTP endpoint of an mcp.Server: JSON-RPC
// decoding (strict: duplicate and case-variant members are refused),
// method dispatch, capability and version negotiation (2024-11-05,
// 2025-03-26 with batches, 2025-06-18, 2025-11-25), JSON or SSE responses,
// the GET stream, DELETE, sessions, DNS-rebinding protection and a body
// limit. It never reads the URL path, so it mounts under any prefix of any
// mux, behind any middleware:
//
//	mux.Handle("/mcp", alice.New(middleware.Recover(nil)).Then(mcphttp.New(srv, nil)))
//
// [Start] runs a server the way the TypeScript fastmcp's start does: over
// stdio (the default) or Streamable HTTP on 0.0.0.0:8000 (endpoint /mcp,
// health endpoint, custom routes, pings, graceful Close). [NewMux]
// assembles the HTTP side alone. [Embed] opens an in-process session
// through the same chain, for tests and agents.
package mcphttp
