package mcp

import (
	"context"

	"github.com/mcpchain/mcp/access"
)

// Restrict returns an [access.Policy] under which the objects m
// selects (by kind, name or tag, as for [Registry.Disable]) are seen only by
// callers check admits; other objects are left to the other checks. So
// a tag visible only to a role is
//
//	mcp.Restrict(mcp.Match{Tags: []string{"admin"}}, access.Roles("admin"))
//
// installed for every request with [access.WithPolicy] (in a
// middleware of the endpoint). Like every access check, a refusal hides
// the object: it is not listed, and a call to it reads as unknown.
// Restrict panics when m.Kind is not a kind or check is nil (a
// programming error).
func Restrict(m Match, check access.Check) access.Policy {
	if err := m.check(); err != nil {
		panic("mcp: Restrict: " + err.Error())
	}
	if check == nil {
		panic("mcp: Restrict needs a non-nil access.Check")
	}
	m = cloneMatch(m)
	return func(ctx context.Context, q access.Query) bool {
		if !m.matches(&entryBase{kind: q.Kind, key: q.Name, tags: q.Tags}) {
			return true
		}
		return check(ctx, q.Auth)
	}
}
