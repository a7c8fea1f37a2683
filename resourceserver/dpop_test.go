package resourceserver_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/resourceserver"
)

// thumbprint is the RFC 7638 SHA-256 thumbprint of key's public key, as
// cnf.jkt carries it.
func thumbprint(t *testing.T, key crypto.Signer) string {
	t.Helper()
	jwk := jose.JSONWebKey{Key: key.Public()}
	b, err := jwk.Thumbprint(crypto.SHA256)
	require.NoError(t, err)
	return base64.RawURLEncoding.EncodeToString(b)
}

func newDPoPKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

// TestDPoPBoundTokenAsBearerRefused (issue 31, hole 7): a token bound to
// a DPoP key (cnf.jkt, in the JWT or in the introspection answer) and
// sent as a plain bearer token, without a proof, is refused: the thief
// of a bound token gains nothing.
func TestDPoPBoundTokenAsBearerRefused(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	key := newDPoPKey(t)
	bound := is.claims()
	bound["cnf"] = map[string]any{"jkt": thumbprint(t, key)}
	is.activate("opaque-bound", bound)
	jwtV := newVerifier(t, is, nil)
	introV := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec}
	})
	for name, tc := range map[string]struct {
		v   *resourceserver.Verifier
		tok string
	}{
		"JWT":           {jwtV, is.sign("k1", bound)},
		"introspection": {introV, "opaque-bound"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ts := server(t, tc.v)
			resp, body := post(t, ts, "Bearer "+tc.tok, "", initBody)
			require.Equal(t, 401, resp.StatusCode, body)
			ch := resp.Header.Get("WWW-Authenticate")
			assert.Contains(t, ch, `error="invalid_token"`)
			assert.Contains(t, ch, "bound to a DPoP key")
			assert.Contains(t, ch, `DPoP algs="`)
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))

			_, err := tc.v.Verify(context.Background(), tc.tok)
			require.Error(t, err, "Verify, which sees no proof, refuses a bound token too")
		})
	}
}
