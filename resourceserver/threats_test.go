package resourceserver_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// TestIntrospectionFloodIsThrottled (issue 31, "also seen"): an inactive
// answer is remembered for a short time, so the same garbage token
// sent again costs no call; distinct garbage tokens are bounded by one
// limiter on all calls (refused with 503 beyond it, never admitted); a
// good token that was cached before the flood still passes, and calls
// resume once the limiter refills.
func TestIntrospectionFloodIsThrottled(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	clock := &fakeClock{t: time.Now()}
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec, RateLimit: 5}
		c.Now = clock.now
	})
	ctx := context.Background()
	good := is.claims()
	good["exp"] = clock.now().Add(time.Hour).Unix()
	is.activate("good-before", good)
	_, err := v.Verify(ctx, "good-before")
	require.NoError(t, err)

	before := is.introHits.Load()
	for range 100 {
		_, err := v.Verify(ctx, "garbage")
		require.ErrorIs(t, err, mcp.ErrInvalidToken)
	}
	assert.Equal(t, before+1, is.introHits.Load(), "one call for the same inactive token sent 100 times")

	var refused, unavailable int
	for i := range 100 {
		_, err := v.Verify(ctx, fmt.Sprintf("garbage-%d", i))
		require.Error(t, err)
		switch {
		case errors.Is(err, mcp.ErrInvalidToken):
			refused++
		case errors.Is(err, mcp.ErrAuthUnavailable):
			unavailable++
		default:
			t.Fatalf("garbage-%d: %v", i, err)
		}
	}
	assert.LessOrEqual(t, is.introHits.Load()-before, int32(5), "100 distinct garbage tokens, at most the burst of calls")
	assert.Equal(t, 100, refused+unavailable)
	assert.Positive(t, unavailable, "calls beyond the limit are refused with 503")

	_, err = v.Verify(ctx, "good-before")
	require.NoError(t, err, "a token cached before the flood still passes")

	is.activate("good-after", good)
	_, err = v.Verify(ctx, "good-after")
	require.ErrorIs(t, err, mcp.ErrAuthUnavailable, "a new token waits for the limiter")
	clock.advance(time.Second)
	_, err = v.Verify(ctx, "good-after")
	require.NoError(t, err, "and passes once it refills")

	clock.advance(11 * time.Second)
	hits := is.introHits.Load()
	_, err = v.Verify(ctx, "garbage")
	require.ErrorIs(t, err, mcp.ErrInvalidToken)
	assert.Equal(t, hits+1, is.introHits.Load(), "an inactive answer is forgotten after 10 s")
}

// TestIntrospectionConcurrentCallsShared: many requests with one token at
// once make one call to the endpoint.
func TestIntrospectionConcurrentCallsShared(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec}
	})
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open) // before the issuer closes, whatever fails
	is.holdIntrospection(release)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), "never-issued")
			assert.ErrorIs(t, err, mcp.ErrInvalidToken)
		})
	}
	require.Eventually(t, func() bool { return is.introWaiting.Load() == 1 }, 5*time.Second, time.Millisecond)
	open()
	wg.Wait()
	assert.Equal(t, int32(1), is.introHits.Load())
}
