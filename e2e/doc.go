// Package e2e holds black-box end-to-end tests for mcpchain. They drive the
// example server in ../examples/everything with clients nobody here wrote,
// so they test what a real client sees on the wire, not our own idea of it.
//
// This is a separate Go module (a replace directive points
// github.com/mcpchain/mcp at ../) so that test-only dependencies such as
// the official Go SDK stay out of the main module.
//
// # What is tested
//
// TestMain builds examples/everything once with the race detector, so a data
// race in the server fails the run. Each test then starts fresh server
// processes and connects the official Go SDK client
// (github.com/modelcontextprotocol/go-sdk/mcp) over both transports: stdio
// (mcp.CommandTransport) and Streamable HTTP (mcp.StreamableClientTransport
// against -transport httpStream on a free loopback port). The main suite pins
// protocol version 2025-11-25; TestLatestProtocol uses the SDK's default.
// TestDualClients runs the Go SDK client at its newest revision,
// 2026-07-28, and the TypeScript SDK client (node/client.mjs, 2025-11-25)
// against one HTTP server process at the same time, then each over stdio;
// both call every tool, the eliciting and the progress-reporting ones
// included.
//
//   - initialize: server info, semver version, capabilities;
//   - tools: listing and input schemas, results, floating-point output,
//     argument validation as isError results naming the argument and the
//     constraint, tool errors and recovered panics, unknown tool (-32602);
//   - progress notifications (checked in wire order, before the result),
//     logging notifications and the logging/setLevel filter;
//   - per-tool timeouts and client cancellation (notifications/cancelled);
//   - resources, resource templates, unknown resource (-32602 with the URI);
//   - prompts, unknown prompt (-32602), completion/complete;
//   - HTTP sessions: Mcp-Session-Id issued, and 404 after the client's DELETE.
//
// # OAuth
//
// The OAuth tests run examples/oauth (built once, with the race detector)
// in front of a real identity provider library on 127.0.0.1,
// github.com/oauth2-proxy/mockoidc, behind a front with each provider's
// own URL layout and, for the code host, a fake of its user API
// (oauth_idp_test.go). The official TypeScript SDK's OAuth client
// (node/oauth-client.mjs) logs in with no human, once per provider:
// discovery, dynamic registration, PKCE, the consent page approved like a
// browser, token, whoami, refresh, and the reuse of a spent refresh token.
// TestOAuthIDTokenNonce checks the ID token's nonce; TestOAuthRedis runs
// two instances on one redis-server; TestConformanceAuthorization runs the
// official conformance suite's authorization-server scenarios (make
// conformance runs it; make e2e skips it).
//
// TestOAuthCIMDTypeScriptClient logs the TypeScript SDK client in with a
// client ID metadata document (SEP-991) served over TLS by the test
// instead of a registration.
//
// TestResourceServerTypeScriptClient runs examples/resourceserver with
// mockoidc as its external issuer: the TypeScript SDK client (node/rs-client.mjs)
// finds mockoidc through the protected-resource metadata, signs in there
// with a pre-registered client, and calls tools with mockoidc's own token.
//
// The enterprise-identity tests (enterprise_idp_test.go) and
// TestMultiAuthThreeCredentials run a real OpenID Provider library,
// github.com/zitadel/oidc/v3 (zitadel_idp_test.go): the authorization code
// flow, token exchange, the client credentials grant with a service
// account's groups, and ID-JAGs.
//
// goleak checks that the test process leaks no goroutines.
//
// # Running
//
//	cd e2e && go test -race ./...
//
// E2E_EVERYTHING_BIN=/path/to/binary skips the build and tests that binary.
// make e2e runs the tests that are not parallel (the Makefile's E2E_ALONE,
// kept equal to them by TestAloneListed) in a process of their own beside
// the others: alone they kept one core of two busy for two minutes.
// Use -run to pick a test and transport, e.g. -run 'TestProgressAndLogging/http'.
package e2e
