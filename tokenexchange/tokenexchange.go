// Package tokenexchange gives a tool an *http.Client that calls a
// downstream API as the calling user: the token the caller signed in
// with is exchanged at the identity provider for a token for the
// downstream API (OAuth 2.0 Token Exchange, RFC 8693; Microsoft Entra's
// on-behalf-of flow with [EntraOnBehalfOf]). Tokens are cached per user
// (the one identity rule's key) and downstream audience and scopes,
// exchanged again or refreshed when they run out, and never logged.
//
// Configure one [Exchanger] for the server, then in a tool:
//
//	hc, err := x.Client(c, "https://api.example.com")
//
// The caller's token comes from its auth data: a resource server's
// *resourceserver.Session (the bearer token of the request) or a session
// of package providers (the upstream provider's access token); any auth
// data implementing [Caller] does.
package tokenexchange

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/exchange"
	"github.com/mcpchain/mcp/internal/identity"
)

// Caller is auth data that holds the caller's token at the identity
// provider: the subject token of the exchange, and its RFC 8693 type
// (urn:ietf:params:oauth:token-type:access_token, …). A "" token means
// the caller has none.
type Caller interface {
	SubjectToken() (token, tokenType string)
}

// Config configures an [Exchanger].
type Config struct {
	// TokenURL is the identity provider's token endpoint. Required.
	TokenURL string
	// ClientID and ClientSecret are this server's client at the identity
	// provider, which must allow it to exchange its users' tokens.
	// Required.
	ClientID, ClientSecret string
	// AuthMethod is how the client authenticates: client_secret_basic
	// (default) or client_secret_post.
	AuthMethod string
	// RequestedTokenType is the RFC 8693 requested_token_type. Default:
	// urn:ietf:params:oauth:token-type:access_token.
	RequestedTokenType string
	// CacheSize bounds the tokens kept (per user, audience and scopes).
	// Default: 10,000; negative: none kept, every call exchanges.
	CacheSize int
	// HTTPClient talks to the identity provider. Default: a client with
	// a 10 s timeout.
	HTTPClient *http.Client
	// Transport sends the downstream requests of [Exchanger.Client].
	// Default: http.DefaultTransport.
	Transport http.RoundTripper
	// Logger receives failures (never a token). Default: slog.Default().
	Logger *slog.Logger

	onBehalfOf bool // Entra's grant: set by EntraOnBehalfOf
}

// EntraOnBehalfOf is the configuration of Microsoft Entra ID's
// on-behalf-of flow: the user's token for this server's application
// (aud its client id or application ID URI) is exchanged at the tenant's
// token endpoint with the JWT-bearer grant (requested_token_use
// on_behalf_of) for a token of the downstream API. Scopes are Entra's:
// [Exchanger.Client] with audience "https://graph.microsoft.com" and
// scope "User.Read" asks for https://graph.microsoft.com/User.Read, and
// with no scope for https://graph.microsoft.com/.default.
func EntraOnBehalfOf(tenantID, clientID, clientSecret string) Config {
	return Config{TokenURL: "https://login.microsoftonline.com/" + url.PathEscape(tenantID) + "/oauth2/v2.0/token",
		ClientID: clientID, ClientSecret: clientSecret, AuthMethod: "client_secret_post", onBehalfOf: true}
}

// Exchanger exchanges callers' tokens. Safe for concurrent use.
type Exchanger struct {
	cfg Config
	hc  *http.Client
	log *slog.Logger
	now func() time.Time

	mu    sync.Mutex
	cache map[string]*entry
	order []string // keys, oldest first, for eviction
}

// entry is the downstream token of one user, audience and scopes.
type entry struct {
	mu  sync.Mutex // one exchange or refresh at a time
	tok *oauth2.Token
}

const (
	defaultCacheSize = 10000
	// expiryDelta: a token that expires within it is replaced first.
	expiryDelta = 30 * time.Second
)

