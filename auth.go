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
