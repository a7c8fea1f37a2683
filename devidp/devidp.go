// Package devidp is an OpenID Connect provider for development and tests
// only: run it next to your MCP server on one machine, point the server's
// OAuth proxy (package providers) or resource server (package
// resourceserver) at its issuer, and sign in without an account anywhere.
//
// It is a real provider: discovery (/.well-known/openid-configuration),
// a JWKS, RS256 ID tokens that an OpenID Connect library verifies (nonce
// included), the authorization code grant with PKCE S256 required,
// refresh tokens, userinfo; with Config.Audience, JWT access tokens and
// dynamic client registration (RFC 7591) of public clients. It knows one
// confidential client (Config.ClientID, Config.ClientSecret) and a fixed
// list of users, who sign in with no password.
//
// # Development only
//
// Anyone who reaches the provider can sign in as any of its users. [Start]
// therefore listens on 127.0.0.1 and refuses an address that is not
// loopback, and [New] refuses an issuer whose host is not loopback, unless
// Config.AllowNonLoopback says otherwise (a test network of containers,
// say); the provider logs a warning when it starts. Never run it where
// others can reach it, and never give it real users.
//
// # The consent page and AutoApprove
//
// By default /authorize shows a page where the person at the browser picks
// one of the users and approves (or denies) the sign-in. With
// Config.AutoApprove the page is skipped for a browser on the same
// machine: /authorize signs the first user in at once and redirects back
// with the code, so a test drives the whole authorization code flow with an
// http.Client that follows redirects, and nothing scrapes a form. A request
// from any other address still gets the page, whatever AutoApprove says, and
// so does one a script of a web page made (one with an Origin header or a
// Sec-Fetch-Mode other than navigate), which could otherwise read where the
// redirect led, code included.
// (The OAuth proxy of package providers has a consent page of its own,
// turned off by providers.Config.DisableConsent.)
//
// The mcpchain command runs it on its own: mcpchain dev-idp.
package devidp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpchain/mcp/internal/hostcheck"
)

// User is one of the provider's users: the claims of its ID tokens,
// access tokens and userinfo answers.
type User struct {
	// Subject is the sub claim. Required (unique among the users).
	Subject string
	// Email is the email claim (email_verified is true). Optional.
	Email string
	// Name is the name claim. Optional.
	Name string
}

// DefaultUser is the one user of a provider whose Config.Users is empty.
func DefaultUser() User {
	return User{Subject: "dev-user-1", Email: "dev@example.com", Name: "Dev User"}
}

// Config configures a provider. The zero value is a provider for [Start]
// on a free port of 127.0.0.1, with one user ([DefaultUser]), the consent
// page, the confidential client "dev-client" with a secret generated for
// the run that may use any loopback http redirect URI, and opaque access
// tokens.
type Config struct {
	// Addr is where [Start] listens, host:port. Default 127.0.0.1:0 (a
	// free port). A host that is not loopback is refused unless
	// AllowNonLoopback. [New] ignores it.
	Addr string
	// Issuer is the URL at which the handler [New] returns is served,
	// http(s)://host[:port][/path], without a trailing slash: its
	// endpoints are the issuer's URL plus /authorize, /token and so on.
	// Required by New, whose host must be loopback unless
	// AllowNonLoopback. [Start] sets it from the address it listens on.
	Issuer string
	// AllowNonLoopback lets the provider listen on, or be served at, an
	// address that is not loopback. Everyone who reaches it can sign in
	// as its users: set it for a closed test network only.
	AllowNonLoopback bool
	// Users are the users who can sign in; the first is the one
	// AutoApprove signs in. Default: [DefaultUser].
	Users []User
	// AutoApprove skips the consent page for requests from a loopback
	// address: /authorize signs Users[0] in at once. Requests from other
	// addresses, and the fetches of a web page's script, still get the
	// page.
	AutoApprove bool
	// ClientID is the confidential client's id. Default "dev-client".
	ClientID string
	// ClientSecret is its secret. Default: random, fresh for each
	// provider ([Provider.ClientSecret]).
	ClientSecret string
	// RedirectURIs are the redirect URIs the confidential client may use,
	// matched exactly. Empty: any http URI on localhost, 127.0.0.1 or
	// [::1] (RFC 8252 §7.3), which covers {MCP_BASE_URL}/oauth/callback
	// of a server on the same machine.
	RedirectURIs []string
	// Audience, when set, makes access tokens RS256 JWTs (typ at+jwt)
	// with this aud, the granted scope and client_id, verifiable with the
	// provider's JWKS (what package resourceserver accepts); and it opens
	// dynamic registration of public clients with loopback redirect URIs,
	// as MCP clients do. Empty: access tokens are opaque, for the
	// userinfo endpoint only.
	Audience string
	// Scopes are the scopes supported, and granted when a request names
	// none. Default: openid profile email.
	Scopes []string
	// Logger receives the start-up warning and refused requests. Default:
	// slog.Default().
	Logger *slog.Logger
}

