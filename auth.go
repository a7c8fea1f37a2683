package mcp

import "context"

type authKey struct{}

// WithAuth returns a copy of ctx carrying the caller's auth data. The
// authentication middleware calls it; the engine reads it with
// [AuthFromContext] and hands it to tools as Context.Session.
func WithAuth(ctx context.Context, auth any) context.Context {
	return context.WithValue(ctx, authKey{}, auth)
}

// AuthFromContext returns the auth data stored by [WithAuth], or nil.
func AuthFromContext(ctx context.Context) any { return ctx.Value(authKey{}) }

// Subject is implemented by auth data that names its caller. A session is
// bound to the subject that created it: a request with another subject
// cannot use it. Auth data without it is compared for equality instead.
type Subject interface {
	Subject() string
}

// Kind names what an access policy is asked about.
type Kind string

// The kinds of objects an [AccessPolicy] decides on.
const (
	KindTool     Kind = "tool"
	KindResource Kind = "resource" // name is the URI (or the URI template)
	KindPrompt   Kind = "prompt"
)

// AccessPolicy decides whether a caller (its auth data) may see and use a
// tool, resource or prompt. Like a per-object CanAccess, a refusal hides
// the object: it is not listed, and a call to it reads as unknown.
type AccessPolicy func(auth any, kind Kind, name string) bool

type policyKey struct{}

// WithAccessPolicy returns a copy of ctx carrying p, consulted (with every
// policy already in ctx, and the objects' own CanAccess) by the registry.
// The canAccess middleware sets it.
func WithAccessPolicy(ctx context.Context, p AccessPolicy) context.Context {
	if prev, ok := ctx.Value(policyKey{}).(AccessPolicy); ok {
		next := p
		p = func(auth any, kind Kind, name string) bool { return prev(auth, kind, name) && next(auth, kind, name) }
	}
	return context.WithValue(ctx, policyKey{}, p)
}

func policyAllows(ctx context.Context, auth any, kind Kind, name string) bool {
	p, ok := ctx.Value(policyKey{}).(AccessPolicy)
	return !ok || p(auth, kind, name)
}
