package resourceserver_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/resourceserver"
)

// TestSubjectTokenIsPerRequest: the session a request gets carries the
// token it came with (for token exchange), as a JWT and by introspection,
// on a copy of its own: the introspection cache's session never holds a
// token.
func TestSubjectTokenIsPerRequest(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	jwtV := newVerifier(t, is, nil)
	introV := newVerifier(t, is, func(c *resourceserver.Config) {
		c.Introspection = &resourceserver.IntrospectionConfig{ClientID: introID, ClientSecret: introSec}
	})
	is.activate("opaque-7", is.claims())
	signed := is.sign("k1", is.claims())
	for _, tc := range []struct {
		name string
		v    *resourceserver.Verifier
		tok  string
	}{{"JWT", jwtV, signed}, {"introspection", introV, "opaque-7"}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []*resourceserver.Session
			for range 2 {
				r := httptest.NewRequest("POST", "/mcp", nil)
				r.Header.Set("Authorization", "Bearer "+tc.tok)
				s, err := tc.v.VerifyRequest(r)
				require.NoError(t, err)
				got = append(got, s.(*resourceserver.Session))
			}
			assert.NotSame(t, got[0], got[1], "each request its own copy")
			for _, s := range got {
				tok, typ := s.SubjectToken()
				assert.Equal(t, tc.tok, tok)
				assert.Equal(t, "urn:ietf:params:oauth:token-type:access_token", typ)
			}
			s, err := tc.v.Verify(context.Background(), tc.tok)
			require.NoError(t, err)
			tok, _ := s.SubjectToken()
			assert.Equal(t, tc.tok, tok)
		})
	}
	cached, ok := resourceserver.CachedSubjectToken(introV, "opaque-7")
	require.True(t, ok, "the answer is cached")
	assert.Empty(t, cached, "without the token")
}
