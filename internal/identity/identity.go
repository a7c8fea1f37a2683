// Package identity is the one rule by which mcpchain compares one caller
// with another: session binding (in one process and when another replica
// adopts a session from a shared store), task scoping, state kept for a
// caller, rate-limit and per-client keys, and the gateway's upstream
// connections all decide through [Same] and [Key], never by a rule of
// their own.
//
// The rule:
//   - no auth data (nil) is the anonymous caller;
//   - auth data implementing mcp.Subject with a non-empty subject is
//     compared by that subject alone, and its key is the subject;
//   - any other auth data is opaque: it has no key, so it shares nothing
//     with another request except the session it initialized, and within
//     one process a session admits only a deeply equal value. It is never
//     matched across processes (a session bound to it is not adopted by
//     another replica), because no encoding of an arbitrary value is known
//     to tell its users apart (unexported fields, `json:"-"`).
package identity

import "reflect"

// subjecter is mcp.Subject, restated so that this package is a leaf.
type subjecter interface{ Subject() string }

// Kind is how a caller is identified.
type Kind uint8

const (
	// Anonymous: the request carries no auth data.
	Anonymous Kind = iota
	// Subject: the auth data names a stable subject.
	Subject
	// Opaque: auth data without a subject; it has no key.
	Opaque
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case Anonymous:
		return "anonymous"
	case Subject:
		return "subject"
	}
	return "opaque"
}

// Of returns how the caller with auth data auth is identified.
func Of(auth any) Kind {
	if auth == nil {
		return Anonymous
	}
	if subjectOf(auth) != "" {
		return Subject
	}
	return Opaque
}

// subjectOf returns auth's subject, "" when it has none. A nil pointer
// (or map, slice, func, channel) that implements mcp.Subject has none: its
// method would dereference nothing, and such auth data is opaque, not a
// panic in whatever compared it.
func subjectOf(auth any) string {
	s, ok := auth.(subjecter)
	if !ok {
		return ""
	}
	switch v := reflect.ValueOf(auth); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		if v.IsNil() {
			return ""
		}
	}
	return s.Subject()
}

// Key returns the key every request of one caller shares ("sub:" and the
// subject), and false for a caller that has none: anonymous or opaque.
// Whatever is kept for a caller across requests without a session (state,
// tasks, a pooled upstream connection, a rate-limit bucket) is keyed by
// it; a caller without a key gets nothing that outlives its session.
func Key(auth any) (string, bool) {
	if sub := subjectOf(auth); sub != "" {
		return "sub:" + sub, true
	}
	return "", false
}

// Same reports whether the caller with auth data b is the caller with auth
// data a: both anonymous; both with a subject, and the subjects equal; or
// both opaque and deeply equal (within one process only: opaque data that
// crossed a process boundary has lost what told its users apart, so a
// store must not call Same on it; it calls [Key], which refuses).
func Same(a, b any) bool {
	ka, kb := Of(a), Of(b)
	if ka != kb {
		return false
	}
	switch ka {
	case Anonymous:
		return true
	case Subject:
		return subjectOf(a) == subjectOf(b)
	}
	return reflect.DeepEqual(a, b)
}
