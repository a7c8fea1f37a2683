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
// Every upstream connection belongs to one downstream caller, by the
// identity rule mcpchain compares callers with, and is opened (and opened
// again after it broke) only with that caller's request. Each downstream
// session has an upstream session of its own, opened at its first call
// and closed when the downstream session ends (or, for a call that ran on
// past that end, when the call is done). Requests without a session
// (stateless HTTP, revision 2026-07-28) use: for an anonymous caller, the
// gateway's own connection (the one that lists), opened only with
// Options.Upstream(nil); for a caller with a subject (mcp.Subject), a
// pooled connection of its own (Options.MaxCallers, least recently used
// evicted, Options.CallerIdleTimeout); for an opaque caller, a connection
// for that request alone.
//
// The upstream's requests to its client (sampling/createMessage,
// elicitation/create in form and URL mode, roots/list) are asked of the
// downstream client through the downstream call in flight on that
// upstream connection, and only while that call is the one they can
// belong to; a URL-mode elicitation is relayed only with a URL a user may
// be asked to open (https, or http to a loopback host). Progress, log
// messages and the gateway's own resource updates pass back; a cancelled
// downstream call cancels the upstream call.
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
//
// [NewConfigGateway] starts a gateway to every server of an mcp.json
// (package client/mcpjson) and mounts each under the server's name in one
// server: tool "search" of server "docs" is "docs_search".
package proxy
