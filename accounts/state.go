package accounts

import "strings"

// idLen is the length of an identifier or secret of a connection in
// progress: 24 random bytes, base64url without padding.
const idLen = 32

// validID reports whether s has the form of an identifier made by
// pages.Token(24): 32 characters of the base64url alphabet.
func validID(s string) bool {
	if len(s) != idLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// parseState splits the state of a service's callback,
// {connection id}.{secret}: the id finds the connection in progress, the
// secret (compared in constant time with the stored one) proves the state
// is the one this server sent. Anything else is refused before the
// storage is read.
func parseState(s string) (id, secret string, ok bool) {
	id, secret, found := strings.Cut(s, ".")
	if !found || !validID(id) || !validID(secret) {
		return "", "", false
	}
	return id, secret, true
}