// Provider is a dev identity provider: an http.Handler serving its
// endpoints under the issuer's path, and, from [Start], the server that
// listens for it.
type Provider struct {
	cfg      Config
	prefix   string // the issuer's path
	host     string // the issuer's host[:port]
	key      *rsa.PrivateKey
	signer   jose.Signer
	atSigner jose.Signer
	kid      string
	mux      *http.ServeMux
	log      *slog.Logger
	srv      *http.Server

	mu      sync.Mutex
	codes   map[string]grant    // authorization codes
	rts     map[string]grant    // refresh tokens
	tokens  map[string]grant    // opaque access tokens
	pending map[string]*pending // consent pages shown, by request id
	clients map[string][]string // registered public clients → redirect URIs
}

// grant is what a code, a refresh token or an opaque access token stands
// for.
type grant struct {
	client, scope, nonce, challenge, redirect string
	user                                      User
	exp                                       time.Time
}

// Bounds on what a client can make the provider keep.
const (
	maxPending = 1000
	maxClients = 1000
	maxGrants  = 10000
)

// New returns the provider as an http.Handler served at cfg.Issuer; the
// caller serves it (httptest.NewServer, a mux under the issuer's path).
func New(cfg Config) (*Provider, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("devidp: Config.Issuer is required (the URL the handler is served at); Start sets it")
	}
	return newProvider(cfg)
}

