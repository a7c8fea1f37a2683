package resourceserver

// withToken is a copy of s carrying the token it was verified from.
func (s *Session) withToken(tok string) *Session {
	cp := *s
	cp.token = tok
	return &cp
}

// SubjectToken returns the access token the request came with and its
// RFC 8693 token type: the subject token of a token exchange for a
// downstream call as this user (package tokenexchange). It is the
// caller's credential: never log it or send it anywhere but the identity
// provider.
func (s *Session) SubjectToken() (token, tokenType string) {
	return s.token, "urn:ietf:params:oauth:token-type:access_token"
}
