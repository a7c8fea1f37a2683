package providers

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/securecookie"
	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	claimpath "github.com/mcpchain/mcp/internal/claims"
	"github.com/mcpchain/mcp/resourceserver"
)

// Config is what every provider takes (seed §2.13). BaseURL, ClientID and
// ClientSecret are required.
type Config struct {
	// BaseURL is where the MCP server is reachable ("https://mcp.example.com").
	// It is the issuer of our tokens; the upstream callback is
	// {BaseURL}/oauth/callback.
	BaseURL string
	// MCPPath is the path of the MCP endpoint; BaseURL+MCPPath is the
	// resource our tokens are minted for (their aud). Default: /mcp.
	MCPPath string
	// ClientID and ClientSecret are the credentials the upstream provider
	// issued to this server.
	ClientID     string
	ClientSecret string
	// Scopes requested upstream and offered to MCP clients. Default: per
	// provider.
	Scopes []string
	// DisableConsent skips the consent page (consentRequired: false). It
	// is refused unless every redirect URI pattern is loopback http or an
	// exact https host.
	DisableConsent bool
	// AllowedRedirectURIPatterns restrict the redirect URIs clients may
	// register. Default: DefaultRedirectURIPatterns().
	AllowedRedirectURIPatterns []string
	// EncryptionKey (at least 32 bytes) encrypts the upstream tokens at
	// rest. Default: generated per process.
	EncryptionKey string
	// DisableEncryption stores upstream tokens in plain text
	// (encryptionKey: false).
	DisableEncryption bool
	// JWTSigningKey (at least 32 bytes) signs our access tokens and the
	// consent cookies. Default: generated per process.
	JWTSigningKey string
	// PreviousJWTSigningKeys (each at least 32 bytes) still verify the
	// access tokens they signed, found by the token's kid: to rotate,
	// make the current key the first previous one, set a new current
	// key, and drop the old one after AccessTokenTTL.
	PreviousJWTSigningKeys []string
	// AllowInsecureHTTP accepts an http:// BaseURL on a host other than
	// loopback (a development setup behind nothing). Without it such a
	// BaseURL is refused: the consent cookies would lose Secure and the
	// __Host- prefix, and codes and tokens would cross the network in
	// clear.
	AllowInsecureHTTP bool
	// TokenStorage holds the proxy's state. Default: a MemoryStorage the
	// proxy closes on Close. Shared storage needs explicit keys.
	TokenStorage TokenStorage
	// AccessTokenTTL is the lifetime of our access tokens. Default: 1 h.
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is the (sliding) lifetime of our refresh tokens.
	// Default: 30 days.
	RefreshTokenTTL time.Duration
	// MaxLoginLifetime is the absolute lifetime of a login: however often
	// its refresh token is used, the user must sign in again at the
	// upstream provider this long after they did. Default:
	// DefaultMaxLoginLifetime.
	MaxLoginLifetime time.Duration
	// MaxLoginsPerUser bounds the live logins (grants, each with its
	// refresh token) of one user, by the upstream subject: a new login
	// beyond it revokes the user's oldest. Without it, a user whose
	// provider approves again without asking could fill the storage with
	// a login a second. Default: DefaultMaxLoginsPerUser; negative: no
	// bound.
	MaxLoginsPerUser int
	// ClientTTL is how long a client registration that has been used
	// (tokens were issued to it) lives after its last use: each use
	// slides it. Default: DefaultClientTTL.
	ClientTTL time.Duration
	// UnusedClientTTL is how long a registration lives before its first
	// use; one never used is dropped then, so anonymous registrations do
	// not pile up. Default: DefaultUnusedClientTTL.
	UnusedClientTTL time.Duration
	// RegisterRateLimit and AuthorizeRateLimit limit, per client address,
	// the endpoints anyone may call without logging in: registration and
	// the start of an authorization. Defaults:
	// DefaultRegisterRateLimit, DefaultAuthorizeRateLimit.
	RegisterRateLimit  RateLimit
	AuthorizeRateLimit RateLimit
	// RefreshRateLimit limits the refreshes of each login (per instance):
	// every refresh leaves a record of the token it spent for a few
	// minutes, so a client refreshing in a loop would fill the storage.
	// Default: DefaultRefreshRateLimit.
	RefreshRateLimit RateLimit
	// ClientAddress names the client a request counts against for the
	// rate limits ("" exempts it). Default: ClientAddress (the remote
	// address; behind a reverse proxy, read the address it forwards).
	ClientAddress func(*http.Request) string
	// ClientMetadataDocuments configures clients identified by the URL of
	// their metadata document instead of a registration (on by default;
	// see [ClientMetadataDocuments] for the guards of the fetch).
	ClientMetadataDocuments ClientMetadataDocuments
	// RoleClaims are the paths of the user's claims (the verified ID
	// token's, or the user API's) whose strings are the user's roles
	// (OAuthSession.Roles, for access.Roles): "groups", "roles",
	// "realm_access.roles", a quoted namespaced claim
	// ("\"https://mcp.example.com/roles\""); dots separate the members of
	// nested objects. A string is one role, a list gives its strings.
	// Map only claims the provider's administrators control. Default:
	// none for the generic, consumer and code host providers; roles and
	// groups for the enterprise directory. The presets of package idp set
	// it.
	RoleClaims []string
	// EnterpriseAuth, when set, accepts identity assertion grants
	// (ID-JAG) of trusted enterprise IdPs at the token endpoint
	// (enterprise-managed authorization, SEP-990; see [EnterpriseAuth]).
	EnterpriseAuth *EnterpriseAuth
	// HTTPClient makes the upstream calls. Default: a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	// Logger receives diagnostics (never token values). Default: slog.Default().
	Logger *slog.Logger
}

