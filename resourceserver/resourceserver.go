package resourceserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
)

// Config configures a [Verifier]. Issuer and Resource are required.
type Config struct {
	// Issuer is the authorization server's issuer identifier, exactly as
	// its tokens carry it in iss (mind the trailing slash: Auth0's has
	// one, Keycloak's and Entra's have none). Required.
	Issuer string
	// Resource is this MCP endpoint's canonical URL, such as
	// https://mcp.example.com/mcp: the resource of the protected-resource
	// metadata (RFC 9728) and the resource indicator clients ask tokens
	// for (RFC 8707). Required.
	Resource string
	// Audiences are the aud values a token may carry, one of which it
	// must. Default: Resource alone. Providers that put an API identifier
	// in aud (Auth0's "API audience", an Entra application ID URI, a
	// Keycloak client) need it listed here. Never list a client ID that
	// also receives ID tokens: an ID token would then pass as an access
	// token.
	Audiences []string
	// AuthorizationServers are the issuers named in the metadata.
	// Default: Issuer.
	AuthorizationServers []string
	// RequiredScopes must all be granted to every token (the scope claim,
	// space-separated, or scp, a list or a string). A token without one
	// of them is refused with 403 insufficient_scope naming them. Per-tool
	// scopes are for mcp.RequireScopes on the tool.
	RequiredScopes []string
	// ScopesSupported is scopes_supported in the metadata. Default:
	// RequiredScopes.
	ScopesSupported []string
	// ResourceName is the metadata's resource_name, for people.
	ResourceName string
	// JWKSURL is where the issuer publishes its signing keys. Default:
	// the jwks_uri of the issuer's metadata (OpenID Connect discovery,
	// then RFC 8414), fetched once by [New].
	JWKSURL string
	// SigningAlgorithms are the JWS algorithms accepted. Default: RS256,
	// RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512, EdDSA.
	// "none" and HMAC algorithms are never accepted.
	SigningAlgorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat. Default:
	// 30 s; at most 5 min.
	Leeway time.Duration
	// Introspection, when set, verifies tokens with the issuer's RFC 7662
	// introspection endpoint instead of as JWTs: for opaque tokens, or to
	// see revocations at once.
	Introspection *IntrospectionConfig
	// HTTPClient fetches metadata, keys and introspection answers.
	// Default: a client with a 10 s timeout.
	HTTPClient *http.Client
	// Now is the clock (tests). Default: time.Now.
	Now func() time.Time
}

// IntrospectionConfig configures RFC 7662 token introspection.
type IntrospectionConfig struct {
	// Endpoint is the introspection URL. Default: the
	// introspection_endpoint of the issuer's metadata.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server at the
	// endpoint (HTTP Basic, RFC 7662 §2.1). Required by most servers.
	ClientID, ClientSecret string
	// CacheSize bounds the answers kept: as many active answers, and as
	// many refusals (inactive, another audience…) apart, so that garbage
	// tokens cannot push good answers out. Default: 1000; negative turns
	// both caches off.
	CacheSize int
	// CacheTTL bounds how long an active answer is reused; never past the
	// token's exp. Default: 60 s. A revocation takes up to this long to
	// be seen. A refusal is reused for 10 s (or CacheTTL if shorter).
	CacheTTL time.Duration
	// RateLimit bounds the calls to the endpoint, per second, with a
	// burst of as many: a token that would need a call beyond it is
	// refused with 503 and Retry-After (the client keeps it and tries
	// again), so a flood of made-up tokens costs the authorization server
	// at most this. Cached answers are not counted, and requests with one
	// token at once share one call. Default: 20; negative: no limit.
	RateLimit float64
}

// Verifier checks the bearer tokens of an existing identity provider for
// one MCP resource. It implements mcp.AuthProvider and
// mcp.OAuthMetadataProvider: set it as mcp.Options.Auth. Safe for
// concurrent use.
type Verifier struct {
	cfg       Config
	audiences []string
	algs      []jose.SignatureAlgorithm
	keys      *keySet
	intro     *introspector
	meta      *mcp.OAuthOptions
	scopeHint string
	hc        *http.Client
}

// Limits of what the verifier reads from outside.
const (
	maxTokenLen    = 16 << 10 // a bearer token longer than this is refused unread
	maxMetadataLen = 1 << 20  // issuer metadata and JWKS documents
	maxLeeway      = 5 * time.Minute
)

var defaultAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

