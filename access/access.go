// Package access holds the checks that decide, for one request, whether a
// caller may see and use a tool, resource, resource template or prompt:
// the type of every CanAccess field of package mcp ([Check]) and the
// ready-made checks, which read the caller's auth data only.
//
//	mcp.Tool{
//		Name:      "purge",
//		CanAccess: access.All(access.Roles("admin"), access.Scopes("cache:write")),
//	}
//
// A [Policy] answers the same question for every object of a server at
// once, from the object's [Kind], name and tags ([Query]); a middleware
// installs it for each request with [WithPolicy] (package middleware's
// RestrictAccess), and mcp.Restrict builds one from a selector and a
// Check.
//
// A refused object is invisible: it is not listed, and a call to it reads
// as an unknown one. Auth data is what the server's Authenticate option or
// auth provider returned for the request (nil when the caller is
// anonymous); the sessions of packages providers, resourceserver and
// multiauth implement [ScopeChecker] and [RoleChecker]. The package
// imports nothing of the module, so an application's own auth data can
// implement its interfaces without a dependency on the server.
package access

import "context"

// Check decides, for one request, whether the caller may see and use a
// tool, resource, resource template or prompt. ctx is the request's own
// context, so it carries every value the application's middleware put
// there (a tenant, a feature flag); auth is the caller's auth data (what
// the server's Authenticate option or auth provider returned, nil when
// anonymous). A refused object is invisible: it is not listed, and a call
// to it reads as an unknown one.
//
// A check runs on every list and every call: keep it fast and free of
// side effects. [Authenticated], [Scopes], [Roles], [All] and [Any] are
// ready-made checks.
type Check func(ctx context.Context, auth any) bool

// Authenticated is a ready-made [Check]: the caller must be authenticated
// (carry non-nil auth data).
func Authenticated(_ context.Context, auth any) bool { return auth != nil }

// ScopeChecker is implemented by auth data that knows the OAuth scopes it
// was granted; [Scopes] asks it.
type ScopeChecker interface {
	// HasScope reports whether scope was granted.
	HasScope(scope string) bool
}

// Scopes returns a [Check] that admits a caller whose auth data
// implements [ScopeChecker] and holds every one of scopes. Auth data
// without scopes is refused.
func Scopes(scopes ...string) Check {
	return func(_ context.Context, auth any) bool {
		sc, ok := auth.(ScopeChecker)
		if !ok {
			return false
		}
		for _, s := range scopes {
			if !sc.HasScope(s) {
				return false
			}
		}
		return true
	}
}

// RoleChecker is implemented by auth data that knows the caller's roles:
// the sessions of package providers, resourceserver.Session and the API
// key sessions of package multiauth, whose roles come from the claims an
// identity provider puts its roles and groups in (each provider's claim
// mapping says which: Okta's groups, Entra's roles and groups,
// Keycloak's realm_access.roles, Cognito's cognito:groups, an Auth0
// namespaced claim). A group is a role here: the mapping decides which
// claims count. [Roles] asks it.
type RoleChecker interface {
	// HasRole reports whether the caller holds role (compared exactly,
	// case included).
	HasRole(role string) bool
}

// Roles returns a [Check] that admits a caller whose auth data implements
// [RoleChecker] and holds every one of roles. Auth data without roles is
// refused, so a check is never passed by a caller whose verifier does not
// read roles. For any one of several roles, combine checks:
// Any(Roles("admin"), Roles("operator")).
func Roles(roles ...string) Check {
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

// All returns a [Check] that admits a caller every one of checks admits
// (all of none: everyone). A nil check among them admits no one, so a
// check left unset by mistake closes the object instead of panicking on
// every request.
func All(checks ...Check) Check {
	return func(ctx context.Context, auth any) bool {
		for _, c := range checks {
			if c == nil || !c(ctx, auth) {
				return false
			}
		}
		return true
	}
}

// Any returns a [Check] that admits a caller at least one of checks
// admits (any of none: no one). A nil check among them admits no one.
func Any(checks ...Check) Check {
	return func(ctx context.Context, auth any) bool {
		for _, c := range checks {
			if c != nil && c(ctx, auth) {
				return true
			}
		}
		return false
	}
}
