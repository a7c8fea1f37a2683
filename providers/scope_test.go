package providers

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 31, hole 13: the scope of a refresh is bounded and de-duplicated
// as at authorization and registration; a 40 KB scope used to yield a
// 54 KB access token.
func TestThreatRefreshScopeIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c, tok := loginTokens(t, e)
	rt := tok["refresh_token"].(string)
	refresh := func(scope string) (int, map[string]any) {
		return e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "scope": {scope}})
	}

	st, out := refresh(strings.Repeat("read ", 8200))
	assert.Equal(t, 400, st, "a 41 KB scope: %v", out["error_description"])
	assert.Equal(t, "invalid_scope", out["error"])
	assert.Contains(t, out["error_description"], "longer than 1024 bytes")
	assert.NotContains(t, out, "access_token")
	st, out = refresh("read admin")
	assert.Equal(t, 400, st, "a scope never granted")
	assert.Equal(t, "invalid_scope", out["error"])

	// The refused requests did not spend the refresh token.
	st, out = refresh("read read write read")
	require.Equal(t, 200, st, "repeats: %v", out)
	assert.Equal(t, "read write", out["scope"], "each scope once")
	claims, err := e.p.jwt.verify(out["access_token"].(string), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "read write", claims.Scope)
	assert.Less(t, len(out["access_token"].(string)), 1024)

	rt = out["refresh_token"].(string)
	st, out = refresh("read")
	require.Equal(t, 200, st, out)
	assert.Equal(t, "read", out["scope"], "a refresh may narrow")
	rt = out["refresh_token"].(string)
	st, out = refresh("   ")
	require.Equal(t, 200, st, out)
	assert.Equal(t, "read", out["scope"], "a blank scope keeps the granted ones")
}
