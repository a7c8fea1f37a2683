// Package mcphttp serves an mcp.Server over HTTP: the MCP protocol engine
// as an http.Handler, and the ways to run it.
//
// [New] returns the Streamable HTTP endpoint of a server. It speaks
// revisions 2024-11-05, 2025-03-26 (with batches), 2025-06-18, 2025-11-25
// and 2026-07-28 (per request, without sessions) on one endpoint, with
// the same registrations, and chooses per request. It decodes strictly
// (duplicate and case-variant members are refused), answers in JSON or
// SSE, serves the GET stream and DELETE, keeps sessions, pings clients,
// and checks Host and Origin against DNS rebinding. It never reads the URL
// path, so it mounts under any prefix of any mux, behind any middleware,
// and stays safe when mounted bare (authentication included):
//
//	mux.Handle("/mcp", alice.New(middleware.Recover(nil)).Then(mcphttp.New(srv, nil)))
//
// [NewMux] adds what needs routes of its own: the health endpoint, the
// server's custom routes, the OAuth discovery documents and the auth
// provider's endpoints, and with Options.LegacySSE the deprecated HTTP+SSE
// transport of 2024-11-05 for old clients; the Host and Origin check runs
// in front of all of them. It mounts under a prefix with
// http.StripPrefix, and its OAuth discovery documents, which live at the
// host's root, with a second route to the same mux (see [NewMux]):
//
//	m := mcphttp.NewMux(mcphttp.New(srv, nil), nil)
//	mux.Handle("/api/", http.StripPrefix("/api", m))
//	mux.Handle("/.well-known/", m)
//
// [Start] runs a server the way the TypeScript fastmcp's start does: over
// stdio (the default) or Streamable HTTP on 0.0.0.0:8000, with a graceful
// Close. [Run] is the whole main of a server in one call: Start on the
// transport, host and port the environment names (MCP_TRANSPORT,
// MCP_HOST, MCP_PORT), stopped gracefully by SIGINT or SIGTERM, then
// Wait. [Local] is the chain of the local transports, through which a
// client in the same process (package client's InProcess transport, or
// package mcptest in tests) reaches the engine. Every way in ends in
// [Handler.ServeHTTP], so authentication, middleware and limits apply
// alike.
//
// # Options
//
// The zero [Options] serve one replica with in-memory sessions. The
// fields that matter most:
//
//   - Sessions: the session store; a shared one (Redis) lets any replica
//     serve any session, and Relay and Events complete it for
//     server-to-client requests and resumption; Relay also carries
//     every replica's changes to the subscriptions/listen streams of all.
//   - Stateless: no sessions for 2025 clients either; any replica answers
//     any request, and what a session holds (the GET stream, DELETE,
//     resumption, what initialize said) is gone.
//   - Resumable: request streams a client can resume after a broken
//     connection (Last-Event-ID).
//   - Allow, DisableDNSRebindingProtection: the Host and Origin check, on
//     every listener and route. A server reached by a name (behind a
//     proxy that passes the public Host, on a LAN by host name) lists it
//     in Allow.Hosts, or with [Start] in MCP_ALLOWED_HOSTS.
//   - MaxBodyBytes, BodyReadTimeout, MaxConcurrentRequests,
//     MaxSessionRequests, MaxSessions, MaxSessionsPerClient: what one
//     client, or all of them, can make the engine hold.
//   - SessionIdleTimeout: when an idle session ends.
//   - StateKey, StateTTL: the sealing of 2026-07-28 multi round-trip
//     state; replicas must share the key.
//   - LegacySSE: the deprecated HTTP+SSE transport ([NewMux] mounts it).
//
// [SessionHooks] hear of a session's start and end ([EndDeleted],
// [EndIdle], [EndLost], [EndServer]) and of roots changes;
// [Handler.Sessions] lists the live ones.
//
// # Panics
//
// A panicking tool is answered with an isError result; a panic elsewhere
// in the engine with a -32603 error; one in middleware with a 500 (by
// middleware.Recover, first in every chain NewMux, Start and Local
// build); one in a session hook is recovered where the hook was called
// (the engine's goroutines included: idle expiry, pings, the roots fetch,
// the end of a stdio or legacy SSE stream), and what the engine was doing
// goes on. Each is logged with its stack.
//
// # More
//
// [deploy.md] covers reverse proxies, limits, timeouts, shutdown, logging
// and several replicas.
// [architecture.md] is for contributors: the package boundaries, the
// import rule, and the path of a request through the engine, with its
// unexported names.
//
// [deploy.md]: https://github.com/mcpchain/mcp/blob/main/docs/deploy.md
// [architecture.md]: https://github.com/mcpchain/mcp/blob/main/docs/architecture.md
package mcphttp
