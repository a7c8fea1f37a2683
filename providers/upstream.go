package providers

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/oauth2"
)

// Identity is who the upstream provider says the user is.
type Identity struct {
	// Subject is the provider-qualified stable user id ("codehost:42").
	Subject string `json:"sub"`
	// Email, Username and UPN are filled by the providers that know them
	// (Email only when verified, UPN only from a upn claim). They are for
	// display: authorize on Subject.
	Email    string `json:"email,omitempty"`
	Username string `json:"username,omitempty"`
	UPN      string `json:"upn,omitempty"`
	// Claims are the verified ID token claims or the user API's answer.
	Claims map[string]any `json:"claims,omitempty"`
}

// Upstream is the identity provider behind an OAuth [Proxy]: the four
// providers of this package implement it, and so can yours.
type Upstream interface {
	// Name is a short lower-case name, used in logs and on the consent
	// page.
	Name() string
	// OAuth2Config returns the upstream client configuration (endpoints
	// with a fixed AuthStyle, client id and secret, scopes). The proxy
	// sets RedirectURL.
	OAuth2Config(ctx context.Context) (*oauth2.Config, error)
	// AuthCodeOptions are extra parameters of the upstream authorization
	// request (an OIDC nonce, say). PKCE is added by the proxy.
	AuthCodeOptions(nonce string) []oauth2.AuthCodeOption
	// Identify returns the user behind tok: from its ID token (verified,
	// with nonce) or from the provider's user API.
	Identify(ctx context.Context, tok *oauth2.Token, nonce string) (*Identity, error)
	// NewSession builds the auth data tools see, from the base session
	// and the identity recorded at login.
	NewSession(base OAuthSession, id *Identity) any
}

// ErrUpstream wraps failures of the upstream provider (token exchange,
// ID token verification, user API).
var ErrUpstream = errors.New("providers: upstream provider failed")

// ErrUpstreamRevoked is an ErrUpstream that ends the login: the provider
// refused the user's refresh token (invalid_grant) or its user API
// refused the user's token (401, 403) or named another user. The proxy
// then deletes the grant, so every token of the login is refused.
var ErrUpstreamRevoked = fmt.Errorf("%w: the provider ended the user's login", ErrUpstream)

// UserChecker is implemented by an [Upstream] that can tell, from its
// user API, whether the user behind tok is still the one of id. The proxy
// asks it at each refresh of its own tokens when the upstream token cannot
// be refreshed (a code host's tokens never expire), so that a user
// disabled at the provider loses access here too. It returns an error
// wrapping ErrUpstreamRevoked when the user is gone.
type UserChecker interface {
	CheckUser(ctx context.Context, tok *oauth2.Token, id *Identity) error
}
