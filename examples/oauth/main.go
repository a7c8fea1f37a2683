// Command oauth serves the everything example's tools (see
// examples/everything/tools) over Streamable HTTP behind an OAuth
// provider: MCP clients register with the server, sign the user in at the
// upstream identity provider, and get the server's own tokens. The tool
// whoami returns the provider session of the caller.
//
//	OAUTH_PROVIDER=codehost OAUTH_CLIENT_ID=… OAUTH_CLIENT_SECRET=… \
//	MCP_BASE_URL=http://localhost:8000 oauth -host 127.0.0.1 -port 8000
//
// Everything else comes from the environment (see docs/auth.md,
// "OAuth"):
//
//	OAUTH_PROVIDER          generic | consumer | codehost | enterprise (required)
//	OAUTH_CLIENT_ID         the client id the upstream provider issued (required)
//	OAUTH_CLIENT_SECRET     its secret (required)
//	MCP_BASE_URL            where clients reach this server, e.g. https://mcp.example.com (required);
//	                        register {MCP_BASE_URL}/oauth/callback at the provider
//	OAUTH_UPSTREAM_URL      base URL of the provider (consumer, codehost, enterprise), to use
//	                        another host than the public one (a local identity provider in tests)
//	OAUTH_ISSUER            consumer, generic: the issuer of the provider's ID tokens (generic:
//	                        turns on OpenID Connect, ID tokens are verified)
//	OAUTH_JWKS_URL          consumer, generic: where the ID token keys are
//	OAUTH_API_URL           codehost: base URL of the user API (default https://api.github.com)
//	OAUTH_TENANT_ID         enterprise: tenant GUID or domain, or common (default),
//	                        organizations, consumers
//	OAUTH_ALLOWED_TENANTS   enterprise: comma-separated tenant ids admitted by a multi-tenant login
//	OAUTH_AUTHORIZATION_ENDPOINT, OAUTH_TOKEN_ENDPOINT   generic: the upstream endpoints (required)
//	OAUTH_TOKEN_ENDPOINT_AUTH_METHOD  generic: client_secret_basic (default) or client_secret_post
//	OAUTH_USERINFO_ENDPOINT generic without OAUTH_ISSUER: who the user is
//	OAUTH_SCOPES            space-separated scopes (default: the provider's)
//	OAUTH_REDIRECT_URI_PATTERNS  comma-separated redirect URIs clients may register
//	                        (default http://localhost:*, https://*)
//	OAUTH_JWT_SIGNING_KEY   at least 32 bytes: signs access tokens and consent cookies
//	OAUTH_JWT_PREVIOUS_SIGNING_KEYS  comma-separated keys that still verify the tokens they
//	                        signed (key rotation)
//	OAUTH_ENCRYPTION_KEY    at least 32 bytes: encrypts stored upstream tokens
//	REDIS_URL               redis://host:6379/0: share logins between replicas (then both keys
//	                        above are required, the same on every replica); a Redis Cluster as
//	                        redis://host1:6379?addr=host2:6379 or host1:6379,host2:6379,…
//	OAUTH_REGISTER_RATE_LIMIT, OAUTH_AUTHORIZE_RATE_LIMIT  per client address: N a minute,
//	                        N,BURST, or off (defaults 10,20 and 30,30)
//	OAUTH_CLIENT_ADDRESS_HEADER  behind a reverse proxy on this host: the header it puts the
//	                        client's address in (X-Forwarded-For), read from loopback peers only
//	OAUTH_INSECURE_HTTP     1: accept an http MCP_BASE_URL on a host other than loopback
//	                        (development only; cookies then lose Secure)
//	OAUTH_CIMD              client ID metadata documents: on (default), off, or
//	                        allow-private-addresses (tests and development only: documents may
//	                        then be fetched from loopback and private addresses; the TLS roots
//	                        are the system's, SSL_CERT_FILE adds a test CA)
//
// With -dev-idp it needs no environment: it starts a local OpenID Connect
// provider (package devidp, in devidp.go) that signs a fixed user in at once, uses it as the
// generic provider, listens on 127.0.0.1 and prints the settings:
//
//	go run ./examples/oauth -dev-idp -port 8000
//
// A missing or bad setting stops the server at once with a message naming
// it (exit status 2). SIGINT or SIGTERM stops it gracefully (calls in
// flight finish; exit status 0, or 1 when the 10 s grace period ended
// first); a second signal ends it at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lmittmann/tint"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/examples/everything/tools"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/providers/redisstorage"
)