// Lifetimes of the short-lived records.
const (
	transactionTTL = 10 * time.Minute
	codeTTL        = 5 * time.Minute
	refreshLockTTL = 30 * time.Second
	maxFormBytes   = 64 << 10
	maxRedirects   = 10
	maxState       = 1024 // bytes of a client's state, stored for the transaction
)

// Default lifetimes of client registrations (Config.ClientTTL,
// Config.UnusedClientTTL).
const (
	DefaultClientTTL       = 30 * 24 * time.Hour
	DefaultUnusedClientTTL = 24 * time.Hour
)

// DefaultMaxLoginLifetime is the default of Config.MaxLoginLifetime.
const DefaultMaxLoginLifetime = 30 * 24 * time.Hour

// Proxy is the OAuth authorization server facade in front of an upstream
// identity provider. MCP clients register with it (RFC 7591), log in
// through it (authorization code + PKCE), and get its own short-lived JWT
// access tokens and rotating refresh tokens; the upstream tokens stay
// here, encrypted. It implements mcp.AuthProvider and
// discovery.MetadataProvider: set it as mcp.Options.Auth.
type Proxy struct {
	cfg      Config
	up       Upstream
	log      *slog.Logger
	issuer   string
	basePath string
	resource string
	origin   string
	store    TokenStorage
	ownStore bool
	seal     sealer
	jwt      *jwtCodec
	cookies  *securecookie.SecureCookie
	users    *securecookie.SecureCookie // browser sign-ins (signin.go)
	secure   bool
	patterns []redirectPattern
	client   *http.Client
	now      func() time.Time
	regLim   *addrLimiter
	authLim  *addrLimiter
	rtLim    *addrLimiter                       // refreshes per grant
	rtMACs   [][]byte                           // keys of refresh tokens' MACs: the current first, then the previous ones
	cimd     *cimdFetcher                       // nil: client ID metadata documents are off
	ea       *enterpriseAS                      // nil: no EnterpriseAuth
	server   atomic.Pointer[mcp.Implementation] // the MCP server's identity, for the pages (serverinfo.go)
	roles    []claimpath.Path                   // Config.RoleClaims, parsed
}

