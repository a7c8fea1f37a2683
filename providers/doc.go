// Package providers is the OAuth side of an mcpchain server: an OAuth 2.1
// authorization server facade (a proxy) in front of an upstream identity
// provider, and the four built-in upstreams.
//
// A [Proxy] offers dynamic client registration (RFC 7591) and client ID
// metadata documents, /oauth/authorize
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
// sessions implement access.ScopeChecker, so access.Authenticated and
// access.Scopes work as a tool's CanAccess.
//
// # The consent page
//
// Every authorization passes through {BaseURL}/oauth/consent before the
// browser goes upstream. The page names this server (its BaseURL host,
// below the MCP server's title or name and beside its first icon once
// Proxy.UseServerInfo has been called, as mcphttp.NewMux does), the
// client by the name it registered (escaped, and marked as the client's
// own unverified claim), the host where the user signs in next (upstream's
// authorization endpoint), the redirect URI's host in large type in a box
// of its own with the full URI below it (a note calls out a loopback
// address), and the scopes requested, the well-known ones in words.
// Approve and Deny post a form; Deny sends the browser back to the client
// with error=access_denied, state and iss, and never reaches upstream. The
// page is one HTML document with its style inline and an inline SVG: no
// script, font or image from anywhere but the server's icon, system fonts,
// a viewport meta and a single-column layout below 480 px, light and dark
// colour schemes.
//
// Its response headers: Content-Security-Policy "default-src 'none';
// style-src 'nonce-…'" (fresh per response; no 'unsafe-inline'),
// "form-action 'self' <upstream origin> <redirect URI origin>",
// "frame-ancestors 'none'; base-uri 'none'"; X-Frame-Options DENY;
// Referrer-Policy same-origin; Cache-Control no-store;
// X-Content-Type-Options nosniff. form-action names the two other origins
// because browsers check it on every redirect of the form's navigation, and
// the answer is a 303 to upstream (approve) or to the client (deny); with
// 'self' alone the browser blocks both. Error pages have the same headers
// with form-action 'none'. When the server has an icon, the CSP adds
// "img-src data:" for a data: icon (mcp.NewServer checked it is a base64
// image) or "img-src <icon origin>" for an https one, and no other
// image source.
//
// The form is guarded by a CSRF double submit: a token in the stored
// transaction, in a hidden field and in a cookie (signed and encrypted with
// gorilla/securecookie, HttpOnly, SameSite=Lax, Secure and __Host- on
// https) must all agree; posts whose Sec-Fetch-Site or Origin names
// another site are refused. Approve binds the transaction to the approving
// browser with a second such cookie, which the callback checks, so an
// approved upstream URL is useless in another browser.
//
// Consent can be turned off (Config.DisableConsent, consentRequired:
// false) only when every redirect pattern is loopback http or an exact
// https host. Dynamic registration lets anyone register a client, and
// with "https://*" (in [DefaultRedirectURIPatterns]), "http://*",
// "https://*.tunnel.example" or "cursor://*" its callback can be a host or
// app of the attacker's: the consent page, showing that host, is then the
// only thing between a user who follows a link and a code sent to an
// attacker. [NewProxy] fails with a message naming the pattern; list the
// exact https hosts you trust instead. For the same reason an error found
// at the authorization endpoint before the user has interacted is shown
// on this server's page unless the redirect URI is loopback or matched by
// a pattern with an exact host (RFC 9700 §4.11.2). The
// e2e suite drives the page in headless Chromium and keeps screenshots
// (e2e/consent_test.go).
//
// Registration and the start of an authorization need no login, so they
// are bounded: registrations are JSON with bounded fields, expire unless
// used (Config.UnusedClientTTL, then Config.ClientTTL after each use),
// and are rate-limited per client address with authorization starts
// (Config.RegisterRateLimit, Config.AuthorizeRateLimit,
// Config.ClientAddress; an IPv6 client counts by its /64 and, at four
// times the limit, by its /48). Registrations and authorizations in
// progress each count against a quota of their own in the storage
// ([ClientKeyPrefix], [TransactionKeyPrefix]), so a flood of them never
// takes the room of logins: signed-in users refresh while new sign-ins
// wait.
//
// A code exchange or refresh stores the new refresh token before it
// spends the code or refresh token it was given, so any failure leaves
// that one good and the client's retry is no reuse. A spent refresh
// token leaves a used mark for a few minutes only (refresh tokens carry
// a MAC, so a later replay is still recognised and revokes the login),
// and refreshes are limited per login (Config.RefreshRateLimit): a
// login's records do not grow with its refreshes.
//
// # Client ID metadata documents
//
// A client may skip registration and use the https URL of its client ID
// metadata document as its client_id (MCP 2025-11-25 authorization,
// SEP-991); the authorization-server metadata says
// client_id_metadata_document_supported. The proxy fetches the document
// when it first meets the URL (at /oauth/authorize, or at /oauth/token
// once the cache dropped it), checks it like a registration (client_id
// equal to the URL, redirect URIs within the patterns and matched
// exactly, token_endpoint_auth_method none: private_key_jwt and secrets
// are refused, bounded name and lists), keeps it in memory for its
// Cache-Control max-age clamped to Config.ClientMetadataDocuments'
// bounds, and never stores it as a registration. The consent page shows
// the document's client_name, marked unverified, and the host of the
// client_id. The fetch is guarded against server-side request forgery
// (see [ClientMetadataDocuments]): https only, internal addresses refused
// in the dialer after resolution, no redirects, 5 KiB, 5 s, JSON only,
// rate-limited per address with registrations.
//
// A login lasts at most Config.MaxLoginLifetime; it ends at once when the
// upstream provider refuses its refresh token, and before each refresh of
// ours the upstream token is refreshed (or, for providers whose tokens
// never expire, the user API asked again: [UserChecker]).
//
// With Config.EnterpriseAuth the token endpoint also takes identity
// assertion grants of trusted enterprise IdPs (ID-JAG, enterprise-managed
// authorization, SEP-990) with the RFC 7523 JWT-bearer grant, from
// confidential clients registered beforehand: no browser and no consent
// page, the IdP's policy is the consent. The assertion's checks are
// resourceserver.AssertionVerifier's; its replay is refused through the
// token storage, on every replica. See [EnterpriseAuth].
//
// State lives in a [TokenStorage]: [MemoryStorage] by default, or the
// Redis storage of package providers/redisstorage so several instances
// share logins (they then need the same JWTSigningKey and EncryptionKey).
// Codes, refresh tokens, client
// registrations, transactions and grants are sealed (AES-256-GCM, bound
// to their key): whoever can write the storage cannot mint a scope or a
// client, and a dump holds no upstream PKCE verifier or nonce.
package providers