func main() {
	host := flag.String("host", "0.0.0.0", "host to listen on")
	port := flag.Int("port", 8000, "port to listen on")
	dev := flag.Bool("dev-idp", false, "try it on this machine: start a local OpenID Connect provider that signs a fixed "+
		"user in at once, use it as the upstream, listen on 127.0.0.1, and print the settings")
	flag.Parse()

	// The first SIGINT or SIGTERM ends ctx and Start shuts down gracefully;
	// the signals are then released, so a second one ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)

	log := slog.New(tint.NewTextHandler(os.Stderr, &tint.Options{TimeFormat: time.TimeOnly, NoColor: true}))
	getenv := os.Getenv
	if *dev {
		hostSet := false
		flag.Visit(func(f *flag.Flag) { hostSet = hostSet || f.Name == "host" })
		idp, env, err := devSetup(hostSet, host, *port, os.Getenv, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oauth:", err)
			os.Exit(2)
		}
		defer idp.Close()
		idp.printSettings(os.Stderr, env("MCP_BASE_URL"))
		getenv = env
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oauth:", err)
		os.Exit(2)
	}
	if err := run(ctx, cfg, *host, *port, log); err != nil {
		fmt.Fprintln(os.Stderr, "oauth:", err)
		if errors.Is(err, errConfig) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, cfg *config, host string, port int, log *slog.Logger) error {
	var storage providers.TokenStorage
	if cfg.RedisURL != "" {
		rs, err := redisstorage.Open(ctx, cfg.RedisURL)
		if err != nil {
			return err
		}
		defer rs.Close()
		storage = rs
	}
	proxy, err := cfg.newProvider(storage, log)
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	defer proxy.Close()

	srv := newServer(cfg.Provider, proxy, log)
	// A reverse proxy on this machine may forward the public host name:
	// the Host and Origin checks accept the one of MCP_BASE_URL.
	base, _ := url.Parse(cfg.BaseURL)
	allow := &middleware.AllowList{Hosts: []string{base.Host}, Origins: []string{base.Scheme + "://" + base.Host}}
	inst, err := mcphttp.Start(ctx, srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: host, Port: port,
		Handler: &mcphttp.Options{Allow: allow},
	})
	if err != nil {
		return err
	}
	log.Info("OAuth ready", "provider", cfg.Provider, "issuer", proxy.Issuer(), "resource", proxy.Resource(),
		"callback", proxy.Issuer()+providers.CallbackPath, "storage", storageName(cfg))
	return inst.Wait()
}

func storageName(cfg *config) string {
	if cfg.RedisURL != "" {
		return "redis"
	}
	return "memory"
}

// newServer is the everything example's tools behind auth, with a whoami
// that shows the provider session.
func newServer(provider string, auth mcp.AuthProvider, log *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{
		Name:         "oauth",
		Version:      "1.0.0",
		Instructions: "The everything example's tools behind an OAuth login; whoami shows who you are.",
		Auth:         auth,
		Logger:       log,
	})
	tools.Register(srv, &tools.Options{
		Whoami:            whoami(provider),
		WhoamiDescription: "Return the caller's OAuth session: user, scopes, claims and the provider's own field (never a token)",
	})
	return srv
}

// whoami returns the caller's provider session. The session's JSON form
// leaves the upstream tokens out; upstreamTokens says which ones the
// server holds.
func whoami(provider string) mcp.ToolFunc[struct{}, any] {
	return func(ctx context.Context, c *mcp.Context, _ struct{}) (any, error) {
		s, ok := providers.SessionOf(c.Session)
		if !ok {
			return nil, &mcp.UserError{Message: "not signed in with OAuth"}
		}
		return map[string]any{
			"provider":  provider,
			"session":   c.Session,
			"sessionId": c.SessionID,
			"upstreamTokens": map[string]bool{
				"accessToken": s.AccessToken != "", "refreshToken": s.RefreshToken != "", "idToken": s.IDToken != "",
			},
		}, nil
	}
}

// devSetup starts the dev identity provider for -dev-idp and returns the
// environment that uses it (on top of getenv, whose provider settings it
// replaces). The server listens on 127.0.0.1 unless -host names another
// loopback address: anyone who reaches the provider is signed in.
func devSetup(hostSet bool, host *string, port int, getenv func(string) string, log *slog.Logger) (*devIdP, func(string) string, error) {
	if !hostSet {
		*host = "127.0.0.1"
	} else if !loopback(*host) {
		return nil, nil, fmt.Errorf("%w: -dev-idp signs anyone in: -host must be a loopback address, not %q", errConfig, *host)
	}
	base := strings.TrimSuffix(getenv("MCP_BASE_URL"), "/")
	if base == "" {
		base = fmt.Sprintf("http://localhost:%d", port)
	}
	idp, err := startDevIdP(base+providers.CallbackPath, log)
	if err != nil {
		return nil, nil, err
	}
	over := idp.env()
	over["MCP_BASE_URL"] = base
	return idp, func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		if k == "OAUTH_UPSTREAM_URL" || k == "OAUTH_JWKS_URL" || k == "OAUTH_USERINFO_ENDPOINT" || k == "OAUTH_TOKEN_ENDPOINT_AUTH_METHOD" {
			return "" // settings of another upstream
		}
		return getenv(k)
	}, nil
}
