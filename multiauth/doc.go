// Package multiauth lets one MCP server accept several kinds of
// credentials at once: the access tokens of its own OAuth proxy (package
// providers), the JWTs of one or more identity providers and opaque
// tokens checked by introspection (package resourceserver), and the API
// keys of services ([APIKeys]), in one ordered, fail-closed composition
// set as mcp.Options.Auth:
//
//	auth, err := multiauth.New(proxy, idp, keys)
//	srv := mcp.NewServer(mcp.Options{Name: "acme", Version: "1.0.0", Auth: auth})
//
// # Which verifier judges a request
//
// Each verifier is an [Owner]: it says, from the form of the request's
// credentials alone and without checking anything, whether they are its
// own. The first verifier in the list that owns them verifies them, and
// its answer is final: a refusal (expired, another audience, a bad
// signature), a missing scope or an outage (503) is the answer to the
// request, never passed on to the next verifier as if the credentials
// were absent. So a token is only ever shown to the one verifier whose
// it is (an API key never reaches an introspection endpoint), a client
// is told what was wrong with its own token, and an outage of one
// provider is a 503 rather than a refusal that sends the client to sign
// in again.
//
// How each verifier decides "mine", exactly:
//
//   - providers.Proxy: a Bearer JWT whose payload's iss (read unverified)
//     is the proxy's issuer, its BaseURL;
//   - resourceserver.Verifier: a Bearer or DPoP JWT whose iss is
//     Config.Issuer; with Config.Introspection also any token that is not
//     a JWT (nothing in an opaque token names its issuer);
//   - [APIKeys]: a Bearer token that starts with the keys' prefix
//     (mcpk_, say), whatever follows.
//
// A request that no verifier owns is refused: with no credentials, a 401
// whose challenge says "authorize first"; with credentials, a 401
// invalid_token. [New] refuses a list it cannot route: a verifier that is
// not an Owner, one that takes every opaque token (token introspection)
// anywhere but last, verifiers that protect different resources, or two
// that each serve an authorization server.
//
// # One challenge for all
//
// The server serves one protected-resource metadata document (RFC 9728)
// for the resource, naming every verifier's authorization server in the
// order of the list, and its 401 challenge points there. An MCP client
// that starts a login uses the first authorization server that it
// supports (the TypeScript SDK and package client/oauth take the first),
// so list first the verifier whose login interactive clients should use
// (the proxy, or the organisation's identity provider); clients that
// already hold a token of another listed issuer just send it. API keys
// have no authorization server: services get them out of band.
package multiauth