// NewProxy validates cfg and returns a proxy in front of up. The
// providers' constructors call it; use it directly for your own Upstream.
func NewProxy(cfg Config, up Upstream) (*Proxy, error) {
	if up == nil {
		return nil, errors.New("providers: no upstream provider")
	}
	base, err := checkBaseURL(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.ClientID == "" {
		return nil, errors.New("providers: ClientID is required (the client id the upstream provider issued)")
	}
	roles, err := claimpath.ParsePaths(cfg.RoleClaims)
	if err != nil {
		return nil, fmt.Errorf("providers: RoleClaims: %w", err)
	}
	if err := cfg.fillDefaults(); err != nil {
		return nil, err
	}
	p := &Proxy{cfg: cfg, up: up, log: cfg.Logger.With("component", "oauth-proxy", "provider", up.Name()),
		client: cfg.HTTPClient, now: time.Now, secure: base.Scheme == "https", roles: roles}
	p.regLim = newAddrLimiter(cfg.RegisterRateLimit, DefaultRegisterRateLimit, cfg.ClientAddress, time.Now)
	p.authLim = newAddrLimiter(cfg.AuthorizeRateLimit, DefaultAuthorizeRateLimit, cfg.ClientAddress, time.Now)
	p.rtLim = newAddrLimiter(cfg.RefreshRateLimit, DefaultRefreshRateLimit, nil, time.Now)
	if !cfg.ClientMetadataDocuments.Disabled {
		p.cimd = newCIMDFetcher(cfg.ClientMetadataDocuments, func() time.Time { return p.now() })
	}
	if p.patterns, err = redirectPatterns(cfg); err != nil {
		return nil, err
	}

	p.issuer = base.String()
	p.basePath = strings.TrimSuffix(base.Path, "/")
	p.resource = p.issuer + cfg.MCPPath
	p.origin = base.Scheme + "://" + base.Host

	p.store = cfg.TokenStorage
	if p.store == nil {
		p.store, p.ownStore = NewMemoryStorage(nil), true
	}
	if err := p.initKeys(); err != nil {
		return nil, p.fail(err)
	}
	if cfg.EnterpriseAuth != nil {
		if p.ea, err = p.newEnterpriseAS(cfg.EnterpriseAuth); err != nil {
			return nil, p.fail(err)
		}
	}
	return p, nil
}

// checkBaseURL parses cfg.BaseURL: an absolute http(s) URL without query
// or fragment, https unless the host is loopback or AllowInsecureHTTP.
func checkBaseURL(cfg Config) (*url.URL, error) {
	base, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/"))
	switch {
	case cfg.BaseURL == "":
		return nil, errors.New("providers: BaseURL is required (where the MCP server is reachable)")
	case err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" || base.Fragment != "":
		return nil, fmt.Errorf("providers: BaseURL %q must be an absolute http(s) URL without query or fragment", cfg.BaseURL)
	case base.Scheme == "http" && !isLoopbackHost(strings.ToLower(base.Hostname())) && !cfg.AllowInsecureHTTP:
		return nil, fmt.Errorf("providers: BaseURL %q is http on a host other than loopback: serve https "+
			"(a reverse proxy that terminates TLS is fine: give its https URL), or set AllowInsecureHTTP for a development setup", cfg.BaseURL)
	}
	return base, nil
}

// fillDefaults sets the defaults of the fields left zero and refuses an
// MCPPath that is not a path.
func (cfg *Config) fillDefaults() error {
	if cfg.MCPPath == "" {
		cfg.MCPPath = "/mcp"
	}
	if !strings.HasPrefix(cfg.MCPPath, "/") {
		return fmt.Errorf("providers: MCPPath %q must start with /", cfg.MCPPath)
	}
	positive := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	positive(&cfg.AccessTokenTTL, time.Hour)
	positive(&cfg.RefreshTokenTTL, 30*24*time.Hour)
	positive(&cfg.MaxLoginLifetime, DefaultMaxLoginLifetime)
	positive(&cfg.ClientTTL, DefaultClientTTL)
	positive(&cfg.UnusedClientTTL, DefaultUnusedClientTTL)
	if cfg.MaxLoginsPerUser == 0 {
		cfg.MaxLoginsPerUser = DefaultMaxLoginsPerUser
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	// The proxy keeps its own copy: a caller changing its slice later
	// must not widen what clients may register.
	cfg.AllowedRedirectURIPatterns = slices.Clone(cfg.AllowedRedirectURIPatterns)
	if len(cfg.AllowedRedirectURIPatterns) == 0 {
		cfg.AllowedRedirectURIPatterns = DefaultRedirectURIPatterns()
	}
	return nil
}

// redirectPatterns parses the allowed redirect URI patterns, refusing
// DisableConsent with a pattern that would let a stranger's client
// receive a code no user approved.
func redirectPatterns(cfg Config) ([]redirectPattern, error) {
	var patterns []redirectPattern
	for _, s := range cfg.AllowedRedirectURIPatterns {
		pat, err := parseRedirectPattern(s)
		if err != nil {
			return nil, fmt.Errorf("providers: %w", err)
		}
		if cfg.DisableConsent && !pat.consentMayBeOff() {
			return nil, fmt.Errorf("providers: consent cannot be turned off while the redirect URI pattern %q is allowed: "+
				"consent may be off only when every pattern is loopback http (http://localhost:*) or an exact https host "+
				"(https://app.example/cb); a wildcard host, another http host or a custom scheme lets a stranger's client "+
				"receive a code for a user who never approved it", s)
		}
		patterns = append(patterns, pat)
	}
	return patterns, nil
}

// initKeys derives the proxy's keys from its secrets: the JWT signing
// key (and the previous ones still accepted), the refresh-token MACs,
// the cookie keys and the storage encryption key.
func (p *Proxy) initKeys() error {
	cfg := p.cfg
	_, memory := p.store.(*MemoryStorage)
	jwtKey, err := p.secret("JWTSigningKey", cfg.JWTSigningKey, memory)
	if err != nil {
		return err
	}
	var previous [][]byte
	for i, k := range cfg.PreviousJWTSigningKeys {
		if len(k) < 32 {
			return fmt.Errorf("providers: PreviousJWTSigningKeys[%d] must be at least 32 bytes (it is %d)", i, len(k))
		}
		previous = append(previous, deriveKey([]byte(k), "mcpchain/oauth/jwt/v1"))
		p.rtMACs = append(p.rtMACs, deriveKey([]byte(k), refreshMACInfo))
	}
	p.rtMACs = append([][]byte{deriveKey(jwtKey, refreshMACInfo)}, p.rtMACs...)
	if p.jwt, err = newJWTCodec(deriveKey(jwtKey, "mcpchain/oauth/jwt/v1"), p.issuer, p.resource, previous...); err != nil {
		return err
	}
	p.cookies = securecookie.New(deriveKey(jwtKey, "mcpchain/oauth/cookie-hash/v1"), deriveKey(jwtKey, "mcpchain/oauth/cookie-block/v1"))
	p.cookies.MaxAge(int(transactionTTL / time.Second))
	p.users = newUserCookies(deriveKey(jwtKey, "mcpchain/oauth/user-hash/v1"), deriveKey(jwtKey, "mcpchain/oauth/user-block/v1"))
	var storeKey []byte
	if !cfg.DisableEncryption {
		enc, err := p.secret("EncryptionKey", cfg.EncryptionKey, memory)
		if err != nil {
			return err
		}
		storeKey = deriveKey(enc, "mcpchain/oauth/storage/v1")
	}
	p.seal, err = newSealer(storeKey)
	return err
}

func (p *Proxy) fail(err error) error {
	if p.ownStore {
		_ = p.store.Close()
	}
	return err
}

// secret returns the configured key, or a random one (with a warning)
// when the storage is this process's own memory.
func (p *Proxy) secret(name, v string, memory bool) ([]byte, error) {
	if v != "" {
		if len(v) < 32 {
			return nil, fmt.Errorf("providers: %s must be at least 32 bytes (it is %d); generate one with: openssl rand -base64 32", name, len(v))
		}
		return []byte(v), nil
	}
	if !memory {
		return nil, fmt.Errorf("providers: %s must be set when TokenStorage is shared: a generated key differs per process, "+
			"so tokens and grants written by one instance could not be read by another", name)
	}
	p.log.Warn("no " + name + " configured; using a random one: logins will not survive a restart")
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k, nil
}

// Close releases the default storage (if the proxy made it).
func (p *Proxy) Close() error {
	if p.ownStore {
		return p.store.Close()
	}
	return nil
}

// Issuer is our authorization server's identifier (BaseURL).
func (p *Proxy) Issuer() string { return p.issuer }

// Resource is the MCP resource our tokens are minted for (BaseURL+MCPPath).
func (p *Proxy) Resource() string { return p.resource }

// Storage is the proxy's token storage.
func (p *Proxy) Storage() TokenStorage { return p.store }

// Endpoint paths, relative to BaseURL.
const (
	RegisterPath  = "/oauth/register"
	AuthorizePath = "/oauth/authorize"
	ConsentPath   = "/oauth/consent"
	CallbackPath  = "/oauth/callback"
	TokenPath     = "/oauth/token"
	RevokePath    = "/oauth/revoke"
)

func (p *Proxy) scopesSupported() []string { return p.cfg.Scopes }

// OAuthMetadata implements discovery.MetadataProvider: the RFC 8414 and
// RFC 9728 documents describing this proxy and the MCP resource.
func (p *Proxy) OAuthMetadata() *discovery.Options {
	authMethods := []string{"none", "client_secret_basic", "client_secret_post"}
	grants := []string{"authorization_code", "refresh_token"}
	if p.ea != nil {
		grants = append(grants, resourceserver.JWTBearerGrant)
	}
	return &discovery.Options{
		Enabled: true,
		AuthorizationServer: &discovery.AuthorizationServerMetadata{
			Issuer:                                     p.issuer,
			AuthorizationEndpoint:                      p.issuer + AuthorizePath,
			TokenEndpoint:                              p.issuer + TokenPath,
			RegistrationEndpoint:                       p.issuer + RegisterPath,
			RevocationEndpoint:                         p.issuer + RevokePath,
			ResponseTypesSupported:                     []string{"code"},
			ResponseModesSupported:                     []string{"query"},
			GrantTypesSupported:                        grants,
			ScopesSupported:                            p.scopesSupported(),
			CodeChallengeMethodsSupported:              []string{"S256"},
			TokenEndpointAuthMethodsSupported:          authMethods,
			RevocationEndpointAuthMethodsSupported:     authMethods,
			AuthorizationResponseIssParameterSupported: true,
			ClientIDMetadataDocumentSupported:          p.cimd != nil,
		},
		ProtectedResource: &discovery.ProtectedResourceMetadata{
			Resource:               p.resource,
			AuthorizationServers:   []string{p.issuer},
			ScopesSupported:        p.scopesSupported(),
			BearerMethodsSupported: []string{"header"},
		},
	}
}

// Mount implements mcp.AuthProvider: it registers the OAuth endpoints and
// the discovery documents on mux (paths under BaseURL's path).
func (p *Proxy) Mount(mux *http.ServeMux) {
	api := corsAPI
	mux.Handle(p.basePath+RegisterPath, api(http.HandlerFunc(p.handleRegister)))
	mux.Handle("GET "+p.basePath+AuthorizePath, page(http.HandlerFunc(p.handleAuthorize)))
	mux.Handle(p.basePath+ConsentPath, page(http.HandlerFunc(p.handleConsent)))
	mux.Handle("GET "+p.basePath+CallbackPath, page(http.HandlerFunc(p.handleCallback)))
	mux.Handle(p.basePath+TokenPath, api(http.HandlerFunc(p.handleToken)))
	mux.Handle(p.basePath+RevokePath, api(http.HandlerFunc(p.handleRevoke)))
	discovery.Mount(mux, p.OAuthMetadata())
}

// VerifyRequest implements mcp.AuthProvider: it verifies our access token
// in the Authorization header (never a query parameter) and returns the
// provider's session. Failures wrap mcp.ErrUnauthorized.
func (p *Proxy) VerifyRequest(r *http.Request) (any, error) {
	raw, ok := bearer(r)
	if !ok {
		return nil, fmt.Errorf("%w: no bearer token in the Authorization header", mcp.ErrUnauthorized)
	}
	c, err := p.jwt.verify(raw, p.now())
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	if _, err := p.store.Get(ctx, "revoked_jti:"+c.ID); err == nil {
		return nil, fmt.Errorf("%w: access token was revoked", mcp.ErrUnauthorized)
	} else if !errors.Is(err, ErrNotFound) {
		return nil, storageUnavailable(err)
	}
	g, err := p.loadGrant(ctx, c.GrantID)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: the grant behind this token was revoked", mcp.ErrUnauthorized)
	} else if err != nil {
		return nil, err
	}
	if g.ClientID != c.ClientID || g.Identity.Subject != c.Subject {
		return nil, fmt.Errorf("%w: access token does not match its grant", mcp.ErrUnauthorized)
	}
	tok, err := p.freshUpstream(ctx, c.GrantID, g)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: the grant behind this token was revoked", mcp.ErrUnauthorized)
	} else if err != nil {
		return nil, err
	}
	base := OAuthSession{
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, ExpiresAt: tok.Expiry,
		IDToken: g.IDToken, Scopes: c.Scopes(), Claims: g.Identity.Claims,
		UserID: g.Identity.Subject, ClientID: c.ClientID, Roles: claimpath.Roles(g.Identity.Claims, p.roles),
	}
	if g.IdP != "" {
		// An enterprise IdP's user (an ID-JAG), not the upstream's: the
		// plain session, with the assertion's claims.
		return &base, nil
	}
	return p.up.NewSession(base, &g.Identity), nil
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}

