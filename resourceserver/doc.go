// Package resourceserver lets an MCP server accept the access tokens of
// an existing identity provider (Keycloak, Auth0, Okta, Entra ID, Google
// and any other OAuth 2.0 authorization server) without the OAuth proxy
// of package providers: the server is then only an OAuth resource server,
// and MCP clients sign in at the provider directly.
//
//	v, err := resourceserver.New(ctx, resourceserver.Config{
//		Issuer: "https://id.example.com/realms/acme", Resource: "https://mcp.example.com/mcp"})
//	srv := mcp.NewServer(mcp.Options{Name: "acme", Version: "1.0.0", Auth: v})
//
// A [Verifier] checks every request's access token, either as a JWT
// (RFC 9068 style: signature by a key of the issuer's JWKS, iss, aud,
// exp, nbf, iat, required scopes; a typ header of at+jwt, JWT or none,
// and no claim only ID tokens carry) or with the issuer's token introspection
// endpoint (RFC 7662; answers cached, bounded in number and time, never
// past the token's exp; refusals cached for 10 s apart from them; calls
// shared between requests with one token and bounded by one rate limit).
// The JWKS is fetched on first use and again when a token does not
// verify with the keys held, which is how a provider's key rotation is
// followed (a key the provider stopped publishing is refused once the set
// was refetched); every fetch, whatever the token says, draws on one
// budget (two at once, then one per 15 s), so forged tokens cannot make
// the server hammer the provider.
//
// A token bound to a DPoP key (RFC 9449: cnf.jkt in the JWT or in the
// introspection answer) is admitted only as "Authorization: DPoP <token>"
// with a DPoP proof signed by that key for this request (htm, htu, iat,
// ath, a jti never seen before, optionally a nonce of this server): a
// stolen bound token is useless without the key. [DPoPConfig] tunes the
// checks; with several replicas, give them a shared [ReplayCache]
// (package resourceserver/redisreplay).
//
// An unreachable provider is a 503 rather than a 401: the client's token
// may be good, and a 401 would make it throw the token away and start a
// login against a provider that is down. The request is refused either
// way.
//
// It serves the RFC 9728 protected-resource metadata naming the issuer,
// and its refusals say what a client needs:
//
//   - no token: 401 with WWW-Authenticate: Bearer
//     resource_metadata="…", scope="…": the client reads the metadata,
//     finds the authorization server and starts a login;
//   - a bad token (malformed, bad signature, unknown key, expired, not
//     yet valid, another issuer, another audience, inactive, a DPoP-bound
//     token sent as Bearer): 401 with error="invalid_token" and an
//     error_description saying which (never the token or a secret): the
//     client gets a new token;
//   - a bad DPoP proof: 401 with WWW-Authenticate: DPoP
//     error="invalid_dpop_proof", the check that failed and algs="…";
//     without a required nonce, error="use_dpop_nonce" and a DPoP-Nonce
//     header (RFC 9449 §7.1, §9);
//   - a good token without a required scope: 403 with
//     error="insufficient_scope" and scope="…" listing what to ask for
//     (RFC 6750 §3.1);
//   - the provider's keys or introspection endpoint unreachable: 503 with
//     Retry-After; the request is refused, never admitted, and the client
//     keeps its token.
//
// The audience check is RFC 8707's: a token is accepted only when its aud
// names this resource (Config.Audiences, default Config.Resource), so a
// token minted for another API cannot be replayed here. Configure the
// provider to put the resource (or your API identifier) in aud.
//
// Tools get the caller as a [*Session] (subject, scopes, client and every
// claim); it implements access.ScopeChecker, so access.Scopes works as a
// tool's CanAccess for per-tool scopes, and carries the request's token
// for a downstream call as the user (Session.SubjectToken, package
// tokenexchange).
//
// With Config.EnterpriseAuth the server is also the authorization server
// of enterprise-managed authorization (SEP-990) for its resource: a token
// endpoint that takes the identity assertion grants (ID-JAG) of trusted
// enterprise IdPs with the RFC 7523 JWT-bearer grant, and the access
// tokens it issues for them, accepted beside the provider's.
// [AssertionVerifier] makes every check of such an assertion (typ, a
// trusted IdP's signature, iss, aud, resource, client_id, sub, exp, iat,
// lifetime, scopes, single use); the OAuth proxy of package providers
// uses it too.
package resourceserver
