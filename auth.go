package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpchain/mcp/access"
)

// AuthFunc checks the credentials of a request and returns the caller's
// auth data (any value; tools get it as Context.Session). It is the one
// spelling of an authentication hook: Options.Authenticate, an
// [AuthProvider]'s Authenticate method and middleware.CheckCredentials all
// take it.
//
// Return an error that wraps [ErrUnauthorized] for missing or bad
// credentials (the client gets 401 and a WWW-Authenticate challenge), one
// that wraps [ErrInsufficientScope] when the credentials are good but lack
// a scope (403), and any other error when the check itself failed (500:
// the error is logged, never sent; [ErrAuthUnavailable] makes it 503).
// Returning (nil, nil) admits the caller
// anonymously. The error's text is never shown to the client.
type AuthFunc func(r *http.Request) (any, error)

// Sentinels an [AuthFunc] wraps to say why it refused a request.
var (
	// ErrUnauthorized means the credentials are missing, malformed,
	// expired or wrong: HTTP 401.
	ErrUnauthorized = errors.New("mcp: unauthorized")
	// ErrInsufficientScope means the credentials are valid but do not
	// grant what the request needs: HTTP 403 with
	// error="insufficient_scope".
	ErrInsufficientScope = errors.New("mcp: insufficient scope")
	// ErrInvalidToken means credentials were presented and refused: it
	// wraps [ErrUnauthorized] (401) and makes the challenge carry
	// error="invalid_token" (RFC 6750 §3.1) even when the credentials
	// came in a header other than Authorization. A refusal of a request
	// whose Authorization header is set gets that error code anyway.
	ErrInvalidToken = fmt.Errorf("%w: invalid token", ErrUnauthorized)
	// ErrAuthUnavailable means the credentials cannot be checked now
	// because something the check needs is unreachable (an authorization
	// server's keys or introspection endpoint): HTTP 503 with
	// Retry-After, so the client keeps its token and tries again later
	// rather than discarding it. The request is refused, never admitted.
	ErrAuthUnavailable = errors.New("mcp: credentials cannot be checked now")
)

// AuthError is a refusal that tells the client more than the status: an
// [AuthFunc] returns it (or an error wrapping it) to put an
// error_description and a scope hint into the WWW-Authenticate challenge
// and the body of the 401 or 403 answer (RFC 6750 §3).
//
// Err decides the status, as for any error of an AuthFunc, and is logged
// only. Description and Scope are sent as they are (characters outside
// printable ASCII, '"' and '\' are replaced): never put a token, a secret
// or an internal address in them.
type AuthError struct {
	// Err is the reason: it wraps [ErrUnauthorized], [ErrInvalidToken]
	// or [ErrInsufficientScope].
	Err error
	// Description is the client-facing error_description, such as
	// "the access token has expired".
	Description string
	// Scope lists, space-separated, the scopes the request needs: the
	// scope parameter of the challenge (RFC 6750 §3), which tells a
	// client what to ask the authorization server for.
	Scope string
	// Code is the error code of the answer's body when the status alone
	// does not say it, such as invalid_dpop_proof or use_dpop_nonce (RFC
	// 9449 §7.1). Default: invalid_token for a 401 to presented
	// credentials, insufficient_scope for a 403.
	Code string
	// Header holds response headers of the refusal, such as DPoP-Nonce
	// (RFC 9449 §9). A WWW-Authenticate value here replaces the challenge
	// the server would send: an auth provider that answers for another
	// scheme than Bearer (DPoP) builds the whole value, error,
	// error_description and scope included. Content-Type and
	// Cache-Control are the server's.
	Header http.Header
}

// Error returns the reason followed by the description.
func (e *AuthError) Error() string {
	if e.Err == nil {
		return "mcp: auth error: " + e.Description
	}
	if e.Description == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + ": " + e.Description
}

// Unwrap returns Err, so errors.Is(err, ErrUnauthorized) and friends see
// the reason.
func (e *AuthError) Unwrap() error { return e.Err }

type authKey struct{}

// WithAuth returns a copy of ctx carrying the caller's auth data. The
// authentication middleware calls it; the engine reads it with
// [AuthFromContext] and hands it to tools as Context.Session.
func WithAuth(ctx context.Context, auth any) context.Context {
	return context.WithValue(ctx, authKey{}, auth)
}

// AuthFromContext returns the auth data stored by [WithAuth], or nil.
func AuthFromContext(ctx context.Context) any { return ctx.Value(authKey{}) }

// Subject is implemented by auth data that names its caller. It is how
// the server tells one caller from another everywhere: a session is bound
// to the subject that created it (a request with another subject cannot
// use it, on any replica), and a caller's tasks, the requestState of its
// multi-round requests, its session count (mcphttp.Options.MaxSessionsPerClient)
// and its rate-limit bucket are keyed by it.
//
// Auth data without it, or whose Subject returns "", has no identity
// beyond its session: the session admits only a deeply equal value, on
// the replica that made it (another replica never adopts it), its tasks
// belong to the session, and a request without a session (revision
// 2026-07-28, a stateless handler) gets no task and cannot ask the client
// anything. Auth data that holds a per-request value (a timestamp, a token
// expiry) must implement Subject: otherwise the caller's own next request
// differs from the one that initialized the session and is refused with
// 403. Implement it on a type of your own (a string or a map cannot have
// methods: return a struct instead).
type Subject interface {
	// Subject returns the caller's stable identity (a user id).
	Subject() string
}

// policyAllows reports whether the policies in ctx let the caller (auth,
// in the session sid) see the object b.
func policyAllows(ctx context.Context, auth any, sid string, b *entryBase) bool {
	p := access.PolicyFrom(ctx)
	return p == nil || p(ctx, access.Query{Auth: auth, SessionID: sid, Kind: b.kind, Name: b.key, Tags: b.tags})
}
