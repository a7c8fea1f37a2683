package mcphttp

import (
	"fmt"
	"net/http"
	"reflect"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
)

// How the handler meets its callers' identities. Every comparison of one
// caller with another is package internal/identity's (identity.Same for
// a session's caller, identity.Key for whatever outlives a session,
// sessionstate.Adoptable for a session stored by another replica); this
// file only tells the operator when the identities it is given cannot do
// what they are trusted with.

// noteAuth logs, once per handler, the first caller whose auth data has
// no subject: what that means and how to fix it. Such auth data is opaque
// (identity.Opaque): it binds a session in this process only, and has no
// scope across requests.
func (h *Handler) noteAuth(auth any) {
	if auth == nil || h.opaqueNoted.Load() || identity.Of(auth) != identity.Opaque {
		return
	}
	if !h.opaqueNoted.CompareAndSwap(false, true) {
		return
	}
	h.log.Warn("mcp: a caller's auth data has no subject (mcp.Subject): its session is bound to the value by equality in this process only "+
		"and is never adopted by another replica, its tasks are scoped to its session, and a request without a session "+
		"(revision 2026-07-28, a stateless handler) gets no task and cannot ask the client anything; "+subjectFix(auth),
		"type", fmt.Sprintf("%T", auth))
}

// warnBareAuthorization logs, once per handler, a request that carries
// an Authorization header to a server with neither Options.Authenticate
// nor Options.Auth and that reached the engine without auth data (auth,
// the request's): its credentials were checked, if at all, by middleware
// the engine knows nothing of, and the caller is anonymous to it. A chain that hands the engine the caller
// (middleware.CheckCredentials, mcp.WithAuth) is not warned about. It is
// asked where a caller starts: at initialize, which every 2025 client
// sends first, stateless handlers included, and at each request of
// revision 2026-07-28, which has no initialize; the other requests of a
// session skip the header lookup.
func (h *Handler) warnBareAuthorization(r *http.Request, auth any) {
	if h.auth != nil || auth != nil || h.bareAuthWarned.Load() || len(r.Header["Authorization"]) == 0 {
		return
	}
	if !h.bareAuthWarned.CompareAndSwap(false, true) {
		return
	}
	h.log.Warn("mcp: a request carries an Authorization header, but the server has no mcp.Options.Authenticate (nor mcp.Options.Auth): "+
		"every caller is anonymous to it, and a session ID is all that separates one user's session from another's. "+
		"Sessions are bound to the identity Authenticate returns; identity that middleware of your own puts in the request context binds nothing. "+
		"Set Authenticate to the check of the credentials, returning the caller as auth data that implements mcp.Subject (docs/transports.md, \"Mounting into an existing app\")",
		"remote", r.RemoteAddr)
}

// subjectTrap reports whether identity.Same refused auth for a session
// made with sessAuth only because two values of one type without a
// subject differ: the trap of auth data that carries a per-request value,
// which never equals the one that initialized.
func subjectTrap(sessAuth, auth any) bool {
	return identity.Of(sessAuth) == identity.Opaque && identity.Of(auth) == identity.Opaque &&
		reflect.TypeOf(sessAuth) == reflect.TypeOf(auth)
}

// subjectHint ends the 403 of a refusal subjectTrap reports. It names no
// type: the client is not told how the server is built.
const subjectHint = ". Auth data without a subject (mcp.Subject) binds a session by equality of the whole value: " +
	"if it holds per-request values (a timestamp, a token expiry), the server's authentication should return a type with a " +
	"Subject() string method (mcp.Subject) that gives a stable user id, which binds sessions to that id"

// subjectFix says how to give auth data a subject: make an empty Subject
// return the user; add a Subject method to a type of one's own; return a
// type of one's own with that method instead of one that cannot have
// methods (a string, a map, an unnamed struct).
func subjectFix(auth any) string {
	if _, ok := auth.(mcp.Subject); ok {
		return fmt.Sprintf("make the Subject method of %T return the caller's stable id (it returned an empty string)", auth)
	}
	t := reflect.TypeOf(auth)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return fmt.Sprintf("a %T cannot have methods, so it cannot implement mcp.Subject: return a type of your own with a "+
			"Subject() string method that gives a stable user id (type User struct{ ID string } with func (u User) Subject() string { return u.ID }) instead", auth)
	}
	return fmt.Sprintf("give %T a Subject() string method (mcp.Subject) that returns a stable user id", auth)
}
