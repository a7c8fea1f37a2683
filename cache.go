package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
)

// CacheScope says who may reuse a cached result: the cacheScope of
// revision 2026-07-28's cacheable results, with the meaning of HTTP's
// Cache-Control public and private.
type CacheScope string

// The scopes of a [CacheHint]. The zero value, "", leaves the choice to
// the server (see [CacheHint]).
const (
	// CachePublic: the result holds nothing particular to the caller, so
	// any client, shared gateway or caching proxy may keep it and serve it
	// to any user, across authorization contexts.
	CachePublic CacheScope = "public"
	// CachePrivate: the result may be reused only within the caller's own
	// authorization context (the same access token); a cache must not
	// serve it to another.
	CachePrivate CacheScope = "private"
)

// CacheHint is how long a client may reuse a result, and who may: the
// ttlMs and cacheScope members that revision 2026-07-28 puts on the
// results of tools/list, resources/list, resources/templates/list,
// prompts/list, resources/read and server/discover. Earlier revisions
// have no such members, and their results go out without them. The zero
// value is the server's default: stale at once (ttlMs 0), scoped by the
// rules below. The hint of a list or of server/discover is set in
// [Options].Cache, that of a read on the [Resource] or [ResourceTemplate]
// that answers it.
//
// TTL is a freshness hint, as HTTP's max-age: a client may use the result
// for that long without asking again, and a list_changed or
// resources/updated notification makes it stale sooner. It is sent in
// whole milliseconds (rounded down); it must not be negative.
//
// The scope a result goes out with is decided per request, failing
// closed:
//
//   - private when Scope is [CachePrivate];
//   - private when what the result holds may depend on who asks, whatever
//     Scope says: for a list, when an object of its kind (a mounted
//     server's included) has a CanAccess, or a version of a versioned
//     tool has one, or a mount has a [MountOptions].CanAccess, or the
//     caller's session has objects or Disable and Enable rules of its
//     own; for a read, when the resource or template read has a
//     CanAccess, a mount on its way has one, or an object this caller
//     is refused could answer the URI for another; for both, when the
//     request carries an access policy ([access.WithPolicy], as
//     middleware.RestrictAccess does, such as one [Restrict] builds)
//     or, for tools/list, a version filter
//     ([WithVersionFilter]);
//   - public when Scope is [CachePublic], even for an authenticated
//     request: say so only of a result that is the same for every
//     caller (a resource whose Load reads the caller's data is not);
//   - otherwise, private when the request carried auth data and public
//     when it was anonymous.
//
// A result that a request retried with inputResponses or requestState (a
// multi round-trip request, see [Context.Ask]) goes out with ttlMs 0
// and private: clients must not cache it, and it holds the user's
// answers. Access checks still run on every request: a scope is a hint to
// caches, never a way to keep a caller from an object.
type CacheHint struct {
	// TTL is how long the result stays fresh; 0: stale at once.
	TTL time.Duration
	// Scope is who may reuse the result; "" lets the server choose.
	Scope CacheScope
}

// CacheOptions are the caching hints of a server's lists and of
// server/discover (see [CacheHint]); those of resources/read are on each
// [Resource] and [ResourceTemplate]. A mounted server's CacheOptions are
// not used: the server a client talks to lists the mounted objects under
// its own hints.
type CacheOptions struct {
	// Tools is the hint of tools/list.
	Tools CacheHint
	// Resources is the hint of resources/list.
	Resources CacheHint
	// ResourceTemplates is the hint of resources/templates/list.
	ResourceTemplates CacheHint
	// Prompts is the hint of prompts/list.
	Prompts CacheHint
	// Discover is the hint of server/discover, whose result (the
	// revisions, capabilities and instructions) is the same for every
	// caller.
	Discover CacheHint
}

// check refuses a negative TTL and a scope that is not one.
func (h CacheHint) check(what string) error {
	switch {
	case h.TTL < 0:
		return fmt.Errorf("%sTTL is %v: a TTL is 0 (stale at once) or more", what, h.TTL)
	case h.Scope != "" && h.Scope != CachePublic && h.Scope != CachePrivate:
		return fmt.Errorf("%sScope %q is not a scope (want mcp.CachePublic, mcp.CachePrivate, or empty for the server's choice)", what, string(h.Scope))
	}
	return nil
}

// check checks every hint of o.
func (o *CacheOptions) check() error {
	for _, h := range []struct {
		name string
		h    CacheHint
	}{{"Tools", o.Tools}, {"Resources", o.Resources}, {"ResourceTemplates", o.ResourceTemplates}, {"Prompts", o.Prompts}, {"Discover", o.Discover}} {
		if err := h.h.check("Options.Cache." + h.name + "."); err != nil {
			return err
		}
	}
	return nil
}

// decide is the hint a result goes out with, by the rules of CacheHint:
// auth is the request's auth data, perCaller whether the result may
// depend on who asks.
func (h CacheHint) decide(auth any, perCaller bool) engine.Cache {
	c := engine.Cache{Set: true, TTLMs: h.TTL.Milliseconds()}
	switch {
	case h.Scope == CachePrivate || perCaller:
		c.Private = true
	case h.Scope == CachePublic:
	default:
		c.Private = auth != nil
	}
	return c
}

// requestPerCaller reports whether the request's context makes what it
// lists or reads depend on the caller: it carries an access policy, or,
// for tools, a version filter.
func requestPerCaller(ctx context.Context, tools bool) bool {
	if access.PolicyFrom(ctx) != nil {
		return true
	}
	if tools {
		_, ok := ctx.Value(versionFilterKey{}).(func(string) bool)
		return ok
	}
	return false
}

// notePerCaller sets *pc when pc is not nil and per holds.
func notePerCaller(pc *bool, per bool) {
	if pc != nil && per {
		*pc = true
	}
}

// listHinted returns what list gives, and fills in who.Cache, when asked
// for, with the hint of that list: h is the server's hint of its kind
// (tools: tools/list), and list reports through its pointer, when not
// nil, whether it found anything that depends on the caller.
func listHinted[T any](ctx context.Context, who engine.Caller, h CacheHint, tools bool, list func(pc *bool) T) T {
	if who.Cache == nil {
		return list(nil)
	}
	var per bool
	out := list(&per)
	*who.Cache = h.decide(who.Auth, per || requestPerCaller(ctx, tools))
	return out
}
