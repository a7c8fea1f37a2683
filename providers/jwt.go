package providers

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpchain/mcp"
)

// ClockSkew is how far the clocks of the instances verifying our access
// tokens may disagree with the one that minted them.
const ClockSkew = 30 * time.Second

// AccessTokenClaims are the claims of the access tokens the proxy mints
// (RFC 9068 shape, header typ at+jwt, HS256).
type AccessTokenClaims struct {
	jwt.Claims
	// ClientID is the MCP client the token was issued to.
	ClientID string `json:"client_id"`
	// Scope is the space-separated list of granted scopes.
	Scope string `json:"scope,omitempty"`
	// GrantID names the grant (the login) the token belongs to.
	GrantID string `json:"gid"`
}

// Scopes returns the space-separated scope claim as a list.
func (c *AccessTokenClaims) Scopes() []string { return strings.Fields(c.Scope) }

type jwtCodec struct {
	key      []byte
	kid      string
	keys     map[string][]byte // kid → key: the current key and the previous ones
	signer   jose.Signer
	issuer   string
	audience string
}

func keyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}

// newJWTCodec signs with key and verifies with key or any of previous,
// each found by the kid it gives the tokens it signs.
func newJWTCodec(key []byte, issuer, audience string, previous ...[]byte) (*jwtCodec, error) {
	kid := keyID(key)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		return nil, err
	}
	keys := map[string][]byte{kid: key}
	for _, k := range previous {
		if _, dup := keys[keyID(k)]; !dup {
			keys[keyID(k)] = k
		}
	}
	return &jwtCodec{key: key, kid: kid, keys: keys, signer: s, issuer: issuer, audience: audience}, nil
}

func (j *jwtCodec) mint(c AccessTokenClaims) (string, error) {
	return jwt.Signed(j.signer).Claims(c).Serialize()
}

// verify checks a bearer token: HS256 only, typ at+jwt, a kid naming the
// current or a previous key whose signature verifies, our issuer, our
// resource among the audiences, present and unexpired exp, nbf and iat
// within ClockSkew. Every failure wraps mcp.ErrUnauthorized.
func (j *jwtCodec) verify(raw string, now time.Time) (*AccessTokenClaims, error) {
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.HS256})
	if err != nil {
		return nil, fmt.Errorf("%w: malformed access token: %v", mcp.ErrUnauthorized, err)
	}
	if len(tok.Headers) != 1 || tok.Headers[0].ExtraHeaders["typ"] != "at+jwt" {
		return nil, fmt.Errorf("%w: not an access token (typ is not at+jwt)", mcp.ErrUnauthorized)
	}
	key, ok := j.keys[tok.Headers[0].KeyID]
	if !ok {
		return nil, fmt.Errorf("%w: access token signed with an unknown key (kid)", mcp.ErrUnauthorized)
	}
	var c AccessTokenClaims
	if err := tok.Claims(key, &c); err != nil {
		return nil, fmt.Errorf("%w: access token signature does not verify", mcp.ErrUnauthorized)
	}
	if c.Expiry == nil {
		return nil, fmt.Errorf("%w: access token has no exp", mcp.ErrUnauthorized)
	}
	err = c.Claims.ValidateWithLeeway(jwt.Expected{Issuer: j.issuer, AnyAudience: jwt.Audience{j.audience}, Time: now}, ClockSkew)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, fmt.Errorf("%w: access token expired", mcp.ErrUnauthorized)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, fmt.Errorf("%w: access token is for another resource", mcp.ErrUnauthorized)
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, fmt.Errorf("%w: access token from another issuer", mcp.ErrUnauthorized)
	case err != nil:
		return nil, fmt.Errorf("%w: access token rejected: %v", mcp.ErrUnauthorized, err)
	}
	if c.ID == "" || c.GrantID == "" || c.ClientID == "" {
		return nil, fmt.Errorf("%w: access token lacks jti, gid or client_id", mcp.ErrUnauthorized)
	}
	return &c, nil
}
