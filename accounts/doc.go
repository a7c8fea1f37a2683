// Package accounts is "connect your account": a per-user store of the
// OAuth credentials of other APIs (GitHub, Google, any OAuth 2.0 API), so
// that a tool acts there as the user who called it.
//
// A tool asks for a ready client in one line:
//
//	gh, err := accts.Client(ctx, c, "github")
//	if err != nil {
//		return "", err
//	}
//
// Until the user connected the account, the error is a URL elicitation
// (mcp.URLElicitationRequired) to a page of this server: the client asks
// the user to open it, the page checks that the browser belongs to the
// user the elicitation was made for (Config.SignIn, a providers.Proxy),
// the user chooses to connect, the authorization code flow with PKCE runs
// between the browser and the service, and the tokens are stored sealed
// (AES-256-GCM, bound to the user's storage key) in a
// providers.TokenStorage: memory, or Redis for replicas. The client then
// calls the tool again (2025-11-25), or the server runs it again itself
// (2026-07-28); sessionless servers included. Tokens are refreshed when
// they expire (once across replicas), forgotten when the service refuses
// the refresh, and revocable by the user on a page of the server, through
// an API route (`mcpchain accounts`) or [Accounts.Disconnect].
//
// Users are told apart by package internal/identity's key (their
// mcp.Subject): a caller without one (anonymous, or auth data without a
// subject) cannot connect accounts.
//
// docs/accounts.md shows a whole server; docs/security.md lists the
// threats and the tests that pin them.
package accounts
