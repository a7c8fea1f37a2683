package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/oauth2"
)

// ConsumerIdentityConfig configures [ConsumerIdentityProvider]. Every
// upstream URL can be overridden (tests point them at a local provider).
type ConsumerIdentityConfig struct {
	Config
	// IdPURL is the base of the authorization URL
	// ({IdPURL}/o/oauth2/v2/auth). Default: https://accounts.google.com.
	IdPURL string
	// TokenURL is the base of the token URL ({TokenURL}/token). Default:
	// https://oauth2.googleapis.com.
	TokenURL string
	// Issuer is the expected ID token issuer. Default:
	// https://accounts.google.com. When Issuer is set and IdPURL is not,
	// every endpoint is discovered at Issuer.
	Issuer string
	// JWKSURL holds the ID token keys. Default:
	// https://www.googleapis.com/oauth2/v3/certs.
	JWKSURL string
}

// ConsumerIdentityProvider signs users in with a consumer OpenID Connect
// identity provider. Default scopes: openid profile email. Sessions are
// *ConsumerIdentitySession (Email set).
type ConsumerIdentityProvider struct{ *Proxy }

type consumerUpstream struct{ *oidcUpstream }

// NewConsumerIdentityProvider returns the consumer identity provider.
func NewConsumerIdentityProvider(cfg ConsumerIdentityConfig) (*ConsumerIdentityProvider, error) {
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"openid", "profile", "email"}
	}
	o := &oidcUpstream{clientID: cfg.ClientID, clientSecret: cfg.ClientSecret, scopes: cfg.Scopes,
		style: oauth2.AuthStyleInParams, issuer: cfg.Issuer}
	if cfg.Issuer == "" || cfg.IdPURL != "" {
		o.issuer = or(cfg.Issuer, "https://accounts.google.com")
		o.authURL = strings.TrimSuffix(or(cfg.IdPURL, "https://accounts.google.com"), "/") + "/o/oauth2/v2/auth"
		o.tokenURL = strings.TrimSuffix(or(cfg.TokenURL, "https://oauth2.googleapis.com"), "/") + "/token"
		o.jwksURL = or(cfg.JWKSURL, "https://www.googleapis.com/oauth2/v3/certs")
	}
	p, err := NewProxy(cfg.Config, consumerUpstream{o})
	if err != nil {
		return nil, err
	}
	return &ConsumerIdentityProvider{p}, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (consumerUpstream) Name() string { return "consumer identity" }

func (u consumerUpstream) OAuth2Config(ctx context.Context) (*oauth2.Config, error) {
	return u.config(ctx)
}

// AuthCodeOptions asks for offline access (a refresh token) and the nonce.
func (u consumerUpstream) AuthCodeOptions(nonce string) []oauth2.AuthCodeOption {
	return append(u.authOptions(nonce), oauth2.AccessTypeOffline, oauth2.SetAuthURLParam("prompt", "consent"))
}

func (u consumerUpstream) Identify(ctx context.Context, tok *oauth2.Token, nonce string) (*Identity, error) {
	sub, claims, err := u.verify(ctx, tok, nonce)
	if err != nil {
		return nil, err
	}
	return consumerIdentity(sub, claims), nil
}

func consumerIdentity(sub string, claims map[string]any) *Identity {
	return &Identity{Subject: "consumer:" + sub, Email: verifiedEmail(claims), Claims: claims}
}

// verifiedEmail is the email claim when email_verified is true (or the
// string "true", which some providers send); a missing or any other
// email_verified leaves it out: an address the provider did not verify
// may belong to someone else.
func verifiedEmail(claims map[string]any) string {
	switch v := claims["email_verified"].(type) {
	case bool:
		if v {
			return str(claims, "email")
		}
	case string:
		if v == "true" {
			return str(claims, "email")
		}
	}
	return ""
}

func (consumerUpstream) NewSession(base OAuthSession, id *Identity) any {
	return &ConsumerIdentitySession{OAuthSession: base, Email: id.Email}
}

// CodeHostConfig configures [CodeHostProvider].
type CodeHostConfig struct {
	Config
	// IdPURL is the base of the authorization and token URLs
	// ({IdPURL}/login/oauth/authorize, …/access_token). Default:
	// https://github.com.
	IdPURL string
	// APIURL is the base of the user API ({APIURL}/user,
	// {APIURL}/user/emails). Default: https://api.github.com.
	APIURL string
}

// CodeHostProvider signs users in with a code host's OAuth 2.0 and
// identifies them with its user API. Default scopes: read:user
// user:email. Sessions are *CodeHostSession (Username set).
type CodeHostProvider struct{ *Proxy }

type codeHostUpstream struct {
	conf *oauth2.Config
	api  string
}