// New checks cfg and returns a Verifier. Without Config.JWKSURL (or,
// with introspection, Config.Introspection.Endpoint) it reads the
// issuer's metadata, so it fails when the issuer is unreachable: a server
// that cannot verify tokens does not start. A config without Issuer or
// Resource, with a URL that is not absolute, or with an unknown signing
// algorithm is an error.
func New(ctx context.Context, cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("resourceserver: Config.Issuer is required: the issuer identifier of the authorization server whose tokens are accepted")
	}
	if cfg.Resource == "" {
		return nil, errors.New("resourceserver: Config.Resource is required: the URL of this MCP endpoint, such as https://mcp.example.com/mcp")
	}
	for name, u := range map[string]string{"Issuer": cfg.Issuer, "Resource": cfg.Resource, "JWKSURL": cfg.JWKSURL} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return nil, fmt.Errorf("resourceserver: Config.%s %q is not an absolute http(s) URL", name, u)
		}
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	if cfg.Leeway < 0 || cfg.Leeway > maxLeeway {
		return nil, fmt.Errorf("resourceserver: Config.Leeway %v is outside 0..%v", cfg.Leeway, maxLeeway)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &Verifier{cfg: cfg, audiences: cfg.Audiences}
	if len(v.audiences) == 0 {
		v.audiences = []string{cfg.Resource}
	}
	if slices.Contains(v.audiences, "") {
		return nil, errors.New("resourceserver: Config.Audiences has an empty value")
	}
	v.algs = defaultAlgs
	if len(cfg.SigningAlgorithms) > 0 {
		v.algs = nil
		for _, a := range cfg.SigningAlgorithms {
			if !slices.Contains(defaultAlgs, jose.SignatureAlgorithm(a)) {
				return nil, fmt.Errorf("resourceserver: Config.SigningAlgorithms: %q is not an asymmetric JWS algorithm this package accepts", a)
			}
			v.algs = append(v.algs, jose.SignatureAlgorithm(a))
		}
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: 10 * time.Second}
	}
	guard := &guardTransport{next: transportOf(base)}
	v.hc = withTransport(base, guard)

	needMeta := (cfg.Introspection == nil && cfg.JWKSURL == "") || (cfg.Introspection != nil && cfg.Introspection.Endpoint == "")
	var md issuerMetadata
	if needMeta {
		var err error
		if md, err = fetchIssuerMetadata(ctx, v.hc, cfg.Issuer); err != nil {
			return nil, err
		}
	}
	if cfg.Introspection != nil {
		ic := *cfg.Introspection
		if ic.Endpoint == "" {
			ic.Endpoint = md.IntrospectionEndpoint
		}
		if ic.Endpoint == "" {
			return nil, fmt.Errorf("resourceserver: the metadata of %s names no introspection_endpoint; set Config.Introspection.Endpoint", cfg.Issuer)
		}
		intro, err := newIntrospector(ic, v)
		if err != nil {
			return nil, err
		}
		v.intro = intro
	} else {
		jwks := cfg.JWKSURL
		if jwks == "" {
			jwks = md.JWKSURI
		}
		if jwks == "" {
			return nil, fmt.Errorf("resourceserver: the metadata of %s names no jwks_uri; set Config.JWKSURL", cfg.Issuer)
		}
		v.keys = newKeySet(jwks, v.hc, cfg.Now)
	}

	servers := cfg.AuthorizationServers
	if len(servers) == 0 {
		servers = []string{cfg.Issuer}
	}
	scopes := cfg.ScopesSupported
	if len(scopes) == 0 {
		scopes = cfg.RequiredScopes
	}
	v.scopeHint = strings.Join(cfg.RequiredScopes, " ")
	v.meta = &mcp.OAuthOptions{Enabled: true, ProtectedResource: &mcp.ProtectedResourceMetadata{
		Resource: cfg.Resource, AuthorizationServers: servers, ScopesSupported: scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: cfg.ResourceName,
	}}
	return v, nil
}

// OAuthMetadata implements mcp.OAuthMetadataProvider: the RFC 9728
// protected-resource metadata naming the external authorization servers.
// There is no authorization-server document: clients read the issuer's
// own.
func (v *Verifier) OAuthMetadata() *mcp.OAuthOptions { return v.meta }

// Mount implements mcp.AuthProvider: it serves the protected-resource
// metadata at /.well-known/oauth-protected-resource and at that path
// followed by the resource's path (RFC 9728 §3.1).
func (v *Verifier) Mount(mux *http.ServeMux) { discovery.Mount(mux, v.meta) }

