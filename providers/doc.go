// Package providers is the OAuth side of an mcpchain server: an OAuth 2.1
// authorization server facade (a proxy) in front of an upstream identity
// provider, and the four built-in upstreams.
//
// A [Proxy] offers dynamic client registration (RFC 7591), /oauth/authorize
// with PKCE S256 required and exact redirect URI matching, a consent page
// (CSRF double-submit, no framing, the redirect host shown plainly), the
// upstream callback at {BaseURL}/oauth/callback, /oauth/token (authorization
// code and rotating refresh tokens with reuse detection) and /oauth/revoke
// (RFC 7009). Clients get the proxy's own short-lived JWT access tokens for
// the MCP resource, never the upstream tokens, which stay in the
// [TokenStorage], encrypted. Authorization responses carry iss (RFC 9207).
//
// The providers ([NewOAuthProvider], [NewConsumerIdentityProvider],
// [NewCodeHostProvider], [NewEnterpriseDirectoryProvider]) are proxies:
// set one as mcp.Options.Auth and the server mounts the endpoints and the
// discovery documents, verifies the bearer token of every request, and
// hands tools the provider's session ([OAuthSession] and friends). The
// sessions implement mcp.ScopeChecker, so mcp.RequireAuth and
// mcp.RequireScopes work as a tool's CanAccess.
//
// State lives in a [TokenStorage]: [MemoryStorage] by default, or
// [RedisStorage] so several instances share logins (they then need the same
// JWTSigningKey and EncryptionKey).
package providers
