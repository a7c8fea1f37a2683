// Command resourceserver serves the everything example's tools (see
// examples/everything/tools) over Streamable HTTP to callers holding an
// access token of an existing identity provider (Keycloak, Auth0, Okta,
// Entra ID, Google…): the server is an OAuth resource server, with no
// OAuth proxy. MCP clients find the provider in the protected-resource
// metadata, sign in there, and send its token. The tool whoami returns
// the token's subject, scopes and claims.
//
//	resourceserver -issuer https://id.example.com/realms/acme \
//	    -resource https://mcp.example.com/mcp -scopes mcp:tools
//
// Flags (each also read from the environment variable in brackets):
//
//	-issuer       the provider's issuer identifier, exactly as in its tokens' iss [RS_ISSUER] (required)
//	-resource     this server's MCP URL, the token audience by default [RS_RESOURCE]
//	              (default http://localhost:PORT/mcp)
//	-audience     comma-separated aud values accepted instead of -resource [RS_AUDIENCE]
//	-scopes       comma-separated scopes every token must carry [RS_SCOPES]
//	-jwks-url     where the provider's keys are (default: from its metadata) [RS_JWKS_URL]
//	-introspection-url, -introspection-client-id, -introspection-client-secret
//	              verify tokens with RFC 7662 introspection instead of as JWTs
//	              [RS_INTROSPECTION_URL, RS_INTROSPECTION_CLIENT_ID, RS_INTROSPECTION_CLIENT_SECRET]
//	-host, -port  where to listen (default 0.0.0.0:8000)
//
// With -dev-idp it needs no provider: it starts a local OpenID Connect
// provider (package devidp, auto-approving) that signs a fixed user in at once,
// issues JWT access tokens for this server and lets MCP clients register,
// listens on 127.0.0.1 and prints the settings and a ready access token:
//
//	go run ./examples/resourceserver -dev-idp -port 8000
//
// A missing or bad setting stops the server at once (exit status 2).
// SIGINT or SIGTERM stops it gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lmittmann/tint"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/devidp"
	"github.com/mcpchain/mcp/examples/everything/tools"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/resourceserver"
)

// errConfig marks a bad setting (exit status 2).
var errConfig = errors.New("configuration")

// settings are the command line, after the environment filled it in.
type settings struct {
	issuer, resource, audience, scopes, jwksURL string
	introURL, introID, introSecret              string
	host                                        string
	port                                        int
	dev                                         bool
}

// parse reads the flags of args, each defaulting to its environment
// variable.
func parse(args []string, getenv func(string) string) (*settings, error) {
	s := &settings{}
	fs := flag.NewFlagSet("resourceserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&s.issuer, "issuer", getenv("RS_ISSUER"), "issuer identifier of the identity provider")
	fs.StringVar(&s.resource, "resource", getenv("RS_RESOURCE"), "this server's MCP URL")
	fs.StringVar(&s.audience, "audience", getenv("RS_AUDIENCE"), "comma-separated accepted aud values")
	fs.StringVar(&s.scopes, "scopes", getenv("RS_SCOPES"), "comma-separated required scopes")
	fs.StringVar(&s.jwksURL, "jwks-url", getenv("RS_JWKS_URL"), "JWKS URL")
	fs.StringVar(&s.introURL, "introspection-url", getenv("RS_INTROSPECTION_URL"), "RFC 7662 endpoint")
	fs.StringVar(&s.introID, "introspection-client-id", getenv("RS_INTROSPECTION_CLIENT_ID"), "introspection client id")
	fs.StringVar(&s.introSecret, "introspection-client-secret", getenv("RS_INTROSPECTION_CLIENT_SECRET"), "introspection secret")
	fs.StringVar(&s.host, "host", "0.0.0.0", "host to listen on")
	fs.IntVar(&s.port, "port", 8000, "port to listen on")
	fs.BoolVar(&s.dev, "dev-idp", false, "start a local identity provider that signs a fixed user in (127.0.0.1 only)")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %w", errConfig, err)
	}
	hostSet := false
	fs.Visit(func(f *flag.Flag) { hostSet = hostSet || f.Name == "host" })
	if s.dev {
		if !hostSet {
			s.host = "127.0.0.1"
		} else if ip := net.ParseIP(s.host); s.host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("%w: -dev-idp signs anyone in: -host must be a loopback address, not %q", errConfig, s.host)
		}
	}
	if s.resource == "" {
		s.resource = fmt.Sprintf("http://localhost:%d/mcp", s.port)
	}
	return s, nil
}