// Start listens on cfg.Addr (default 127.0.0.1:0), serves the provider
// with its issuer http://ADDR, and returns it; [Provider.Close] stops it.
func Start(cfg Config) (*Provider, error) {
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("devidp: Config.Addr %q: %w", addr, err)
	}
	if !cfg.AllowNonLoopback && !hostcheck.IsLoopbackHost(host) {
		return nil, fmt.Errorf("devidp: Config.Addr %q is not a loopback address: anyone who reaches the provider signs in "+
			"as its users (set AllowNonLoopback for a closed test network)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	cfg.Issuer = "http://" + ln.Addr().String()
	p, err := newProvider(cfg)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// parseIssuer parses Config.Issuer: an http(s) URL without query,
// fragment or trailing slash, on a loopback host unless AllowNonLoopback
// (anyone who reaches the provider signs in as its users).
func parseIssuer(cfg *Config) (*url.URL, error) {
	iss, err := url.Parse(cfg.Issuer)
	if err != nil || (iss.Scheme != "http" && iss.Scheme != "https") || iss.Host == "" || iss.RawQuery != "" ||
		iss.Fragment != "" || iss.User != nil || strings.HasSuffix(iss.Path, "/") {
		return nil, fmt.Errorf("devidp: Config.Issuer %q must be an http(s) URL without query, fragment or trailing slash", cfg.Issuer)
	}
	if !cfg.AllowNonLoopback && !hostcheck.IsLoopbackHost(iss.Host) {
		return nil, fmt.Errorf("devidp: Config.Issuer %q is not on a loopback host: anyone who reaches the provider signs in "+
			"as its users (set AllowNonLoopback for a closed test network)", cfg.Issuer)
	}
	return iss, nil
}

func newProvider(cfg Config) (*Provider, error) {
	iss, err := parseIssuer(&cfg)
	if err != nil {
		return nil, err
	}
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	p := &Provider{cfg: cfg, prefix: iss.Path, host: iss.Host, key: key, kid: random(8), log: log,
		codes: map[string]grant{}, rts: map[string]grant{}, tokens: map[string]grant{},
		pending: map[string]*pending{}, clients: map[string][]string{}}
	sk := jose.SigningKey{Algorithm: jose.RS256, Key: key}
	if p.signer, err = jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", p.kid)); err == nil {
		p.atSigner, err = jose.NewSigner(sk, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", p.kid))
	}
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+p.prefix+"/.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET "+p.prefix+"/.well-known/oauth-authorization-server", p.discovery)
	mux.HandleFunc("GET "+p.prefix+"/jwks", p.jwks)
	mux.HandleFunc("GET "+p.prefix+"/authorize", p.authorize)
	mux.HandleFunc("POST "+p.prefix+"/authorize", p.consent)
	mux.HandleFunc("POST "+p.prefix+"/token", p.token)
	mux.HandleFunc("GET "+p.prefix+"/userinfo", p.userinfo)
	if cfg.Audience != "" {
		mux.HandleFunc("POST "+p.prefix+"/register", p.register)
	}
	p.mux = mux
	log.Warn("devidp: a development identity provider is running: whoever reaches it signs in with no password; never expose it",
		"issuer", cfg.Issuer, "autoApprove", cfg.AutoApprove, "nonLoopbackAllowed", cfg.AllowNonLoopback)
	return p, nil
}

// fill checks the users and redirect URIs and fills in the defaults:
// one user, the OpenID scopes, the client dev-client with a random
// secret.
func (c *Config) fill() error {
	if len(c.Users) == 0 {
		c.Users = []User{DefaultUser()}
	}
	seen := map[string]bool{}
	for i, u := range c.Users {
		if u.Subject == "" {
			return fmt.Errorf("devidp: Config.Users[%d] has no Subject", i)
		}
		if seen[u.Subject] {
			return fmt.Errorf("devidp: Config.Users: subject %q appears twice", u.Subject)
		}
		seen[u.Subject] = true
	}
	c.Users = append([]User(nil), c.Users...)
	if len(c.Scopes) == 0 {
		c.Scopes = []string{"openid", "profile", "email"}
	}
	if c.ClientID == "" {
		c.ClientID = "dev-client"
	}
	if c.ClientSecret == "" {
		c.ClientSecret = random(24)
	}
	for _, u := range c.RedirectURIs {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.Fragment != "" {
			return fmt.Errorf("devidp: Config.RedirectURIs: %q is not an absolute http(s) URI without a fragment", u)
		}
	}
	return nil
}

// ServeHTTP serves the provider's endpoints under the issuer's path. A
// request whose Host is neither the issuer's nor a loopback name gets 403:
// a page of another site whose name it rebinds to 127.0.0.1 (DNS
// rebinding) would otherwise be the provider's own origin.
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Host != p.host && !hostcheck.IsLoopbackHost(r.Host) {
		p.log.Info("devidp: request refused", "reason", "Host is not the issuer's", "host", r.Host)
		http.Error(w, "dev identity provider: Host "+strconv.Quote(r.Host)+" is not the issuer's", http.StatusForbidden)
		return
	}
	p.mux.ServeHTTP(w, r)
}

// Close stops the server [Start] started, letting requests in flight
// finish for up to two seconds. For a provider from [New] it does
// nothing: the caller's server serves it.
func (p *Provider) Close() error {
	if p.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		return p.srv.Close()
	}
	return nil
}

// Issuer is the provider's issuer URL: a server's OAUTH_ISSUER, the
// Issuer of providers.OAuthProviderConfig or resourceserver.Config.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// AuthorizationEndpoint is Issuer() + "/authorize".
func (p *Provider) AuthorizationEndpoint() string { return p.cfg.Issuer + "/authorize" }

// TokenEndpoint is Issuer() + "/token".
func (p *Provider) TokenEndpoint() string { return p.cfg.Issuer + "/token" }

// ClientID is the confidential client's id.
func (p *Provider) ClientID() string { return p.cfg.ClientID }

// ClientSecret is the confidential client's secret.
func (p *Provider) ClientSecret() string { return p.cfg.ClientSecret }

// Users are the provider's users; the first is the one AutoApprove
// signs in.
func (p *Provider) Users() []User { return append([]User(nil), p.cfg.Users...) }

// Scopes are the scopes the provider supports (Config.Scopes or its
// default), which a server asks for.
func (p *Provider) Scopes() []string { return append([]string(nil), p.cfg.Scopes...) }

// AccessToken mints an access token for the first user with scope, as the
// token endpoint would (a JWT when Config.Audience is set), for a test or
// curl that needs no sign-in.
func (p *Provider) AccessToken(scope string, ttl time.Duration) (string, error) {
	return p.accessToken(grant{client: p.cfg.ClientID, scope: scope, user: p.cfg.Users[0]}, time.Now(), ttl)
}

// random returns n random bytes, base64url.
func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
