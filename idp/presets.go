package idp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Okta is an Okta custom authorization server (authServerID "default"
// for the one every org has): issuer https://{domain}/oauth2/{id}, roles
// from the groups claim (a claim the authorization server's admin adds:
// Security → API → Authorization Servers → Claims, value type Groups,
// in the ID token and the access token). Okta issues refresh tokens for
// offline_access only, so the scopes include it. Access tokens name the
// authorization server's audience (api://default by default) in aud: list
// it in resourceserver.Config.Audiences. The org authorization server
// (issuer https://{domain}) signs access tokens no resource server may
// verify: use a custom one.
func Okta(domain, authServerID string) Preset {
	p := Preset{Name: "okta", Scopes: []string{"openid", "profile", "email", "offline_access"},
		RoleClaims: []string{"groups"}, authMethod: "client_secret_basic"}
	if p.err = host("okta", "domain", domain); p.err != nil {
		return p
	}
	if authServerID == "" || strings.ContainsAny(authServerID, "/?#. ") {
		p.err = fmt.Errorf("idp: okta: authorization server id %q: want default or the id of a custom authorization server", authServerID)
		return p
	}
	p.Issuer = "https://" + domain + "/oauth2/" + authServerID
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = p.Issuer+"/v1/authorize", p.Issuer+"/v1/token", p.Issuer+"/v1/keys"
	return p
}

// Auth0 is an Auth0 tenant (domain acme.us.auth0.com, or a custom
// domain): issuer https://{domain}/ (with its trailing slash). Auth0
// puts roles in tokens only through an Action that sets a namespaced
// claim; namespace is that namespace, and the role claim is
// {namespace}/roles, as Auth0's documentation writes it
// (api.accessToken.setCustomClaim(`${namespace}/roles`, …) and the same
// for the ID token). An empty namespace maps no roles. Access tokens are
// JWTs only for an API: its identifier (the MCP resource URL is a good
// one) is the aud to list in resourceserver.Config.Audiences.
func Auth0(domain, namespace string) Preset {
	p := Preset{Name: "auth0", Scopes: []string{"openid", "profile", "email", "offline_access"}, authMethod: "client_secret_post"}
	if p.err = host("auth0", "domain", domain); p.err != nil {
		return p
	}
	if namespace != "" {
		p.RoleClaims = []string{quoteClaim(strings.TrimSuffix(namespace, "/") + "/roles")}
	}
	base := "https://" + domain
	p.Issuer = base + "/"
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = base+"/authorize", base+"/oauth/token", base+"/.well-known/jwks.json"
	return p
}

// Keycloak is a Keycloak realm at baseURL (the server's URL, without
// /realms): issuer {baseURL}/realms/{realm}, roles from
// realm_access.roles (the "roles" client scope's realm-role mapper; for
// the proxy, turn on "Add to ID token" in that mapper). Client roles
// are in resource_access.{client}.roles: add that path to RoleClaims.
// Access tokens carry aud only through an audience mapper: add one
// naming the MCP resource URL (or a client id) and list it in
// resourceserver.Config.Audiences.
func Keycloak(baseURL, realm string) Preset {
	p := Preset{Name: "keycloak", Scopes: []string{"openid", "profile", "email"},
		RoleClaims: []string{"realm_access.roles"}, authMethod: "client_secret_basic"}
	base, err := httpsBase("keycloak", "baseURL", baseURL)
	if p.err = err; err != nil {
		return p
	}
	if realm == "" || strings.ContainsAny(realm, "/?# ") {
		p.err = fmt.Errorf("idp: keycloak: realm %q: want a realm name", realm)
		return p
	}
	p.Issuer = base + "/realms/" + realm
	oidc := p.Issuer + "/protocol/openid-connect"
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = oidc+"/auth", oidc+"/token", oidc+"/certs"
	return p
}

var cognitoPool = regexp.MustCompile(`^([a-z]{2}(?:-[a-z]+)+-\d)_[0-9A-Za-z]+$`)

// Cognito is an Amazon Cognito user pool: userPoolID such as
// eu-central-1_AbCdEfGhI (its region comes first) and domain the pool's
// managed-login domain (https://acme.auth.eu-central-1.amazoncognito.com
// or a custom domain), which serves the OAuth endpoints while the
// issuer is https://cognito-idp.{region}.amazonaws.com/{userPoolID}.
// Roles from cognito:groups. Proxy only: Cognito's access tokens carry
// no aud claim (they name the app client in client_id), so a resource
// server cannot tell a token minted for this MCP server from one for any
// other API of the pool.
func Cognito(userPoolID, domain string) Preset {
	p := Preset{Name: "cognito", Scopes: []string{"openid", "profile", "email"},
		RoleClaims: []string{"cognito:groups"}, authMethod: "client_secret_basic",
		noRS: "its access tokens carry no aud claim, so a token for another API of the user pool would pass"}
	m := cognitoPool.FindStringSubmatch(userPoolID)
	if m == nil {
		p.err = fmt.Errorf("idp: cognito: user pool id %q: want region_id, such as eu-central-1_AbCdEfGhI", userPoolID)
		return p
	}
	d, err := httpsBase("cognito", "domain", domain)
	if p.err = err; err != nil {
		return p
	}
	p.Issuer = "https://cognito-idp." + m[1] + ".amazonaws.com/" + userPoolID
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = d+"/oauth2/authorize", d+"/oauth2/token", p.Issuer+"/.well-known/jwks.json"
	return p
}

// AuthKit is WorkOS AuthKit at domain (acme.authkit.app, or a custom
// domain): issuer https://{domain}, roles from role (the user's role in
// the organization) and roles. For resource-server mode, add the MCP
// resource URL under "MCP resource indicators" in the WorkOS dashboard:
// AuthKit then puts it in aud (RFC 8707), which is the default audience.
// AuthKit lets MCP clients register themselves, so resource-server mode
// needs no proxy.
func AuthKit(domain string) Preset {
	p := Preset{Name: "authkit", Scopes: []string{"openid", "profile", "email", "offline_access"},
		RoleClaims: []string{"role", "roles"}, authMethod: "client_secret_basic"}
	if p.err = host("authkit", "domain", domain); p.err != nil {
		return p
	}
	p.Issuer = "https://" + domain
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = p.Issuer+"/oauth2/authorize", p.Issuer+"/oauth2/token", p.Issuer+"/oauth2/jwks"
	return p
}

// GoogleWorkspace is Google sign-in restricted to the Google Workspace
// domains given: a sign-in whose ID token's hd (hosted domain) claim is
// not one of them (a personal Gmail account has none) is refused, and
// the sign-in page is told the first domain (hd) and asked for a
// refresh token (access_type offline). Google puts no groups in its
// tokens: no role claims. Proxy only: Google's access tokens are opaque
// and it has no RFC 7662 introspection endpoint.
func GoogleWorkspace(domains ...string) Preset {
	p := Preset{Name: "google-workspace", Issuer: "https://accounts.google.com",
		AuthorizationEndpoint: "https://accounts.google.com/o/oauth2/v2/auth",
		TokenEndpoint:         "https://oauth2.googleapis.com/token",
		JWKSURL:               "https://www.googleapis.com/oauth2/v3/certs",
		Scopes:                []string{"openid", "profile", "email"}, authMethod: "client_secret_post",
		noRS: "its access tokens are opaque and it has no RFC 7662 introspection endpoint"}
	if len(domains) == 0 || slices.Contains(domains, "") {
		p.err = fmt.Errorf("idp: google-workspace: name the Workspace domains to admit (such as example.com)")
		return p
	}
	allowed := slices.Clone(domains)
	p.authParams = map[string]string{"access_type": "offline", "prompt": "consent", "hd": allowed[0]}
	p.checkClaims = func(c map[string]any) error {
		hd, _ := c["hd"].(string)
		if !slices.Contains(allowed, hd) {
			return fmt.Errorf("the Google account is not of the Workspace domains %s (hd %q)", strings.Join(allowed, ", "), hd)
		}
		return nil
	}
	return p
}

var entraTenant = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Entra is a Microsoft Entra ID tenant (its GUID) for resource-server
// mode: issuer https://login.microsoftonline.com/{tenant}/v2.0, roles
// from roles (app roles) and groups (group object ids). The API's app
// registration must ask for v2 access tokens (manifest:
// requestedAccessTokenVersion 2; v1 tokens name another issuer), and
// their aud is the API's application (client) id: list it in
// resourceserver.Config.Audiences. For the proxy, use
// providers.NewEnterpriseDirectoryProvider, which also handles
// multi-tenant sign-in.
func Entra(tenantID string) Preset {
	p := Preset{Name: "entra", Scopes: []string{"openid", "profile", "email", "offline_access"},
		RoleClaims: []string{"roles", "groups"},
		noProxy:    "use providers.NewEnterpriseDirectoryProvider, whose RoleClaims default to roles and groups"}
	if !entraTenant.MatchString(tenantID) {
		p.err = fmt.Errorf("idp: entra: tenant %q: want the tenant's GUID (for a multi-tenant sign-in, use providers.NewEnterpriseDirectoryProvider)", tenantID)
		return p
	}
	base := "https://login.microsoftonline.com/" + tenantID
	p.Issuer = base + "/v2.0"
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = base+"/oauth2/v2.0/authorize", base+"/oauth2/v2.0/token", base+"/discovery/v2.0/keys"
	return p
}

// GitLab is GitLab.com (baseURL "") or a self-managed instance: issuer
// the instance's URL, roles from groups_direct (the paths of the groups
// the user is a direct member of, which GitLab puts in the ID token).
// Proxy only: GitLab's OAuth access tokens are opaque, and its
// documentation offers resource servers no introspection of them.
func GitLab(baseURL string) Preset {
	p := Preset{Name: "gitlab", Scopes: []string{"openid", "profile", "email"},
		RoleClaims: []string{"groups_direct"}, authMethod: "client_secret_basic",
		noRS: "its OAuth access tokens are opaque, and its documentation offers resource servers no introspection of them"}
	if baseURL == "" {
		baseURL = "https://gitlab.com"
	}
	base, err := httpsBase("gitlab", "baseURL", baseURL)
	if p.err = err; err != nil {
		return p
	}
	p.Issuer = base
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = base+"/oauth/authorize", base+"/oauth/token", base+"/oauth/discovery/keys"
	return p
}

// Supabase is the OAuth 2.1 server of a Supabase project
// (https://{ref}.supabase.co, or its custom domain): issuer
// {projectURL}/auth/v1. Supabase's role-based access puts the user's
// role in a user_role claim through a custom access token hook, so
// roles come from user_role (in access tokens; the ID token has none).
// Supabase access tokens have aud "authenticated" for every client of
// the project, so resource-server mode accepts that audience (the
// default here) and cannot bind a token to this MCP server: any access
// token of the project passes. Supabase lets MCP clients register
// themselves. Its JWTs must be signed with asymmetric keys (the
// project's JWT signing keys, not the legacy shared secret).
func Supabase(projectURL string) Preset {
	p := Preset{Name: "supabase", Scopes: []string{"openid", "profile", "email"},
		RoleClaims: []string{"user_role"}, authMethod: "client_secret_basic", audiences: []string{"authenticated"}}
	base, err := httpsBase("supabase", "projectURL", projectURL)
	if p.err = err; err != nil {
		return p
	}
	p.Issuer = base + "/auth/v1"
	p.AuthorizationEndpoint, p.TokenEndpoint, p.JWKSURL = p.Issuer+"/oauth/authorize", p.Issuer+"/oauth/token", p.Issuer+"/.well-known/jwks.json"
	return p
}