// config turns the settings into a verifier configuration.
func (s *settings) config() resourceserver.Config {
	cfg := resourceserver.Config{Issuer: s.issuer, Resource: s.resource, JWKSURL: s.jwksURL,
		Audiences: split(s.audience), RequiredScopes: split(s.scopes), ResourceName: "mcpchain resource-server example"}
	if s.introURL != "" {
		cfg.Introspection = &resourceserver.IntrospectionConfig{Endpoint: s.introURL, ClientID: s.introID, ClientSecret: s.introSecret}
	}
	return cfg
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	log := slog.New(tint.NewTextHandler(os.Stderr, &tint.Options{TimeFormat: time.TimeOnly, NoColor: true}))
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, log); err != nil {
		fmt.Fprintln(os.Stderr, "resourceserver:", err)
		if errors.Is(err, errConfig) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer, log *slog.Logger) error {
	s, err := parse(args, getenv)
	if err != nil {
		return err
	}
	if s.dev {
		idp, err := devidp.Start(devidp.Config{Audience: s.resource, Scopes: []string{"openid", "profile", "email", "mcp:tools"},
			AutoApprove: true, Logger: log})
		if err != nil {
			return err
		}
		defer idp.Close()
		s.issuer = idp.Issuer()
		if s.scopes == "" {
			s.scopes = "mcp:tools"
		}
		tok, err := idp.AccessToken("openid mcp:tools", time.Hour)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "resourceserver: -dev-idp: a local OpenID Connect provider runs at %s; it signs in %s at once (never expose it).\n",
			idp.Issuer(), devidp.DefaultUser().Email)
		fmt.Fprintf(out, "  RS_ISSUER=%s RS_RESOURCE=%s RS_SCOPES=%s\n", s.issuer, s.resource, s.scopes)
		fmt.Fprintf(out, "resourceserver: an access token for an hour (curl -H 'Authorization: Bearer …'):\n  %s\n", tok)
	}
	v, err := resourceserver.New(ctx, s.config())
	if err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	srv := newServer(v, log)
	// The Host and Origin checks also accept the host of the resource URL,
	// which a reverse proxy may forward.
	res, _ := url.Parse(s.resource)
	allow := &middleware.AllowList{Hosts: []string{res.Host}, Origins: []string{res.Scheme + "://" + res.Host}}
	inst, err := mcphttp.Start(ctx, srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: s.host, Port: s.port,
		Handler: &mcphttp.Options{Allow: allow},
	})
	if err != nil {
		return err
	}
	log.Info("resource server ready", "issuer", s.issuer, "resource", s.resource, "scopes", s.scopes,
		"verifier", map[bool]string{true: "introspection", false: "jwt"}[s.introURL != ""])
	return inst.Wait()
}

// newServer is the everything example's tools behind the verifier, with
// a whoami that shows the token's session.
func newServer(auth mcp.AuthProvider, log *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{
		Name:         "resourceserver",
		Version:      "1.0.0",
		Instructions: "The everything example's tools for holders of an identity provider's access token; whoami shows who you are.",
		Auth:         auth,
		Logger:       log,
	})
	tools.Register(srv, &tools.Options{
		Whoami:            whoami,
		WhoamiDescription: "Return the caller's token: subject, issuer, client, scopes and claims",
	})
	return srv
}

func whoami(_ context.Context, c *mcp.Context, _ struct{}) (any, error) {
	s, ok := c.Session.(*resourceserver.Session)
	if !ok {
		return nil, &mcp.UserError{Message: "no access token"}
	}
	return map[string]any{"subject": s.Sub, "issuer": s.Issuer, "clientId": s.ClientID, "scopes": s.Scopes,
		"audience": s.Audience, "claims": s.Claims}, nil
}
