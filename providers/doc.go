// Package providers will hold the OAuth proxy (client registration,
// authorize, consent, callback, token swap, revocation), its TokenStorage,
// and the four built-in providers (consumer identity, code host,
// enterprise directory, any OAuth 2.0 server). Until then a server
// authenticates callers with mcp.Options.Authenticate, and serves its
// discovery documents with mcp.Options.OAuth (package discovery).
package providers