// grant is what a login leaves behind: the upstream tokens and identity,
// stored encrypted under grant:{id}. A grant is also a refresh-token
// family: deleting it revokes every token issued from it.
type grant struct {
	ClientID string        `json:"client_id"`
	Scopes   []string      `json:"scopes"`
	Token    *oauth2.Token `json:"token"`
	IDToken  string        `json:"id_token,omitempty"`
	Identity Identity      `json:"identity"`
	// LoginAt is when the user signed in upstream (Unix seconds): the
	// login ends MaxLoginLifetime later.
	LoginAt int64 `json:"login_at,omitempty"`
	// IdP is the enterprise IdP of a grant made for an ID-JAG
	// (enterprise.go); "" for an upstream login.
	IdP string `json:"idp,omitempty"`
}

// ttl is how long g's records may live: RefreshTokenTTL, cut to what is
// left of the login's absolute lifetime.
func (p *Proxy) ttl(g *grant) time.Duration {
	d := p.cfg.RefreshTokenTTL
	if g.LoginAt != 0 {
		d = min(d, time.Unix(g.LoginAt, 0).Add(p.cfg.MaxLoginLifetime).Sub(p.now()))
	}
	return max(d, time.Second)
}

// storageUnavailable is the error of a token check whose storage did not
// answer (Redis down): it wraps mcp.ErrAuthUnavailable, so the request is
// refused with 503 and Retry-After, a failure a client retries, never
// admitted and never told its token is bad.
func storageUnavailable(err error) error {
	return fmt.Errorf("%w: the token storage: %w", mcp.ErrAuthUnavailable, err)
}

