// Package proxy is an MCP gateway: an [mcp.Server] that serves the tools,
// resources, resource templates and prompts of another MCP server (the
// upstream: a stdio command or a URL, written in any language) through
// mcpchain's own chain, so that OAuth, CanAccess policies, rate limits,
// telemetry and request logs stand in front of it unchanged.
//
// [New] connects to the upstream (any [client.Transport]: Command, HTTP,
// LegacySSE, InProcess), lists what it offers (every page) and registers
// a mirror of each item on the gateway's server, with the upstream's
// schemas, annotations and _meta; a list_changed from the upstream lists
// again and updates the mirror, and the gateway's clients hear of it.
//
// Each downstream session has an upstream session of its own, opened at
// its first call and closed when the downstream session ends (or, for a
// call that ran on past that end, when the call is done); requests
// without a session (stateless HTTP, revision 2026-07-28) share one
// upstream connection. The upstream's requests to its client
// (sampling/createMessage, elicitation/create in form and URL mode,
// roots/list) are asked of the downstream client through the downstream
// call in flight on that upstream session; progress, log messages and
// resource updates pass back; a cancelled downstream call cancels the
// upstream call.
//
// Nothing of the downstream caller's identity goes upstream by itself:
// the gateway has no token passthrough (the MCP authorization spec
// forbids it). [Options].Upstream is given the downstream [mcp.Context]
// and decides what the upstream connection carries (its own credentials,
// or headers it derives from the caller).
//
// A JSON-RPC error of the upstream reaches the downstream client with its
// code and data, the message naming the upstream; an upstream that is down
// (or slower than Options.CallTimeout) makes a tools/call an isError result
// naming it, and other requests a -32603 error. A broken upstream
// connection is opened again at the next call, within
// Options.ConnectTimeout.
//
// [ServeStdio] is the bridge: it serves a stdio client (a desktop client
// that speaks only stdio) against a remote MCP server, with one upstream
// session.
package proxy
