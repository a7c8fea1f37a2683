package resourceserver

import (
	"cmp"
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
	claimpath "github.com/mcpchain/mcp/internal/claims"
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
	// token. The verifier refuses the JWTs that say they are no access
	// token (a typ header other than at+jwt, JWT or none; an ID token's
	// at_hash or c_hash claim), but an ID token typed JWT without those
	// (Entra's from its token endpoint) looks like an access token, and
	// only its audience tells them apart.
	Audiences []string
	// AuthorizationServers are the issuers named in the metadata.
	// Default: Issuer.
	AuthorizationServers []string
	// RequiredScopes must all be granted to every token (the scope claim,
	// space-separated, or scp, a list or a string). A token without one
	// of them is refused with 403 insufficient_scope naming them. Per-tool
	// scopes are for access.Scopes on the tool.
	RequiredScopes []string
	// ScopesSupported is scopes_supported in the metadata. Default:
	// RequiredScopes.
	ScopesSupported []string
	// RoleClaims are the claim paths whose strings are the caller's roles
	// (Session.Roles, for access.Roles): "groups" (Okta), "roles" and
	// "groups" (Entra), "realm_access.roles" (Keycloak),
	// "cognito:groups", a namespaced Auth0 claim in double quotes
	// ("\"https://mcp.example.com/roles\""). Dots separate the members
	// of nested objects. A string is one role, a list gives its strings;
	// anything else gives none. Map only claims the provider's
	// administrators control, never one users can edit. Default: none
	// (no roles). The presets of package idp set it.
	RoleClaims []string
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
	// DPoP tunes the checks of DPoP-bound tokens (RFC 9449): accepted
	// algorithms, the public URL that proofs name, replicas sharing a
	// replay cache, server nonces. Nil: the defaults. A bound token is
	// checked whatever this says.
	DPoP *DPoPConfig
	// EnterpriseAuth, when set, makes this server also the authorization
	// server of enterprise-managed authorization (SEP-990) for Resource:
	// it takes ID-JAGs of trusted enterprise IdPs at a token endpoint of
	// its own and accepts the tokens it issues for them, beside the
	// provider's.
	EnterpriseAuth *EnterpriseAuth
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
	// With the cache off (CacheSize negative) every request is a call:
	// set it to the request rate the server must take.
	RateLimit float64
}

// Verifier checks the bearer tokens of an existing identity provider for
// one MCP resource. It implements mcp.AuthProvider and
// discovery.MetadataProvider: set it as mcp.Options.Auth. Safe for
// concurrent use.
type Verifier struct {
	cfg       Config
	audiences []string
	algs      []jose.SignatureAlgorithm
	keys      *keySet
	intro     *introspector
	dpop      *dpopChecker
	local     *localAS // nil: no EnterpriseAuth
	meta      *discovery.Options
	metaURL   string // of the protected-resource metadata, for challenges
	scopeHint string
	hc        *http.Client
	roles     []claimpath.Path // Config.RoleClaims, parsed
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
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	v := &Verifier{cfg: cfg, audiences: cfg.Audiences}
	if len(v.audiences) == 0 {
		v.audiences = []string{cfg.Resource}
	}
	if slices.Contains(v.audiences, "") {
		return nil, errors.New("resourceserver: Config.Audiences has an empty value")
	}
	algs, err := signingAlgorithms("Config.SigningAlgorithms", cfg.SigningAlgorithms)
	if err != nil {
		return nil, err
	}
	v.algs = algs
	dpop, err := newDPoPChecker(cfg)
	if err != nil {
		return nil, err
	}
	v.dpop = dpop
	if v.roles, err = claimpath.ParsePaths(cfg.RoleClaims); err != nil {
		return nil, fmt.Errorf("resourceserver: Config.RoleClaims: %w", err)
	}
	if v.metaURL, err = discovery.ResourceMetadataURL(cfg.Resource); err != nil {
		return nil, fmt.Errorf("resourceserver: Config.Resource %q: %w", cfg.Resource, err)
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: 10 * time.Second}
	}
	guard := &guardTransport{next: transportOf(base)}
	v.hc = withTransport(base, guard)
	if err := v.connect(ctx); err != nil {
		return nil, err
	}
	if err := v.buildMetadata(); err != nil {
		return nil, err
	}
	return v, nil
}