// NewCodeHostProvider returns the code host provider.
func NewCodeHostProvider(cfg CodeHostConfig) (*CodeHostProvider, error) {
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"read:user", "user:email"}
	}
	idp := strings.TrimSuffix(or(cfg.IdPURL, "https://github.com"), "/")
	u := &codeHostUpstream{api: strings.TrimSuffix(or(cfg.APIURL, "https://api.github.com"), "/"),
		conf: &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Scopes: cfg.Scopes,
			Endpoint: oauth2.Endpoint{AuthURL: idp + "/login/oauth/authorize", TokenURL: idp + "/login/oauth/access_token",
				AuthStyle: oauth2.AuthStyleInParams}}}
	p, err := NewProxy(cfg.Config, u)
	if err != nil {
		return nil, err
	}
	return &CodeHostProvider{p}, nil
}

func (*codeHostUpstream) Name() string { return "code host" }

func (u *codeHostUpstream) OAuth2Config(context.Context) (*oauth2.Config, error) { return u.conf, nil }

func (*codeHostUpstream) AuthCodeOptions(string) []oauth2.AuthCodeOption { return nil }

func (u *codeHostUpstream) Identify(ctx context.Context, tok *oauth2.Token, _ string) (*Identity, error) {
	c := u.conf.Client(ctx, tok)
	hdr := http.Header{"Accept": {"application/vnd.github+json"}, "X-Github-Api-Version": {"2022-11-28"}}
	user, err := getJSON(ctx, c, u.api+"/user", hdr)
	if err != nil {
		return nil, err
	}
	id, ok := user["id"].(float64)
	login := str(user, "login")
	if !ok || login == "" {
		return nil, fmt.Errorf("%w: the user API answered without id or login", ErrUpstream)
	}
	email := str(user, "email")
	if email == "" {
		var emails []struct {
			Email    string `json:"email"`
			Primary  bool   `json:"primary"`
			Verified bool   `json:"verified"`
		}
		if err := getJSONInto(ctx, c, u.api+"/user/emails", hdr, &emails); err == nil {
			for _, e := range emails {
				if e.Primary && e.Verified {
					email = e.Email
				}
			}
		}
	}
	if email != "" {
		user["email"] = email
	}
	return &Identity{Subject: fmt.Sprintf("codehost:%d", int64(id)), Username: login, Email: email, Claims: user}, nil
}

// CheckUser implements [UserChecker]: the code host's tokens never
// expire, so at each refresh of ours the user API is asked again.
func (u *codeHostUpstream) CheckUser(ctx context.Context, tok *oauth2.Token, id *Identity) error {
	hdr := http.Header{"Accept": {"application/vnd.github+json"}, "X-Github-Api-Version": {"2022-11-28"}}
	user, err := getJSON(ctx, u.conf.Client(ctx, tok), u.api+"/user", hdr)
	if err != nil {
		return err
	}
	if n, ok := user["id"].(float64); !ok || fmt.Sprintf("codehost:%d", int64(n)) != id.Subject {
		return fmt.Errorf("%w: the user API names another user", ErrUpstreamRevoked)
	}
	return nil
}

func (*codeHostUpstream) NewSession(base OAuthSession, id *Identity) any {
	return &CodeHostSession{OAuthSession: base, Username: id.Username}
}

// EnterpriseDirectoryConfig configures [EnterpriseDirectoryProvider].
type EnterpriseDirectoryConfig struct {
	Config
	// TenantID is a tenant GUID or one of common (default),
	// organizations, consumers.
	TenantID string
	// IdPURL is the authority. Default: https://login.microsoftonline.com.
	// Endpoints are {IdPURL}/{TenantID}/oauth2/v2.0/authorize and
	// …/token, keys {IdPURL}/{TenantID}/discovery/v2.0/keys.
	IdPURL string
	// AuthorizationEndpoint, TokenEndpoint and JWKSURL override the
	// derived URLs one by one.
	AuthorizationEndpoint string
	TokenEndpoint         string
	JWKSURL               string
	// AllowedTenants, when set, restricts a multi-tenant login to these
	// tenant ids. Set it with a multi-tenant TenantID: common (the
	// default) admits a user of any tenant, including one an attacker
	// creates.
	AllowedTenants []string
}

// EnterpriseDirectoryProvider signs users in with an enterprise directory
// (OpenID Connect, v2.0 endpoints). With a multi-tenant TenantID (common,
// organizations, consumers) the ID token's issuer names the user's own
// tenant; it is checked against the token's tid claim instead of a fixed
// value. Default scopes: openid profile email (offline_access is added
// upstream for a refresh token). Sessions are *EnterpriseDirectorySession
// (UPN set).
type EnterpriseDirectoryProvider struct{ *Proxy }

type enterpriseUpstream struct{ *oidcUpstream }

// consumersTenant is the fixed tenant id of personal accounts.
const consumersTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

var tenantGUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// NewEnterpriseDirectoryProvider returns the enterprise directory provider.
func NewEnterpriseDirectoryProvider(cfg EnterpriseDirectoryConfig) (*EnterpriseDirectoryProvider, error) {
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"openid", "profile", "email"}
	}
	tenant := or(cfg.TenantID, "common")
	multi := tenant == "common" || tenant == "organizations" || tenant == "consumers"
	if !multi && !tenantGUID.MatchString(tenant) && !strings.Contains(tenant, ".") {
		return nil, fmt.Errorf("providers: TenantID %q: want a tenant GUID, a verified domain, or common, organizations, consumers", tenant)
	}
	idp := strings.TrimSuffix(or(cfg.IdPURL, "https://login.microsoftonline.com"), "/")
	if cfg.RoleClaims == nil {
		// App roles and group object ids, as Entra puts them in ID tokens.
		cfg.RoleClaims = []string{"roles", "groups"}
	}
	upScopes := cfg.Scopes
	if !slices.Contains(upScopes, "offline_access") {
		upScopes = append(append([]string(nil), upScopes...), "offline_access")
	}
	o := &oidcUpstream{clientID: cfg.ClientID, clientSecret: cfg.ClientSecret, scopes: upScopes,
		style: oauth2.AuthStyleInParams, issuer: idp + "/" + tenant + "/v2.0",
		authURL:  or(cfg.AuthorizationEndpoint, idp+"/"+tenant+"/oauth2/v2.0/authorize"),
		tokenURL: or(cfg.TokenEndpoint, idp+"/"+tenant+"/oauth2/v2.0/token"),
		jwksURL:  or(cfg.JWKSURL, idp+"/"+tenant+"/discovery/v2.0/keys")}
	if multi {
		o.skipIssuerCheck = true
		allowed := cfg.AllowedTenants
		o.checkClaims = func(c map[string]any) error {
			return checkTenantIssuer(c, idp, tenant, allowed)
		}
	}
	p, err := NewProxy(cfg.Config, enterpriseUpstream{o})
	if err != nil {
		return nil, err
	}
	if multi && len(cfg.AllowedTenants) == 0 {
		p.log.Warn("multi-tenant login without AllowedTenants: a user of any tenant can sign in; "+
			"authorize on the session's UserID, or set AllowedTenants (OAUTH_ALLOWED_TENANTS)", "tenant", tenant)
	}
	return &EnterpriseDirectoryProvider{p}, nil
}

// checkTenantIssuer is the issuer check of a multi-tenant login, done by
// hand because the discovery document names no fixed issuer: tid must be
// a tenant GUID, iss must be {idp}/{tid}/v2.0, consumers must be the
// personal-accounts tenant, and tid must be allowed.
func checkTenantIssuer(c map[string]any, idp, tenant string, allowed []string) error {
	tid := str(c, "tid")
	if !tenantGUID.MatchString(tid) {
		return errors.New("ID token has no valid tid claim")
	}
	if iss := str(c, "iss"); iss != idp+"/"+tid+"/v2.0" {
		return fmt.Errorf("ID token issuer %q is not the issuer of its tenant %s", iss, tid)
	}
	if tenant == "consumers" && tid != consumersTenant {
		return fmt.Errorf("tenant %s is not the personal-accounts tenant", tid)
	}
	if tenant == "organizations" && tid == consumersTenant {
		return errors.New("personal accounts are not allowed (tenant organizations)")
	}
	if len(allowed) > 0 && !slices.Contains(allowed, tid) {
		return fmt.Errorf("tenant %s is not allowed", tid)
	}
	return nil
}

func (enterpriseUpstream) Name() string { return "enterprise directory" }

func (u enterpriseUpstream) OAuth2Config(ctx context.Context) (*oauth2.Config, error) {
	return u.config(ctx)
}

func (u enterpriseUpstream) AuthCodeOptions(nonce string) []oauth2.AuthCodeOption {
	return u.authOptions(nonce)
}

func (u enterpriseUpstream) Identify(ctx context.Context, tok *oauth2.Token, nonce string) (*Identity, error) {
	sub, claims, err := u.verify(ctx, tok, nonce)
	if err != nil {
		return nil, err
	}
	return enterpriseIdentity(sub, claims), nil
}

// enterpriseIdentity names the user by tid:oid, the stable id. The UPN
// comes only from the upn claim: preferred_username is chosen by the user
// (or a tenant admin elsewhere) and must not stand in for it (the
// "nOAuth" problem); neither is safe for authorization decisions.
func enterpriseIdentity(sub string, claims map[string]any) *Identity {
	subject := "enterprise:" + sub
	if tid, oid := str(claims, "tid"), str(claims, "oid"); tid != "" && oid != "" {
		subject = "enterprise:" + tid + ":" + oid
	}
	return &Identity{Subject: subject, UPN: str(claims, "upn"), Email: verifiedEmail(claims), Claims: claims}
}

func (enterpriseUpstream) NewSession(base OAuthSession, id *Identity) any {
	return &EnterpriseDirectorySession{OAuthSession: base, UPN: id.UPN}
}
