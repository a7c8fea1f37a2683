package resourceserver

import (
	"net/http"
	"slices"

	claimpath "github.com/mcpchain/mcp/internal/claims"
)

// HasRole implements access.RoleChecker, for access.Roles: role is one
// of the strings of the claims Config.RoleClaims names.
func (s *Session) HasRole(role string) bool { return s != nil && slices.Contains(s.Roles, role) }

// Owns implements multiauth.Owner: it reports whether the request's
// access token is for this verifier to judge, from its form alone and
// without checking anything. A JWT (Bearer or DPoP) is this verifier's
// when the iss of its payload, read unverified, is Config.Issuer; with
// Config.Introspection, a token that is not a JWT is too (nothing in an
// opaque token names its issuer, so the verifier that introspects takes
// every one). No Authorization header, a malformed one, or a JWT of
// another issuer: not this verifier's. Owning a token says nothing of its
// worth: VerifyRequest then checks everything.
func (v *Verifier) Owns(r *http.Request) bool {
	_, tok, err := authorization(r.Header)
	if err != nil {
		return false
	}
	if pk, ok := claimpath.Peek(tok); ok {
		return pk.Iss == v.cfg.Issuer
	}
	return v.intro != nil
}