// checkConfig refuses a config without Issuer or Resource, with a URL
// that is not absolute http(s) or a leeway out of range, and fills in
// the defaults of Leeway and Now.
func checkConfig(cfg *Config) error {
	if cfg.Issuer == "" {
		return errors.New("resourceserver: Config.Issuer is required: the issuer identifier of the authorization server whose tokens are accepted")
	}
	if cfg.Resource == "" {
		return errors.New("resourceserver: Config.Resource is required: the URL of this MCP endpoint, such as https://mcp.example.com/mcp")
	}
	for name, u := range map[string]string{"Issuer": cfg.Issuer, "Resource": cfg.Resource, "JWKSURL": cfg.JWKSURL} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return fmt.Errorf("resourceserver: Config.%s %q is not an absolute http(s) URL", name, u)
		}
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	if cfg.Leeway < 0 || cfg.Leeway > maxLeeway {
		return fmt.Errorf("resourceserver: Config.Leeway %v is outside 0..%v", cfg.Leeway, maxLeeway)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return nil
}

// signingAlgorithms returns the JWS algorithms a token may be signed
// with: names, each one of defaultAlgs, or defaultAlgs when names is
// empty. field names the setting in the error.
func signingAlgorithms(field string, names []string) ([]jose.SignatureAlgorithm, error) {
	if len(names) == 0 {
		return defaultAlgs, nil
	}
	algs := make([]jose.SignatureAlgorithm, 0, len(names))
	for _, a := range names {
		if !slices.Contains(defaultAlgs, jose.SignatureAlgorithm(a)) {
			return nil, fmt.Errorf("resourceserver: %s: %q is not an asymmetric JWS algorithm this package accepts", field, a)
		}
		algs = append(algs, jose.SignatureAlgorithm(a))
	}
	return algs, nil
}

// connect sets up how tokens are checked: introspection, else the
// issuer's signing keys, reading the issuer's metadata for the endpoint
// the config does not name.
func (v *Verifier) connect(ctx context.Context) error {
	cfg := v.cfg
	needMeta := (cfg.Introspection == nil && cfg.JWKSURL == "") || (cfg.Introspection != nil && cfg.Introspection.Endpoint == "")
	var md issuerMetadata
	if needMeta {
		var err error
		if md, err = fetchIssuerMetadata(ctx, v.hc, cfg.Issuer); err != nil {
			return err
		}
	}
	if cfg.Introspection != nil {
		ic := *cfg.Introspection
		if ic.Endpoint == "" {
			ic.Endpoint = md.IntrospectionEndpoint
		}
		if ic.Endpoint == "" {
			return fmt.Errorf("resourceserver: the metadata of %s names no introspection_endpoint; set Config.Introspection.Endpoint", cfg.Issuer)
		}
		intro, err := newIntrospector(ic, v)
		if err != nil {
			return err
		}
		v.intro = intro
		return nil
	}
	jwks := cfg.JWKSURL
	if jwks == "" {
		jwks = md.JWKSURI
	}
	if jwks == "" {
		return fmt.Errorf("resourceserver: the metadata of %s names no jwks_uri; set Config.JWKSURL", cfg.Issuer)
	}
	v.keys = newKeySet(jwks, v.hc, cfg.Now)
	return nil
}

