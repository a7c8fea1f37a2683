package providers

import (
	"net/http"
	"slices"

	claimpath "github.com/mcpchain/mcp/internal/claims"
)

// HasRole implements access.RoleChecker, for access.Roles: role is one
// of the strings of the user's claims that Config.RoleClaims names.
func (s *OAuthSession) HasRole(role string) bool { return s != nil && slices.Contains(s.Roles, role) }

// Owns implements multiauth.Owner: it reports whether the request's
// bearer token is one of this proxy's to judge, from its form alone and
// without checking anything: a JWT whose payload, read unverified, names
// this proxy's issuer (BaseURL) as iss. Owning a token says nothing of
// its worth: VerifyRequest then checks its signature, type, audience,
// expiry, revocation and grant.
func (p *Proxy) Owns(r *http.Request) bool {
	raw, ok := bearer(r)
	if !ok {
		return false
	}
	pk, ok := claimpath.Peek(raw)
	return ok && pk.Iss == p.issuer
}