// errLoginOver is a login past its absolute lifetime.
var errLoginOver = errors.New("the login is older than its maximum lifetime; sign in again")

// errBusy is an upstream refresh already under way for the grant.
var errBusy = errors.New("the login is being refreshed by another request")

func (p *Proxy) loadGrant(ctx context.Context, id string) (*grant, error) {
	key := "grant:" + id
	b, err := p.store.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, storageUnavailable(err)
	}
	plain, err := p.seal.open(key, b)
	if err != nil {
		return nil, err
	}
	var g grant
	if err := json.Unmarshal(plain, &g); err != nil {
		return nil, fmt.Errorf("providers: stored grant does not decode: %w", err)
	}
	return &g, nil
}

// saveGrant stores g: a new grant (create), or an existing one written
// back only if it is still there (Update), so that a login revoked while
// a request held it stays revoked; that case is ErrNotFound.
func (p *Proxy) saveGrant(ctx context.Context, id string, g *grant, create bool) error {
	key := "grant:" + id
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	if create {
		return p.store.Put(ctx, key, p.seal.seal(key, b), p.ttl(g))
	}
	ok, err := p.store.Update(ctx, key, p.seal.seal(key, b), p.ttl(g))
	if err == nil && !ok {
		err = fmt.Errorf("%w: grant %s was revoked", ErrNotFound, id)
	}
	return err
}