// buildMetadata builds the protected-resource metadata the verifier
// serves and, with Config.EnterpriseAuth, its own authorization server.
func (v *Verifier) buildMetadata() error {
	cfg := v.cfg
	servers := cfg.AuthorizationServers
	if len(servers) == 0 {
		servers = []string{cfg.Issuer}
	}
	scopes := cfg.ScopesSupported
	if len(scopes) == 0 {
		scopes = cfg.RequiredScopes
	}
	v.scopeHint = strings.Join(cfg.RequiredScopes, " ")
	v.meta = &discovery.Options{Enabled: true, ProtectedResource: &discovery.ProtectedResourceMetadata{
		Resource: cfg.Resource, AuthorizationServers: servers, ScopesSupported: scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: cfg.ResourceName,
		DPoPSigningAlgValuesSupported: strings.Fields(v.dpop.algNames),
	}}
	if cfg.EnterpriseAuth == nil {
		return nil
	}
	var err error
	if v.local, err = newLocalAS(cfg, *cfg.EnterpriseAuth, v.dpop.replay); err != nil {
		return err
	}
	pr := v.meta.ProtectedResource
	if !slices.Contains(pr.AuthorizationServers, v.local.issuer) {
		pr.AuthorizationServers = append(slices.Clone(pr.AuthorizationServers), v.local.issuer)
	}
	v.meta.AuthorizationServer = v.local.metadata(scopes)
	return nil
}

// OAuthMetadata implements discovery.MetadataProvider: the RFC 9728
// protected-resource metadata naming the external authorization servers.
// There is no authorization-server document: clients read the issuer's
// own.
func (v *Verifier) OAuthMetadata() *discovery.Options { return v.meta }

// Mount implements mcp.AuthProvider: it serves the protected-resource
// metadata at /.well-known/oauth-protected-resource and at that path
// followed by the resource's path (RFC 9728 §3.1); with
// Config.EnterpriseAuth, also its authorization server's metadata and
// token endpoint.
func (v *Verifier) Mount(mux *http.ServeMux) {
	discovery.Mount(mux, v.meta)
	if v.local != nil {
		mux.HandleFunc(v.local.tokenPath, v.local.handleToken)
	}
}

// VerifyRequest implements mcp.AuthProvider: it verifies the request's
// access token and returns its [*Session]. A token bound to a DPoP key
// (cnf.jkt) must come as "Authorization: DPoP <token>" with a valid DPoP
// proof (RFC 9449); any other token as "Authorization: Bearer <token>".
// A missing, malformed, expired, foreign or unverifiable token, or a bad
// proof, is an *mcp.AuthError wrapping mcp.ErrUnauthorized (401,
// error="invalid_token" when a token was sent, invalid_dpop_proof or
// use_dpop_nonce for the proof, in a DPoP challenge when the request
// used that scheme); a token without a required scope wraps
// mcp.ErrInsufficientScope (403 with the scopes needed); an unreachable
// key set or introspection endpoint wraps mcp.ErrAuthUnavailable (503).
// Nothing is ever admitted on a failure.
func (v *Verifier) VerifyRequest(r *http.Request) (any, error) {
	scheme, tok, err := authorization(r.Header)
	if err != nil {
		return nil, &mcp.AuthError{Err: err, Scope: v.scopeHint, Description: describeBearerError(err)}
	}
	s, err := v.verifyToken(r.Context(), tok)
	if err != nil {
		return nil, v.inScheme(scheme, err)
	}
	switch {
	case s.jkt != "" && scheme != schemeDPoP:
		// RFC 9449 §7.2: a bound token is never a bearer token.
		desc := "the access token is bound to a DPoP key (cnf.jkt): send it as Authorization: DPoP with a DPoP proof"
		ae := v.refuse(desc, "a DPoP-bound token sent as a bearer token").(*mcp.AuthError)
		ae.Header = http.Header{"Www-Authenticate": {v.bearerChallenge("invalid_token", desc) + ", DPoP algs=\"" + v.dpop.algNames + "\""}}
		return nil, ae
	case s.jkt == "" && scheme == schemeDPoP:
		return nil, v.inScheme(scheme, v.refuse("the access token is not bound to a DPoP key (no cnf.jkt): send it as Authorization: Bearer",
			"an unbound token sent with the DPoP scheme"))
	case s.jkt != "":
		if err := v.dpop.check(r, tok, s.jkt); err != nil {
			return nil, v.proofRefusal(err)
		}
	}
	if err := v.checkScopes(s); err != nil {
		return nil, v.inScheme(scheme, err)
	}
	return s.withToken(tok), nil
}

