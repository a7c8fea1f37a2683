package resourceserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/resourceserver"
)

// TestForgedTokensDoNotAmplifyJWKSFetches (issue 31, hole 4): tokens
// that name a published key id but carry a signature of another key, and
// tokens that name no key, are refused without a JWKS fetch each: one
// refetch for the lot. A real token keeps working from the cached keys,
// and a key the issuer adds later is still picked up by a refetch.
func TestForgedTokensDoNotAmplifyJWKSFetches(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.addKey("forger", false) // an ECDSA key the issuer never published
	clock := &fakeClock{t: time.Now()}
	v := newVerifier(t, is, func(c *resourceserver.Config) { c.Now = clock.now })
	ctx := context.Background()

	_, err := v.Verify(ctx, is.sign("k1", is.claims()))
	require.NoError(t, err)
	require.Equal(t, int32(1), is.jwksHits.Load(), "the first token fetches the keys")

	forged := []string{
		is.forge("forger", "k1", is.claims()), // ES256 under the RSA key's id
		is.forge("forger", "", is.claims()),   // no key id
	}
	for range 50 {
		for _, tok := range forged {
			_, err := v.Verify(ctx, tok)
			require.ErrorIs(t, err, mcp.ErrInvalidToken)
		}
	}
	assert.LessOrEqual(t, is.jwksHits.Load(), int32(2), "100 forged tokens, at most one refetch")

	_, err = v.Verify(ctx, is.sign("k1", is.claims()))
	require.NoError(t, err, "the real key still verifies from the cache")

	// A key added after the flood is fetched once the refetch budget is
	// back (at most one refetch per interval, whatever the tokens).
	is.addKey("k2", true)
	hits := is.jwksHits.Load()
	clock.advance(time.Minute)
	s, err := v.Verify(ctx, is.sign("k2", is.claims()))
	require.NoError(t, err, "the rotated-in key is fetched")
	assert.Equal(t, "user-42", s.Sub)
	assert.Equal(t, hits+1, is.jwksHits.Load(), "one fetch for the new key")
	_, err = v.Verify(ctx, is.sign("k2", is.claims()))
	require.NoError(t, err)
	assert.Equal(t, hits+1, is.jwksHits.Load(), "then it is cached")
}
