// Package middleware holds the http.Handler middleware of an MCP server,
// one idea per file, each a func(http.Handler) http.Handler that composes
// with github.com/justinas/alice and works alone. The same chain serves
// Streamable HTTP, stdio and embedded sessions, so a middleware written
// once sees every transport.
//
// The middleware, in the order a chain usually lists them (outermost
// first; alice.New(m1, m2).Then(h) is m1(m2(h))):
//
//   - [Recover]: a panic becomes a 500 with a JSON-RPC -32603 body, logged.
//   - [RequestLog]: one slog line per request.
//   - [CORS]: browser cross-origin access, preflights answered here,
//     before authentication (preflights carry no credentials).
//   - [CheckCredentials] (or [FixedAuth] for a fixed local caller): the
//     caller's auth data in the context, 401 otherwise.
//   - [CheckOrigin]: DNS-rebinding protection (Host and Origin, on every
//     listener) with an [AllowList], the same list [CORS] reads.
//   - [SessionID]: the Mcp-Session-Id header, checked, in the context.
//   - [RestrictAccess]: an access policy over tools, resources and prompts,
//     which needs the auth data.
//   - Telemetry (package middleware/telemetry): OpenTelemetry spans and
//     metrics per JSON-RPC request, after the MCP conventions.
//   - Rate limits (package middleware/ratelimit): token buckets per
//     caller, 429 / JSON-RPC -32029 with retryAfter when empty. Both act
//     on the decoded requests through an mcp.Interceptor, so they see each
//     request of a batch and every transport; each is a package of its own
//     so that a server links OpenTelemetry or the limiter only when it
//     imports them.
//   - The response cache (package middleware/cache, with its Redis store in
//     middleware/cache/rediscache): a repeated call of a read-only tool
//     answered from a cache, per caller.
//   - Result size limits (package middleware/sizelimit): a tool result
//     over its limit, in bytes or approximate tokens, cut down with a
//     notice the model reads, or refused.
//   - [Ping.Middleware] (from [NewPing]): pings the clients of open GET
//     streams and ends the sessions of those that stop answering.
//   - [Timeout]: a deadline on POST requests, innermost so that it bounds
//     the work and not the middleware.
//
// The MCP engine (mcphttp.New) runs CheckOrigin, SessionID and a Ping of
// its own itself, however it is mounted: list them in a chain only to
// guard other handlers, or (Ping) with mcphttp.Options.Ping.Disabled to ping
// with options of your own.
//
// None of them buffers a response: every ResponseWriter wrapper here
// implements Unwrap and http.Flusher, so SSE streams flush through the
// chain. Error bodies written by a middleware are JSON-RPC errors with a
// null id (or, for 401, an OAuth error object), as the MCP transport
// expects.
package middleware