// Verify checks one access token, without its request, and returns its
// session; errors are as for [Verifier.VerifyRequest]. A token bound to
// a DPoP key is refused: only [Verifier.VerifyRequest] sees its proof.
func (v *Verifier) Verify(ctx context.Context, token string) (*Session, error) {
	s, err := v.verifyToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if s.jkt != "" {
		return nil, v.refuse("the access token is bound to a DPoP key (cnf.jkt): it needs its DPoP proof",
			"Verify of a DPoP-bound token, which needs the request's proof (VerifyRequest)")
	}
	if err := v.checkScopes(s); err != nil {
		return nil, err
	}
	return s.withToken(token), nil
}

// verifyToken checks a token as a JWT or by introspection: everything but
// the scopes and the DPoP binding.
func (v *Verifier) verifyToken(ctx context.Context, token string) (*Session, error) {
	if v.local != nil {
		if s, ok, err := v.local.verify(token); ok {
			return s, err
		}
	}
	if v.intro != nil {
		return v.intro.verify(ctx, token)
	}
	return v.verifyJWT(ctx, token)
}

func (v *Verifier) checkScopes(s *Session) error {
	if missing := s.missing(v.cfg.RequiredScopes); len(missing) > 0 {
		return &mcp.AuthError{
			Err:         fmt.Errorf("%w: token of %q lacks %s", mcp.ErrInsufficientScope, s.Sub, strings.Join(missing, " ")),
			Description: "the access token lacks the scope " + strings.Join(missing, " "),
			Scope:       v.scopeHint,
		}
	}
	return nil
}

// proofRefusal is the answer to a DPoP proof that failed dpopChecker.check.
func (v *Verifier) proofRefusal(err error) error {
	var pe *proofError
	switch {
	case errors.As(err, &pe):
		return &mcp.AuthError{Err: fmt.Errorf("%w: DPoP proof: %s", mcp.ErrInvalidToken, pe.desc), Description: pe.desc,
			Scope: v.scopeHint, Code: "invalid_dpop_proof",
			Header: http.Header{"Www-Authenticate": {v.dpopChallenge("invalid_dpop_proof", pe.desc)}}}
	case errors.Is(err, errNonce):
		desc := "the DPoP proof must carry the nonce of this server's DPoP-Nonce header"
		return &mcp.AuthError{Err: fmt.Errorf("%w: DPoP proof: %v", mcp.ErrInvalidToken, err), Description: desc,
			Scope: v.scopeHint, Code: "use_dpop_nonce",
			Header: http.Header{"Www-Authenticate": {v.dpopChallenge("use_dpop_nonce", desc)},
				"Dpop-Nonce": {v.dpop.newNonce(v.cfg.Now())}}}
	default:
		return v.unavailable("remembering the DPoP proof (Config.DPoP.ReplayCache)", err)
	}
}

// inScheme returns err as the answer to a request that used scheme: for
// DPoP, a refusal's challenge is a DPoP one (RFC 9449 §7.1, §7.2). The
// error itself is never changed (refusals are cached and shared).
func (v *Verifier) inScheme(scheme string, err error) error {
	var ae *mcp.AuthError
	if scheme != schemeDPoP || !errors.As(err, &ae) || errors.Is(err, mcp.ErrAuthUnavailable) {
		return err
	}
	code := cmp.Or(ae.Code, "invalid_token")
	if errors.Is(err, mcp.ErrInsufficientScope) {
		code = "insufficient_scope"
	}
	cp := *ae
	cp.Header = http.Header{"Www-Authenticate": {v.dpopChallenge(code, ae.Description)}}
	return &cp
}

