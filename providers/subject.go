package providers

// SubjectToken returns the upstream provider's access token and its
// RFC 8693 token type: the subject token of a token exchange for a
// downstream call as this user (package tokenexchange). For Microsoft
// Entra's on-behalf-of flow the upstream token must be for this server's
// own application: ask for its scope (api://{client id}/…) in
// Config.Scopes. "" for a user of an enterprise ID-JAG, who signed in at
// no upstream provider here. It is the user's credential: never log it.
func (s *OAuthSession) SubjectToken() (token, tokenType string) {
	return s.AccessToken, "urn:ietf:params:oauth:token-type:access_token"
}