// freshUpstream returns the grant's upstream token for a request,
// refreshing it upstream first when it has expired and can be refreshed.
// A failed refresh leaves the old token, except when the provider ended
// the login (ErrUpstreamRevoked: the grant is deleted) or the grant was
// revoked meanwhile (ErrNotFound).
func (p *Proxy) freshUpstream(ctx context.Context, gid string, g *grant) (*oauth2.Token, error) {
	tok := g.Token
	if tok == nil {
		return &oauth2.Token{}, nil
	}
	if tok.Valid() || tok.RefreshToken == "" {
		return tok, nil
	}
	nt, err := p.refreshUpstream(ctx, gid, g)
	switch {
	case errors.Is(err, ErrUpstreamRevoked), errors.Is(err, ErrNotFound):
		return nil, err
	case err != nil:
		return tok, nil
	}
	return nt, nil
}

// refreshUpstream refreshes the grant's upstream token and saves it. One
// request refreshes a grant at a time (a lock in the storage; errBusy for
// the others). When the provider answers invalid_grant, the grant is
// deleted and the error wraps ErrUpstreamRevoked.
func (p *Proxy) refreshUpstream(ctx context.Context, gid string, g *grant) (*oauth2.Token, error) {
	got, err := p.store.PutIfAbsent(ctx, "lock:refresh:"+gid, []byte("1"), refreshLockTTL)
	if err != nil {
		return nil, err
	}
	if !got {
		return nil, errBusy
	}
	defer func() { _ = p.store.Delete(context.WithoutCancel(ctx), "lock:refresh:"+gid) }()
	conf, err := p.up.OAuth2Config(p.upstreamCtx(ctx))
	if err != nil {
		p.log.Warn("upstream refresh: no config", "err", err)
		return nil, err
	}
	nt, err := conf.TokenSource(p.upstreamCtx(ctx), g.Token).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		p.log.Warn("the upstream provider refused the login's refresh token; the login is revoked", "sub", g.Identity.Subject)
		if err := p.store.Delete(ctx, "grant:"+gid); err != nil {
			p.log.Error("revoking a login the provider ended", "err", err)
		}
		return nil, fmt.Errorf("%w: refresh answered invalid_grant", ErrUpstreamRevoked)
	}
	if err != nil {
		p.log.Warn("upstream token refresh failed", "err", err)
		return nil, fmt.Errorf("%w: token refresh: %v", ErrUpstream, err)
	}
	g.Token = nt
	if err := p.saveGrant(ctx, gid, g, false); errors.Is(err, ErrNotFound) {
		return nil, err
	} else if err != nil {
		p.log.Warn("saving refreshed upstream token", "err", err)
	}
	return nt, nil
}