// VerifyRequest implements mcp.AuthProvider: it verifies the request's
// bearer token and returns its [*Session]. A missing, malformed, expired,
// foreign or unverifiable token is an *mcp.AuthError wrapping
// mcp.ErrUnauthorized (401, error="invalid_token" when a token was
// sent); a token without a required scope wraps mcp.ErrInsufficientScope
// (403 with the scopes needed); an unreachable key set or introspection
// endpoint wraps mcp.ErrAuthUnavailable (503). Nothing is ever admitted
// on a failure.
func (v *Verifier) VerifyRequest(r *http.Request) (any, error) {
	tok, err := BearerToken(r.Header)
	if err != nil {
		return nil, &mcp.AuthError{Err: err, Scope: v.scopeHint, Description: describeBearerError(err)}
	}
	s, err := v.Verify(r.Context(), tok)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Verify checks one access token and returns its session; errors are as
// for [Verifier.VerifyRequest].
func (v *Verifier) Verify(ctx context.Context, token string) (*Session, error) {
	var s *Session
	var err error
	if v.intro != nil {
		s, err = v.intro.verify(ctx, token)
	} else {
		s, err = v.verifyJWT(ctx, token)
	}
	if err != nil {
		return nil, err
	}
	if missing := s.missing(v.cfg.RequiredScopes); len(missing) > 0 {
		return nil, &mcp.AuthError{
			Err:         fmt.Errorf("%w: token of %q lacks %s", mcp.ErrInsufficientScope, s.Sub, strings.Join(missing, " ")),
			Description: "the access token lacks the scope " + strings.Join(missing, " "),
			Scope:       v.scopeHint,
		}
	}
	return s, nil
}

// refuse is a 401 for a token that was presented: why (logged) and what
// the client is told.
func (v *Verifier) refuse(desc, why string) error {
	return &mcp.AuthError{Err: fmt.Errorf("%w: %s", mcp.ErrInvalidToken, why), Description: desc, Scope: v.scopeHint}
}

// unavailable is a 503: the check could not run.
func (v *Verifier) unavailable(why string, err error) error {
	return &mcp.AuthError{Err: fmt.Errorf("%w: %s: %v", mcp.ErrAuthUnavailable, why, err),
		Description: "the token cannot be checked now: the authorization server is unreachable"}
}

// Errors of [BearerToken].
var (
	// ErrNoToken: the request has no Authorization header.
	ErrNoToken = fmt.Errorf("%w: no Authorization header", mcp.ErrUnauthorized)
	// ErrMalformedHeader: the Authorization header is not "Bearer <token>"
	// with a token of the RFC 6750 §2.1 alphabet and a bounded length.
	ErrMalformedHeader = fmt.Errorf("%w: the Authorization header is not Bearer <token>", mcp.ErrInvalidToken)
)

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header (RFC 6750 §2.1: the scheme in any case, one space, a token of
// b64token characters, at most 16 KiB). More than one Authorization header
// is malformed.
func BearerToken(h http.Header) (string, error) {
	vals := h.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", ErrNoToken
	case 1:
	default:
		return "", ErrMalformedHeader
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || len(tok) > maxTokenLen {
		return "", ErrMalformedHeader
	}
	trail := true
	for i := len(tok) - 1; i >= 0; i-- {
		c := tok[i]
		switch {
		case c == '=' && trail:
			continue
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
			trail = false
		default:
			return "", ErrMalformedHeader
		}
	}
	if trail { // only '='
		return "", ErrMalformedHeader
	}
	return tok, nil
}

func describeBearerError(err error) string {
	if errors.Is(err, ErrNoToken) {
		return ""
	}
	return "the Authorization header must be Bearer followed by one access token"
}

// issuerMetadata is what the verifier reads of the issuer's metadata.
type issuerMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// fetchIssuerMetadata reads the OpenID Connect discovery document of
// issuer, else its RFC 8414 metadata, and checks that it names issuer.
func fetchIssuerMetadata(ctx context.Context, hc *http.Client, issuer string) (issuerMetadata, error) {
	u, _ := url.Parse(issuer)
	path := strings.TrimSuffix(u.Path, "/")
	candidates := []string{
		strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration",
		u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + path,
	}
	var errs []error
	for _, c := range candidates {
		md, err := getMetadata(ctx, hc, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if md.Issuer != issuer {
			return md, fmt.Errorf("resourceserver: %s names issuer %q, not %q (Config.Issuer must be the issuer exactly as its tokens carry it)", c, md.Issuer, issuer)
		}
		return md, nil
	}
	return issuerMetadata{}, fmt.Errorf("resourceserver: cannot read the metadata of issuer %s (set Config.JWKSURL to skip it): %w", issuer, errors.Join(errs...))
}

func getMetadata(ctx context.Context, hc *http.Client, u string) (issuerMetadata, error) {
	var md issuerMetadata
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return md, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return md, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return md, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataLen))
	if err != nil {
		return md, err
	}
	if err := json.Unmarshal(body, &md); err != nil {
		return md, fmt.Errorf("GET %s: not a JSON metadata document: %w", u, err)
	}
	return md, nil
}

// tokenKey is the cache key of a token: its hash, so the cache never
// holds a usable token.
func tokenKey(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }
