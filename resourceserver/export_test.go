package resourceserver

// CachedSubjectToken is the token the introspection cache's session for
// tok holds ("" when none is cached, or when it holds none).
func CachedSubjectToken(v *Verifier, tok string) (token string, cached bool) {
	e, ok := v.intro.cache.get(tokenKey(tok))
	if !ok {
		return "", false
	}
	t, _ := e.s.SubjectToken()
	return t, true
}