// New checks cfg and returns an Exchanger.
func New(cfg Config) (*Exchanger, error) {
	u, err := url.Parse(cfg.TokenURL)
	switch {
	case cfg.TokenURL == "":
		return nil, errors.New("tokenexchange: Config.TokenURL is required (the identity provider's token endpoint)")
	case err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))):
		return nil, fmt.Errorf("tokenexchange: Config.TokenURL %q must be an https URL (http only on loopback)", cfg.TokenURL)
	case cfg.ClientID == "" || cfg.ClientSecret == "":
		return nil, errors.New("tokenexchange: Config.ClientID and ClientSecret are required: the identity provider exchanges tokens for a client it knows")
	}
	switch cfg.AuthMethod {
	case "":
		cfg.AuthMethod = "client_secret_basic"
	case "client_secret_basic", "client_secret_post":
	default:
		return nil, fmt.Errorf("tokenexchange: Config.AuthMethod %q: use client_secret_basic or client_secret_post", cfg.AuthMethod)
	}
	cfg.setDefaults()
	return &Exchanger{cfg: cfg, hc: cfg.HTTPClient, log: cfg.Logger.With("component", "tokenexchange"),
		now: time.Now, cache: map[string]*entry{}}, nil
}

// setDefaults fills in the defaults of the optional fields left unset.
func (cfg *Config) setDefaults() {
	if cfg.RequestedTokenType == "" {
		cfg.RequestedTokenType = exchange.TypeAccessToken
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = defaultCacheSize
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Transport == nil {
		cfg.Transport = http.DefaultTransport
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
}

func isLoopback(h string) bool { return h == "localhost" || h == "127.0.0.1" || h == "::1" }

// ErrNoSubjectToken is the error of a caller without a token to
// exchange: no auth data implementing [Caller], or an empty token.
var ErrNoSubjectToken = errors.New("tokenexchange: the caller has no token at the identity provider to exchange")

// Client returns an *http.Client whose requests carry a token of the
// calling user (c.Session) for audience and scopes, exchanged at the
// identity provider on first use and again, or refreshed, when it runs
// out. A redirect to another origin than the request's is not followed
// (the response is returned), so the token goes only where the tool sent
// it. The token is not fetched before the first request: a failed
// exchange is that request's error (a *url.Error wrapping the identity
// provider's refusal).
func (x *Exchanger) Client(c *mcp.Context, audience string, scopes ...string) (*http.Client, error) {
	ts, err := x.TokenSource(c, audience, scopes...)
	if err != nil {
		return nil, err
	}
	return &http.Client{
		Transport: &oauth2.Transport{Source: ts, Base: x.cfg.Transport},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("tokenexchange: stopped after 10 redirects")
			}
			if origin(req.URL) != origin(via[0].URL) {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}, nil
}

// TokenSource returns the calling user's tokens for audience and scopes,
// as [Exchanger.Client] uses them. It holds the caller's token of this
// request: use it within the tool call.
func (x *Exchanger) TokenSource(c *mcp.Context, audience string, scopes ...string) (oauth2.TokenSource, error) {
	var auth any
	if c != nil {
		auth = c.Session
	}
	caller, ok := auth.(Caller)
	if !ok || caller == nil {
		return nil, ErrNoSubjectToken
	}
	tok, typ := caller.SubjectToken()
	if tok == "" {
		return nil, ErrNoSubjectToken
	}
	if typ == "" {
		typ = exchange.TypeAccessToken
	}
	scopes = slices.Clone(scopes)
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	s := &source{x: x, subject: tok, subjectType: typ, audience: audience, scopes: scopes}
	// Cached only for a caller with a key: anonymous and opaque callers
	// share nothing (internal/identity).
	if k, ok := identity.Key(auth); ok && x.cfg.CacheSize > 0 {
		s.key = k + "\x00" + audience + "\x00" + strings.Join(scopes, " ")
	}
	return s, nil
}

// source is one caller's TokenSource.
type source struct {
	x           *Exchanger
	key         string // "" : not cached
	subject     string
	subjectType string
	audience    string
	scopes      []string
	own         entry // the entry of an uncached caller
}

func (s *source) Token() (*oauth2.Token, error) {
	e := &s.own
	if s.key != "" {
		e = s.x.entry(s.key)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := s.x.now()
	if e.tok != nil && e.tok.AccessToken != "" && (e.tok.Expiry.IsZero() || now.Add(expiryDelta).Before(e.tok.Expiry)) {
		return e.tok, nil
	}
	ctx := context.Background()
	if e.tok != nil && e.tok.RefreshToken != "" {
		t, err := s.x.refresh(ctx, e.tok.RefreshToken)
		if err == nil {
			if t.RefreshToken == "" {
				t.RefreshToken = e.tok.RefreshToken
			}
			e.tok = t
			return t, nil
		}
		s.x.log.Info("refreshing a downstream token failed; exchanging again", "err", err)
	}
	t, err := s.x.exchange(ctx, s)
	if err != nil {
		e.tok = nil
		s.x.log.Warn("token exchange failed", "audience", s.audience, "err", err)
		return nil, err
	}
	e.tok = t
	return t, nil
}

// entry returns the cache entry of key, making it (and evicting the
// oldest beyond CacheSize) when there is none.
func (x *Exchanger) entry(key string) *entry {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e, ok := x.cache[key]; ok {
		return e
	}
	for len(x.order) >= x.cfg.CacheSize {
		delete(x.cache, x.order[0])
		x.order = x.order[1:]
	}
	e := &entry{}
	x.cache[key] = e
	x.order = append(x.order, key)
	return e
}

// exchange asks the identity provider for a downstream token for s.
func (x *Exchanger) exchange(ctx context.Context, s *source) (*oauth2.Token, error) {
	form := url.Values{}
	if x.cfg.onBehalfOf {
		form.Set("grant_type", exchange.GrantJWTBearer)
		form.Set("requested_token_use", "on_behalf_of")
		form.Set("assertion", s.subject)
		form.Set("scope", entraScope(s.audience, s.scopes))
	} else {
		form.Set("grant_type", exchange.GrantTokenExchange)
		form.Set("subject_token", s.subject)
		form.Set("subject_token_type", s.subjectType)
		form.Set("requested_token_type", x.cfg.RequestedTokenType)
		if s.audience != "" {
			form.Set("audience", s.audience)
		}
		if len(s.scopes) > 0 {
			form.Set("scope", strings.Join(s.scopes, " "))
		}
	}
	return x.request(ctx, form)
}

func (x *Exchanger) refresh(ctx context.Context, rt string) (*oauth2.Token, error) {
	return x.request(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
}

func (x *Exchanger) request(ctx context.Context, form url.Values) (*oauth2.Token, error) {
	res, err := exchange.Do(ctx, x.hc, exchange.Request{TokenURL: x.cfg.TokenURL, ClientID: x.cfg.ClientID,
		ClientSecret: x.cfg.ClientSecret, AuthMethod: x.cfg.AuthMethod, Form: form}, x.now)
	if err != nil {
		return nil, fmt.Errorf("tokenexchange: %w", err)
	}
	typ := res.TokenType
	if typ == "" || strings.EqualFold(typ, "bearer") || strings.EqualFold(typ, "N_A") {
		typ = "Bearer"
	}
	return &oauth2.Token{AccessToken: res.AccessToken, TokenType: typ, RefreshToken: res.RefreshToken, Expiry: res.Expiry}, nil
}

// entraScope is the scope of an on-behalf-of request: each scope
// qualified by the audience (Entra's resource), or the audience's
// .default.
func entraScope(audience string, scopes []string) string {
	if len(scopes) == 0 {
		return strings.TrimSuffix(audience, "/") + "/.default"
	}
	out := make([]string, len(scopes))
	for i, s := range scopes {
		if audience == "" || strings.Contains(s, "://") || s == "offline_access" || s == "openid" || s == "profile" || s == "email" {
			out[i] = s
			continue
		}
		out[i] = strings.TrimSuffix(audience, "/") + "/" + s
	}
	return strings.Join(out, " ")
}

// origin is scheme://host of u, lowercased.
func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }
