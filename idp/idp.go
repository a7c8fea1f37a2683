// Package idp holds presets for the identity providers teams run: for
// each, the issuer and endpoints its documentation gives, the default
// scopes, and the claims its roles and groups are in. A [Preset] is a
// thin configuration of two things of this module: the generic OpenID
// Connect provider of package providers (the OAuth proxy signs users in
// at the provider: [Preset.Provider]) and, where the provider's access
// tokens can be checked by a resource server, package resourceserver
// (clients sign in at the provider itself: [Preset.ResourceServer]).
//
//	okta := idp.Okta("acme.okta.com", "default")
//	v, err := okta.ResourceServer(ctx, resourceserver.Config{
//		Resource: "https://mcp.example.com/mcp", Audiences: []string{"api://default"}})
//
// Microsoft Entra ID and GitHub have providers of their own in package
// providers (NewEnterpriseDirectoryProvider, whose RoleClaims default to
// roles and groups, and NewCodeHostProvider); [Entra] is the
// resource-server preset of the former.
//
// None of these providers can be run here: each preset is tested against
// a discovery document and token shapes recorded from the provider's
// public documentation (testdata, each with its source URL), served by a
// local server standing in for the provider's host, through a real
// sign-in at the proxy and real JWT verification. docs/auth.md lists
// what each preset sets and what to configure at the provider.
package idp

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/resourceserver"
)

// Preset is one identity provider's configuration. The constructors of
// this package fill it; adjust a field (add a role claim, change the
// scopes) before calling Provider or ResourceServer.
type Preset struct {
	// Name names the provider in errors ("okta").
	Name string
	// Issuer is the provider's issuer identifier, exactly as its tokens
	// carry it in iss.
	Issuer string
	// AuthorizationEndpoint, TokenEndpoint and JWKSURL are the
	// provider's, as its discovery document names them.
	AuthorizationEndpoint string
	TokenEndpoint         string
	JWKSURL               string
	// Scopes are asked of the provider by the proxy (and offered to MCP
	// clients) when providers.Config.Scopes is empty; offline_access
	// where the provider issues refresh tokens only for it.
	Scopes []string
	// RoleClaims are the claims the provider puts roles and groups in:
	// providers.Config.RoleClaims and resourceserver.Config.RoleClaims
	// when those are nil.
	RoleClaims []string

	authMethod  string                     // the token endpoint's client authentication
	authParams  map[string]string          // extra authorization parameters
	checkClaims func(map[string]any) error // refuses a sign-in (Google Workspace's hd)
	noRS        string                     // why ResourceServer cannot be: the tokens cannot be checked
	audiences   []string                   // resourceserver.Config.Audiences when unset: a provider's fixed aud
	noProxy     string                     // why Provider is another package's
	err         error                      // a bad constructor argument
}

// Provider returns the OAuth proxy in front of this provider: the
// generic OpenID Connect provider of package providers with the preset's
// endpoints, issuer, keys and client authentication, and, when cfg
// leaves them unset, its Scopes and RoleClaims. cfg carries the rest
// (BaseURL, ClientID, ClientSecret, keys, storage). Sessions are
// *providers.OAuthSession whose UserID is "generic:" and the ID token's
// sub, and whose Roles come from the ID token's claims.
func (p Preset) Provider(cfg providers.Config) (*providers.OAuthProvider, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.noProxy != "" {
		return nil, fmt.Errorf("idp: %s: %s", p.Name, p.noProxy)
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = slices.Clone(p.Scopes)
	}
	if cfg.RoleClaims == nil {
		cfg.RoleClaims = slices.Clone(p.RoleClaims)
	}
	return providers.NewOAuthProvider(providers.OAuthProviderConfig{Config: cfg,
		AuthorizationEndpoint: p.AuthorizationEndpoint, TokenEndpoint: p.TokenEndpoint,
		TokenEndpointAuthMethod: p.authMethod, Issuer: p.Issuer, JWKSURL: p.JWKSURL,
		AuthParams: p.authParams, CheckClaims: p.checkClaims})
}

// ResourceServer returns the verifier of this provider's access tokens
// (package resourceserver): cfg with the preset's Issuer and JWKSURL
// and, when nil, its RoleClaims (and Audiences where the provider fixes
// the audience). cfg carries the rest: Resource (required), Audiences
// where the provider puts an API identifier in aud, RequiredScopes. It
// fails for a provider whose access tokens a resource server cannot
// check (opaque tokens without RFC 7662 introspection, or no aud), and
// when cfg names another issuer.
func (p Preset) ResourceServer(ctx context.Context, cfg resourceserver.Config) (*resourceserver.Verifier, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.noRS != "" {
		return nil, fmt.Errorf("idp: %s: no resource-server mode: %s; use Provider", p.Name, p.noRS)
	}
	if cfg.Issuer != "" && cfg.Issuer != p.Issuer {
		return nil, fmt.Errorf("idp: %s: Config.Issuer %q is not the preset's %q", p.Name, cfg.Issuer, p.Issuer)
	}
	cfg.Issuer = p.Issuer
	if cfg.JWKSURL == "" && cfg.Introspection == nil {
		cfg.JWKSURL = p.JWKSURL
	}
	if cfg.RoleClaims == nil {
		cfg.RoleClaims = slices.Clone(p.RoleClaims)
	}
	if len(cfg.Audiences) == 0 {
		cfg.Audiences = slices.Clone(p.audiences)
	}
	return resourceserver.New(ctx, cfg)
}

// host checks that h is a bare host name (no scheme, path or port
// beyond host:port) for a constructor's argument named what.
func host(name, what, h string) error {
	u, err := url.Parse("https://" + h)
	if h == "" || err != nil || u.Host != h || strings.ContainsAny(h, "/?#@ ") {
		return fmt.Errorf("idp: %s: %s %q must be a host name, such as %s", name, what, h, examples[name])
	}
	return nil
}

// httpsBase checks that s is an absolute https URL without query or
// fragment and returns it without a trailing slash.
func httpsBase(name, what, s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("idp: %s: %s %q must be an https URL, such as %s", name, what, s, examples[name])
	}
	return strings.TrimSuffix(s, "/"), nil
}

var examples = map[string]string{
	"okta": "acme.okta.com", "auth0": "acme.us.auth0.com", "keycloak": "https://id.example.com",
	"cognito": "https://acme.auth.eu-central-1.amazoncognito.com", "authkit": "acme.authkit.app",
	"gitlab": "https://gitlab.com", "supabase": "https://abcdefghij.supabase.co",
}

// quoteClaim writes a claim name as a one-name claim path.
func quoteClaim(name string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
}