// checkLogin decides, before a refresh of ours, whether the login may go
// on: within its absolute lifetime, with an upstream token that is valid
// (refreshed upstream first when it has expired) and, for providers whose
// tokens are not refreshed, a user the provider's user API still knows.
// An error wrapping ErrUpstreamRevoked or errLoginOver ends the login; any
// other is transient.
func (p *Proxy) checkLogin(ctx context.Context, gid string, g *grant) error {
	if g.LoginAt != 0 && !p.now().Before(time.Unix(g.LoginAt, 0).Add(p.cfg.MaxLoginLifetime)) {
		return errLoginOver
	}
	tok := g.Token
	switch {
	case tok == nil:
		return nil
	case !tok.Valid() && tok.RefreshToken == "":
		return fmt.Errorf("%w: the provider's token expired and cannot be refreshed", ErrUpstreamRevoked)
	case !tok.Valid():
		_, err := p.refreshUpstream(ctx, gid, g)
		return err
	case tok.RefreshToken == "":
		if uc, ok := p.up.(UserChecker); ok {
			return uc.CheckUser(p.upstreamCtx(ctx), tok, &g.Identity)
		}
	}
	return nil
}

func (p *Proxy) upstreamCtx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, p.client)
}

func (p *Proxy) callbackURL() string { return p.issuer + CallbackPath }

// allowedScopes checks a requested scope string against the supported
// scopes and returns them without repeats; empty means all of them.
func (p *Proxy) allowedScopes(req string) ([]string, bool) {
	want := strings.Fields(req)
	if len(want) == 0 {
		return slices.Clone(p.cfg.Scopes), true
	}
	out := make([]string, 0, len(want))
	for _, s := range want {
		if !slices.Contains(p.cfg.Scopes, s) {
			return nil, false
		}
		if !slices.Contains(out, s) {
			out = append(out, s) // a repeat is stored once
		}
	}
	return out, true
}

// resourceOK accepts RFC 8707 resource values naming this server: the MCP
// resource or its origin/BaseURL, with or without a trailing slash.
func (p *Proxy) resourceOK(vals []string) bool {
	for _, v := range vals {
		v = strings.TrimSuffix(v, "/")
		if v != p.resource && v != p.issuer && v != p.origin {
			return false
		}
	}
	return true
}
