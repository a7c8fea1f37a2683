package access

import "context"

// Kind names the kind of object a [Policy] is asked about.
type Kind string

// The kinds of objects a [Policy] decides on.
const (
	KindTool     Kind = "tool"
	KindResource Kind = "resource" // name is the URI (or the URI template)
	KindPrompt   Kind = "prompt"
)

// Query is what a [Policy] decides on: who asks, in which session, about
// which object.
type Query struct {
	// Auth is the caller's auth data (nil when anonymous).
	Auth any
	// SessionID is the caller's session ("" when it has none: stateless
	// HTTP, revision 2026-07-28, or a list made outside a request).
	SessionID string
	// Kind and Name name the object (for a resource, its URI or URI
	// template).
	Kind Kind
	Name string
	// Tags are the object's tags. Read-only: the slice is the object's.
	Tags []string
}

// Policy decides, for one request, whether the caller may see and use a
// tool, resource or prompt, over every object of the server rather than
// one (as an object's CanAccess [Check] does): it gets the request's
// context and a [Query] (the caller's auth data, its session ID, the
// object's kind, name and tags). Like a per-object CanAccess, a refusal
// hides the object: it is not listed, and a call to it reads as unknown.
// It runs on every list and call, from request goroutines concurrently:
// keep it fast, safe for concurrent use and free of side effects.
// mcp.Restrict builds one from an mcp.Match and a Check.
type Policy func(ctx context.Context, q Query) bool

type policyKey struct{}

// WithPolicy returns a copy of ctx carrying p, consulted (with every
// policy already in ctx, and the objects' own CanAccess) by a server's
// registry: every policy in ctx must admit an object.
// middleware.RestrictAccess sets it for every request of an endpoint.
func WithPolicy(ctx context.Context, p Policy) context.Context {
	if prev := PolicyFrom(ctx); prev != nil {
		next := p
		p = func(ctx context.Context, q Query) bool { return prev(ctx, q) && next(ctx, q) }
	}
	return context.WithValue(ctx, policyKey{}, p)
}

// PolicyFrom returns the policy in ctx (all of those [WithPolicy] added,
// as one), or nil.
func PolicyFrom(ctx context.Context) Policy {
	p, _ := ctx.Value(policyKey{}).(Policy)
	return p
}
