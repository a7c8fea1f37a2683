package resourceserver_test

import (
	"context"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/resourceserver"
)

// signTyped is issuer.sign with the JWS typ header typ (none when empty).
func (is *issuer) signTyped(kid, typ string, claims map[string]any) string {
	is.mu.Lock()
	k := is.keys[kid]
	is.mu.Unlock()
	require.NotNil(is.t, k, kid)
	opts := (&jose.SignerOptions{}).WithHeader("kid", kid)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(algOf(k)), Key: k}, opts)
	require.NoError(is.t, err)
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	require.NoError(is.t, err)
	return tok
}

// TestTokensOfAnotherKindRefused: a JWT of the issuer that is not an
// access token is refused even when its audience is one the server
// accepts. Access tokens come typed at+jwt (RFC 9068, in either
// spelling and any case), JWT or untyped (Okta, Entra, Keycloak, Auth0
// without its RFC 9068 profile): all admitted. Any other typ names
// another kind of JWT (an ID-JAG, a DPoP proof, a logout token, a
// security event, an explicitly typed ID token) and is refused. So is an
// ID token that says so by a claim only ID tokens carry (at_hash,
// c_hash: OpenID Connect Core §3.1.3.6, §3.3.2.11), where the
// configuration lists the client ID the ID token is for among the
// audiences.
func TestTokensOfAnotherKindRefused(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	const clientID = "client-7"
	// No RequiredScopes, which would refuse an ID token for its missing
	// scope.
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Audiences, c.RequiredScopes = []string{resource, clientID}, nil
	})
	ctx := context.Background()

	for _, typ := range []string{"", "JWT", "jwt", "at+jwt", "AT+JWT", "application/at+jwt", "Application/AT+JWT"} {
		s, err := v.Verify(ctx, is.signTyped("k1", typ, is.claims()))
		require.NoError(t, err, "typ %q", typ)
		assert.Equal(t, "user-42", s.Sub, "typ %q", typ)
	}
	for _, typ := range []string{"oauth-id-jag+jwt", "dpop+jwt", "logout+jwt", "secevent+jwt", "id_token+jwt",
		"application/oauth-id-jag+jwt", "JOSE", "JWE", "at+jwt ", "application/jwt+at"} {
		_, err := v.Verify(ctx, is.signTyped("k1", typ, is.claims()))
		require.ErrorIs(t, err, mcp.ErrInvalidToken, "typ %q", typ)
		var ae *mcp.AuthError
		require.ErrorAs(t, err, &ae)
		assert.Contains(t, ae.Description, "not an access token", "typ %q", typ)
	}

	idToken := func(mod func(map[string]any)) map[string]any {
		c := is.claims()
		c["aud"] = clientID
		delete(c, "scope")
		c["nonce"] = "n-0S6_WzA2Mj"
		mod(c)
		return c
	}
	for name, c := range map[string]map[string]any{
		"at_hash": idToken(func(c map[string]any) { c["at_hash"] = "77QmUPtjPfzWtF2AnpK9RQ" }),
		"c_hash":  idToken(func(c map[string]any) { c["c_hash"] = "LDktKdoQak3Pk0cnXxCltA" }),
	} {
		for _, typ := range []string{"", "JWT"} {
			_, err := v.Verify(ctx, is.signTyped("k1", typ, c))
			require.ErrorIs(t, err, mcp.ErrInvalidToken, "%s, typ %q", name, typ)
			var ae *mcp.AuthError
			require.ErrorAs(t, err, &ae)
			assert.Contains(t, ae.Description, "ID token", name)
		}
	}
	// A nonce alone is no sign of an ID token: Entra puts one in some
	// access tokens. (An ID token with neither hash, typed JWT, still
	// passes where its client ID is an accepted audience: Config.Audiences
	// says not to list one.)
	_, err := v.Verify(ctx, is.signTyped("k1", "JWT", idToken(func(c map[string]any) { c["scp"] = "mcp:tools" })))
	require.NoError(t, err)
}