// dpopChallenge is a DPoP WWW-Authenticate challenge (RFC 9449 §7.1):
// the error, its description, the scope hint, the protected-resource
// metadata (RFC 9728 §5.1) and the accepted algorithms.
func (v *Verifier) dpopChallenge(code, desc string) string {
	params := []string{`error="` + code + `"`}
	if d := headerSafe(desc); d != "" {
		params = append(params, `error_description="`+d+`"`)
	}
	if v.scopeHint != "" {
		params = append(params, `scope="`+headerSafe(v.scopeHint)+`"`)
	}
	params = append(params, `resource_metadata="`+headerSafe(v.metaURL)+`"`, `algs="`+v.dpop.algNames+`"`)
	return "DPoP " + strings.Join(params, ", ")
}

// bearerChallenge is the Bearer challenge the server would send, built
// here when a DPoP one follows it.
func (v *Verifier) bearerChallenge(code, desc string) string {
	params := []string{`resource_metadata="` + headerSafe(v.metaURL) + `"`, `error="` + code + `"`}
	if d := headerSafe(desc); d != "" {
		params = append(params, `error_description="`+d+`"`)
	}
	if v.scopeHint != "" {
		params = append(params, `scope="`+headerSafe(v.scopeHint)+`"`)
	}
	return "Bearer " + strings.Join(params, ", ")
}

// headerSafe keeps what a quoted-string of a challenge may hold
// (printable ASCII but '"' and '\'), bounded.
func headerSafe(s string) string {
	const limit = 300
	if len(s) > limit {
		s = s[:limit]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = ' '
		}
	}
	return strings.TrimSpace(string(b))
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
	// (or, for [Verifier.VerifyRequest], "DPoP <token>") with a token of
	// the RFC 6750 §2.1 alphabet and a bounded length.
	ErrMalformedHeader = fmt.Errorf("%w: the Authorization header is not Bearer <token>", mcp.ErrInvalidToken)
)

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header (RFC 6750 §2.1: the scheme in any case, one space, a token of
// b64token characters, at most 16 KiB). More than one Authorization header
// is malformed.
func BearerToken(h http.Header) (string, error) {
	scheme, tok, err := authorization(h)
	if err == nil && scheme != schemeBearer {
		return "", ErrMalformedHeader
	}
	return tok, err
}

// Authorization schemes of access tokens.
const (
	schemeBearer = "bearer" // RFC 6750
	schemeDPoP   = "dpop"   // RFC 9449 §7.1
)

// authorization returns the scheme (lower case) and token of an
// Authorization header that is Bearer or DPoP followed by one space and a
// token68 of at most 16 KiB.
func authorization(h http.Header) (string, string, error) {
	vals := h.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", "", ErrNoToken
	case 1:
	default:
		return "", "", ErrMalformedHeader
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	scheme = strings.ToLower(scheme)
	if !ok || (scheme != schemeBearer && scheme != schemeDPoP) || tok == "" || len(tok) > maxTokenLen {
		return "", "", ErrMalformedHeader
	}
	if !isToken68(tok) {
		return "", "", ErrMalformedHeader
	}
	return scheme, tok, nil
}

// isToken68 reports whether tok is an RFC 7235 token68: letters, digits
// and -._~+/ followed by any number of '=' (not '=' alone).
func isToken68(tok string) bool {
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
			return false
		}
	}
	return !trail // only '=' is no token
}

func describeBearerError(err error) string {
	if errors.Is(err, ErrNoToken) {
		return ""
	}
	return "the Authorization header must be Bearer (or DPoP) followed by one access token"
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
