package providers

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expireUpstream makes the grant behind an access token hold an expired
// upstream token.
func expireUpstream(t *testing.T, e *env, at string) string {
	claims, err := e.p.jwt.verify(at, time.Now())
	require.NoError(t, err)
	g, err := e.p.loadGrant(context.Background(), claims.GrantID)
	require.NoError(t, err)
	g.Token.Expiry = time.Now().Add(-time.Minute)
	require.NoError(t, e.p.saveGrant(context.Background(), claims.GrantID, g, false))
	return claims.GrantID
}

// A user disabled at the identity provider loses access
// here too.
func TestThreatUpstreamInvalidGrantEndsTheLogin(t *testing.T) {
	t.Parallel()
	t.Run("on a request", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		c, tok := loginTokens(t, e)
		gid := expireUpstream(t, e, tok["access_token"].(string))
		e.idp.refreshFails.Store(true)
		code, _ := e.call(tok["access_token"].(string))
		assert.Equal(t, 401, code, "the upstream refresh answered invalid_grant: the token is refused")
		_, err := e.p.loadGrant(context.Background(), gid)
		assert.ErrorIs(t, err, ErrNotFound, "and the grant is deleted")
		st, _ := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
		assert.Equal(t, 400, st)
	})
	t.Run("on our refresh", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		c, tok := loginTokens(t, e)
		expireUpstream(t, e, tok["access_token"].(string))
		e.idp.refreshFails.Store(true)
		st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
		assert.Equal(t, 400, st, "no token is minted on a login the provider ended")
		assert.Equal(t, "invalid_grant", out["error"])
		assert.Equal(t, int32(1), e.idp.refreshes.Load())
	})
	t.Run("expired upstream token refreshed before we mint", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		c, tok := loginTokens(t, e)
		gid := expireUpstream(t, e, tok["access_token"].(string))
		st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
		require.Equal(t, 200, st, out)
		assert.Equal(t, int32(1), e.idp.refreshes.Load(), "our refresh refreshed upstream first")
		g, err := e.p.loadGrant(context.Background(), gid)
		require.NoError(t, err)
		assert.Equal(t, "up-at-2", g.Token.AccessToken)
	})
	t.Run("no upstream refresh: the user API is asked again", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		e.idp.noRefresh.Store(true) // tokens that never expire, as a code host's
		c, tok := loginTokens(t, e)
		st, tok2 := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
		require.Equal(t, 200, st, "the user still exists: %v", tok2)
		e.idp.userGone.Store(true)
		st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok2["refresh_token"].(string)}})
		assert.Equal(t, 400, st, "the user API refuses the token: the login ends")
		assert.Equal(t, "invalid_grant", out["error"])
		code, _ := e.call(tok2["access_token"].(string))
		assert.Equal(t, 401, code, "the grant is gone")
	})
}

// A login has an absolute lifetime, however often its
// refresh token is used.
func TestThreatLoginHasAnAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	store := NewMemoryStorage(&MemoryStorageOptions{Now: clock, CleanupInterval: time.Hour})
	t.Cleanup(func() { _ = store.Close() })
	e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store; c.RefreshTokenTTL = 7 * 24 * time.Hour })
	e.p.now = clock
	e.idp.noRefresh.Store(true) // no upstream expiry in the way
	c, tok := loginTokens(t, e)
	rt := tok["refresh_token"].(string)
	for day := 5; day < 30; day += 5 {
		now.Add(int64(5 * 24 * time.Hour))
		st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
		require.Equal(t, 200, st, "day %d: %v", day, out)
		rt = out["refresh_token"].(string)
	}
	now.Add(int64(5*24*time.Hour + time.Minute)) // 30 days and a minute after the login
	st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
	assert.Equal(t, 400, st, "past %v the login is over: %v", DefaultMaxLoginLifetime, out)
	assert.Equal(t, "invalid_grant", out["error"])
}
