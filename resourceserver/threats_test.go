package resourceserver_test

import (
	"context"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/resourceserver"
)

// TestForgedTokensDoNotAmplifyJWKSFetches: tokens
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

// TestIntrospectionFloodIsThrottled: an inactive
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

// compactOf joins a header, claims and signature into a compact JWS.
func compactOf(t *testing.T, h, c map[string]any, sig []byte) string {
	t.Helper()
	hb, err := json.Marshal(h)
	require.NoError(t, err)
	cb, err := json.Marshal(c)
	require.NoError(t, err)
	return base64.RawURLEncoding.EncodeToString(hb) + "." + base64.RawURLEncoding.EncodeToString(cb) + "." +
		base64.RawURLEncoding.EncodeToString(sig)
}

// hmacToken is a JWT of claims signed HS256 with secret, naming kid.
func hmacToken(t *testing.T, secret []byte, kid string, claims map[string]any) string {
	t.Helper()
	h := map[string]any{"alg": "HS256", "typ": "JWT", "kid": kid}
	unsigned := compactOf(t, h, claims, nil)
	unsigned = strings.TrimSuffix(unsigned, ".")
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(unsigned))
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// TestAttackForgedJWTs: what an outsider can make without the issuer's
// keys is refused with 401, and nothing it names is fetched: algorithm
// confusion (HS256 keyed with the published RSA key, alg none), a key of
// its own in the header (jwk, jku, x5u), absurd key ids, a deeply nested
// payload; and the audience, issuer and time mix-ups of real tokens.
func TestAttackForgedJWTs(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	var strangerHits atomic.Int32
	stranger := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		strangerHits.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(stranger.Close)
	// The verifier's clock stands still, so that the leeway edges do not
	// depend on when the parallel subtests get to run.
	now := time.Now()
	v := newVerifier(t, is, func(c *resourceserver.Config) { c.Now = func() time.Time { return now } })
	ts := server(t, v)
	is.mu.Lock()
	pub := publicOf(is.keys["k1"])
	is.mu.Unlock()
	der, err := x509.MarshalPKIXPublicKey(pub)
	require.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	jwkJSON, err := json.Marshal(jose.JSONWebKey{Key: pub, KeyID: "k1"})
	require.NoError(t, err)
	attacker := newDPoPKey(t)
	selfSigned := func(extra map[string]any) string {
		opts := (&jose.SignerOptions{}).WithType("at+jwt")
		for k, v := range extra {
			opts = opts.WithHeader(jose.HeaderKey(k), v)
		}
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: attacker}, opts)
		require.NoError(t, err)
		tok, err := jwt.Signed(s).Claims(is.claims()).Serialize()
		require.NoError(t, err)
		return tok
	}
	with := func(mod func(c map[string]any)) string {
		c := is.claims()
		mod(c)
		return is.sign("k1", c)
	}
	deep := is.claims()
	deep["x"] = json.RawMessage(strings.Repeat("[", 4000) + strings.Repeat("]", 4000))

	tests := []struct {
		name, tok string
		admitted  bool
		desc      string
	}{
		{"HS256 keyed with the published key's PEM", hmacToken(t, pemKey, "k1", is.claims()), false, "accepted algorithm"},
		{"HS256 keyed with the published key's JWK", hmacToken(t, jwkJSON, "k1", is.claims()), false, "accepted algorithm"},
		{"HS256 keyed with the RSA modulus", hmacToken(t, pub.(*rsa.PublicKey).N.Bytes(), "k1", is.claims()), false, "accepted algorithm"},
		{"alg none", compactOf(t, map[string]any{"alg": "none", "kid": "k1"}, is.claims(), nil), false, "accepted algorithm"},
		{"alg NONE", compactOf(t, map[string]any{"alg": "NONE", "kid": "k1"}, is.claims(), nil), false, "accepted algorithm"},
		{"its own key as jwk", selfSigned(map[string]any{"jwk": jose.JSONWebKey{Key: attacker.Public()}}), false, "does not verify"},
		{"its own key set as jku", selfSigned(map[string]any{"jku": stranger.URL + "/jwks", "kid": "evil"}), false, "does not verify"},
		{"its own certificate as x5u", selfSigned(map[string]any{"x5u": stranger.URL + "/cert", "kid": "k1"}), false, "does not verify"},
		{"a kid of 8 KB", selfSigned(map[string]any{"kid": strings.Repeat("k", 8<<10)}), false, "does not verify"},
		{"a kid with a path", selfSigned(map[string]any{"kid": "../../jwks?x=" + stranger.URL}), false, "does not verify"},
		{"a forged token with a deeply nested payload", func() string {
			s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: attacker}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
			require.NoError(t, err)
			tok, err := jwt.Signed(s).Claims(deep).Serialize()
			require.NoError(t, err)
			return tok
		}(), false, "does not verify"},
		{"an issuer-signed token with a deeply nested claim", is.sign("k1", deep), true, ""},
		{"aud the issuer", with(func(c map[string]any) { c["aud"] = is.url }), false, "not for this resource"},
		{"aud with a trailing slash", with(func(c map[string]any) { c["aud"] = resource + "/" }), false, "not for this resource"},
		{"aud of another case", with(func(c map[string]any) { c["aud"] = strings.ToUpper(resource) }), false, "not for this resource"},
		{"aud a client id (an ID token)", with(func(c map[string]any) { c["aud"] = "client-7"; c["nonce"] = "n" }), false, "not for this resource"},
		{"no aud", with(func(c map[string]any) { delete(c, "aud") }), false, "not for this resource"},
		{"iss with a trailing slash", with(func(c map[string]any) { c["iss"] = is.url + "/" }), false, "not issued by"},
		{"iss of another tenant under the same keys", with(func(c map[string]any) { c["iss"] = is.url + "/tenant-b" }), false, "not issued by"},
		{"iss a list", with(func(c map[string]any) { c["iss"] = []string{is.url} }), false, "malformed"},
		{"exp 20 s ago (within the leeway)", with(func(c map[string]any) { c["exp"] = now.Add(-20 * time.Second).Unix() }), true, ""},
		{"exp 40 s ago", with(func(c map[string]any) { c["exp"] = now.Add(-40 * time.Second).Unix() }), false, "expired"},
		{"exp far beyond any date", with(func(c map[string]any) { c["exp"] = 1e12 }), false, "malformed"},
		{"nbf 20 s ahead (within the leeway)", with(func(c map[string]any) { c["nbf"] = now.Add(20 * time.Second).Unix() }), true, ""},
		{"nbf 40 s ahead", with(func(c map[string]any) { c["nbf"] = now.Add(40 * time.Second).Unix() }), false, "not valid yet"},
		{"iat 40 s ahead", with(func(c map[string]any) { c["iat"] = now.Add(40 * time.Second).Unix() }), false, "in the future"},
		{"sub empty", with(func(c map[string]any) { c["sub"] = "" }), false, "no subject"},
		{"cnf not an object", with(func(c map[string]any) { c["cnf"] = "jkt" }), false, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := post(t, ts, "Bearer "+tt.tok, "", initBody)
			if tt.admitted {
				require.Equal(t, 200, resp.StatusCode, body)
				return
			}
			require.Equal(t, 401, resp.StatusCode, body)
			assert.Contains(t, resp.Header.Get("WWW-Authenticate"), tt.desc)
			assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
		})
	}
	t.Cleanup(func() { assert.Zero(t, strangerHits.Load(), "nothing the token names is fetched") })
}

