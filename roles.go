package mcp

import "context"

// RoleChecker is implemented by auth data that knows the caller's roles:
// the sessions of package providers, resourceserver.Session and the API
// key sessions of package multiauth, whose roles come from the claims an
// identity provider puts its roles and groups in (each provider's claim
// mapping says which: Okta's groups, Entra's roles and groups,
// Keycloak's realm_access.roles, Cognito's cognito:groups, an Auth0
// namespaced claim). A group is a role here: the mapping decides which
// claims count. [RequireRoles] and [Restrict] ask it.
type RoleChecker interface {
	// HasRole reports whether the caller holds role (compared exactly,
	// case included).
	HasRole(role string) bool
}

// RequireRoles returns an [AccessCheck] that admits a caller whose auth
// data implements [RoleChecker] and holds every one of roles. Auth data
// without roles is refused, so a check is never passed by a caller whose
// verifier does not read roles. For any one of several roles, combine
// checks: RequireAny(RequireRoles("admin"), RequireRoles("operator")).
func RequireRoles(roles ...string) AccessCheck {
	return func(_ context.Context, auth any) bool {
		rc, ok := auth.(RoleChecker)
		if !ok {
			return false
		}
		for _, r := range roles {
			if !rc.HasRole(r) {
				return false
			}
		}
		return true
	}
}

// Restrict returns a [SessionAccessPolicy] under which the objects m
// selects (by kind, name or tag, as for [Registry.Disable]) are seen only by
// callers check admits; other objects are left to the other checks. So
// a tag visible only to a role is
//
//	mcp.Restrict(mcp.Match{Tags: []string{"admin"}}, mcp.RequireRoles("admin"))
//
// installed for every request with [WithSessionAccessPolicy] (in a
// middleware of the endpoint). Like every access check, a refusal hides
// the object: it is not listed, and a call to it reads as unknown.
// Restrict panics when m.Kind is not a kind or check is nil (a
// programming error).
func Restrict(m Match, check AccessCheck) SessionAccessPolicy {
	if err := m.check(); err != nil {
		panic("mcp: Restrict: " + err.Error())
	}
	if check == nil {
		panic("mcp: Restrict needs a non-nil AccessCheck")
	}
	m = cloneMatch(m)
	return func(ctx context.Context, q AccessQuery) bool {
		if !m.matches(&entryBase{kind: q.Kind, key: q.Name, tags: q.Tags}) {
			return true
		}
		return check(ctx, q.Auth)
	}
}
