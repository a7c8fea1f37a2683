package providers

import (
	"slices"
	"time"
)

// OAuthSession is what a tool sees as Context.Session when the caller came
// through an OAuth provider. The token fields are the upstream provider's
// (refreshed when they expire), so a tool can call the provider's API on
// the user's behalf; the MCP client's own bearer token is never here.
type OAuthSession struct {
	// AccessToken is the upstream access token.
	AccessToken string `json:"-"`
	// Scopes are the scopes granted to the MCP client's token.
	Scopes []string `json:"scopes,omitempty"`
	// Roles are the strings of the user's claims that Config.RoleClaims
	// names (a group is a role here), for access.Roles.
	Roles []string `json:"roles,omitempty"`
	// ExpiresAt is when AccessToken expires (zero: unknown or never).
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// IDToken is the upstream OpenID Connect ID token, if any.
	IDToken string `json:"-"`
	// RefreshToken is the upstream refresh token, if any.
	RefreshToken string `json:"-"`
	// Claims are the user's claims: the verified ID token's, or what the
	// provider's user API returned.
	Claims map[string]any `json:"claims,omitempty"`
	// UserID identifies the user, qualified by provider ("generic:…",
	// "consumer:…", "codehost:…", "enterprise:tid:oid"). It is the field
	// to authorize on: stable, and chosen by the provider, not the user
	// (email, username and UPN can change hands).
	UserID string `json:"sub"`
	// ClientID is the MCP client the token was issued to.
	ClientID string `json:"clientId"`
}

// Subject implements mcp.Subject: an MCP session is bound to the user who
// opened it.
func (s *OAuthSession) Subject() string { return s.UserID }

// OAuth returns s; the provider sessions embed OAuthSession and so have it
// too, which is how [SessionOf] and the Require helpers read any of them.
func (s *OAuthSession) OAuth() *OAuthSession { return s }

// HasScope reports whether scope was granted. It implements
// access.ScopeChecker, so access.Scopes reads any provider session:
//
//	mcp.Tool{Name: "repos", CanAccess: access.Scopes("repo")}
func (s *OAuthSession) HasScope(scope string) bool {
	return slices.Contains(s.Scopes, scope)
}

// ConsumerIdentitySession is the session of [ConsumerIdentityProvider].
type ConsumerIdentitySession struct {
	OAuthSession
	// Email is the user's email address, set only when the provider says
	// it verified it (email_verified true). For display and contact: an
	// address can change hands, so authorize on UserID.
	Email string `json:"email,omitempty"`
}

// CodeHostSession is the session of [CodeHostProvider].
type CodeHostSession struct {
	OAuthSession
	// Username is the user's login on the code host.
	Username string `json:"username,omitempty"`
}

// EnterpriseDirectorySession is the session of
// [EnterpriseDirectoryProvider].
type EnterpriseDirectorySession struct {
	OAuthSession
	// UPN is the user principal name, from the ID token's upn claim only
	// (never preferred_username, which users can change). A tenant admin
	// can rename it: authorize on UserID (tenant and object id), and
	// restrict a multi-tenant login with AllowedTenants.
	UPN string `json:"upn,omitempty"`
}

type oauthSessioner interface{ OAuth() *OAuthSession }

// SessionOf returns the OAuthSession inside auth data (an *OAuthSession or
// any provider session), and whether there is one.
func SessionOf(auth any) (*OAuthSession, bool) {
	if s, ok := auth.(oauthSessioner); ok && s != nil {
		if o := s.OAuth(); o != nil {
			return o, true
		}
	}
	return nil, false
}