// TestAttackLyingIntrospection: introspection answers that are wrong in
// any way are never an admission: not active in the right type, for
// another issuer or audience, without expiry, not an access token, a
// DPoP token without its key, a binding this server cannot check, not
// JSON, too big. A malformed answer is the provider's fault: 503.
func TestAttackLyingIntrospection(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	v := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec}
	})
	good := func(mod func(a map[string]any)) map[string]any {
		a := is.claims()
		a["active"] = true
		mod(a)
		return a
	}
	raw := func(s string) map[string]any { return map[string]any{rawAnswer: s} }
	tests := []struct {
		name   string
		answer map[string]any
		want   error
	}{
		{"active the string true", good(func(a map[string]any) { a["active"] = "true" }), mcp.ErrInvalidToken},
		{"active 1", good(func(a map[string]any) { a["active"] = 1 }), mcp.ErrInvalidToken},
		{"no active", good(func(a map[string]any) { delete(a, "active") }), mcp.ErrInvalidToken},
		{"another issuer", good(func(a map[string]any) { a["iss"] = "https://evil.example.com" }), mcp.ErrInvalidToken},
		{"another audience", good(func(a map[string]any) { a["aud"] = "https://other.example.com" }), mcp.ErrInvalidToken},
		{"no audience", good(func(a map[string]any) { delete(a, "aud") }), mcp.ErrInvalidToken},
		{"no expiry", good(func(a map[string]any) { delete(a, "exp") }), mcp.ErrInvalidToken},
		{"expired", good(func(a map[string]any) { a["exp"] = time.Now().Add(-time.Hour).Unix() }), mcp.ErrInvalidToken},
		{"a refresh token", good(func(a map[string]any) { a["token_type"] = "refresh_token" }), mcp.ErrInvalidToken},
		{"a DPoP token without its key", good(func(a map[string]any) { a["token_type"] = "DPoP" }), mcp.ErrInvalidToken},
		{"bound to a certificate", good(func(a map[string]any) { a["cnf"] = map[string]any{"x5t#S256": "abc"} }), mcp.ErrInvalidToken},
		{"sub a number", good(func(a map[string]any) { a["sub"] = 42 }), mcp.ErrAuthUnavailable},
		{"not JSON", raw("<html>ok</html>"), mcp.ErrAuthUnavailable},
		{"two objects", raw(`{"active":true} {"active":true}`), mcp.ErrAuthUnavailable},
		{"70 KB", raw(`{"active":true,"x":"` + strings.Repeat("a", 70<<10) + `"}`), mcp.ErrAuthUnavailable},
		{"null", raw(`null`), mcp.ErrAuthUnavailable},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tok := fmt.Sprintf("opaque-lie-%d", i)
			is.answer(tok, tt.answer)
			s, err := v.Verify(context.Background(), tok)
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, s)
		})
	}
}
