package providers

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// TestThreatLoginFloodIsBoundedPerUser: a user
// whose provider approves again without asking could sign in in a loop,
// each login leaving a 30-day grant and refresh token. Beyond
// Config.MaxLoginsPerUser live logins, a new one revokes the user's
// oldest, on MemoryStorage and on Redis: the storage holds at most that
// many grants of the user, the newest logins work and the oldest do not.
func TestThreatLoginFloodIsBoundedPerUser(t *testing.T) {
	t.Parallel()
	const limit, logins = 3, 7
	for _, sc := range []struct {
		name string
		open func(t *testing.T) (TokenStorage, func() int)
	}{
		{"memory", func(t *testing.T) (TokenStorage, func() int) {
			s := NewMemoryStorage(nil)
			t.Cleanup(func() { _ = s.Close() })
			return s, func() int {
				s.mu.Lock()
				defer s.mu.Unlock()
				n := 0
				for k, e := range s.m {
					if strings.HasPrefix(k, "grant:") && !e.expired(s.now()) {
						n++
					}
				}
				return n
			}
		}},
		{"redis", func(t *testing.T) (TokenStorage, func() int) {
			rc := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = rc.Close() })
			s := NewRedisStorageForTest(rc, "", 0, 0)
			return s, func() int {
				keys, err := rc.Keys(context.Background(), "*grant:*").Result()
				require.NoError(t, err)
				return len(keys)
			}
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			store, grants := sc.open(t)
			e := newEnv(t, func(c *OAuthProviderConfig) {
				c.TokenStorage = store
				c.MaxLoginsPerUser = limit
				c.AuthorizeRateLimit = RateLimit{PerMinute: -1}
			})
			c := e.register("none")
			var refresh []string
			for i := range logins {
				u := e.login(browser(t), c)
				st, tok := e.exchange(c, u.Query().Get("code"))
				require.Equal(t, 200, st, "login %d: %v", i, tok)
				refresh = append(refresh, tok["refresh_token"].(string))
				assert.LessOrEqual(t, grants(), limit, "after login %d", i)
			}
			assert.Equal(t, limit, grants(), "the storage holds the user's newest logins only")
			for i, rt := range refresh {
				st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
				if i < logins-limit {
					assert.Equal(t, 400, st, "login %d was revoked: %v", i, out)
					assert.Equal(t, "invalid_grant", out["error"])
				} else {
					assert.Equal(t, 200, st, "login %d still works: %v", i, out)
				}
			}
		})
	}
}

// TestLoginsOfOneUserDoNotCountForAnother: the bound is per user; another
// user's logins are not revoked by the first one's.
func TestLoginsOfOneUserDoNotCountForAnother(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *OAuthProviderConfig) {
		c.MaxLoginsPerUser = 1
		c.AuthorizeRateLimit = RateLimit{PerMinute: -1}
	})
	ctx := context.Background()
	until := e.p.now().Add(e.p.cfg.MaxLoginLifetime)
	require.NoError(t, e.p.store.Put(ctx, "grant:bob-1", []byte("x"), 0))
	require.NoError(t, e.p.trackLogin(ctx, "bob", "bob-1", until))
	require.NoError(t, e.p.store.Put(ctx, "grant:alice-1", []byte("x"), 0))
	require.NoError(t, e.p.trackLogin(ctx, "alice", "alice-1", until))
	_, err := e.p.store.Get(ctx, "grant:bob-1")
	require.NoError(t, err, "bob's login stays")
	require.NoError(t, e.p.store.Put(ctx, "grant:alice-2", []byte("x"), 0))
	require.NoError(t, e.p.trackLogin(ctx, "alice", "alice-2", until))
	_, err = e.p.store.Get(ctx, "grant:alice-1")
	require.ErrorIs(t, err, ErrNotFound, "alice's older login is revoked")
	_, err = e.p.store.Get(ctx, "grant:bob-1")
	require.NoError(t, err, "bob's login still stays")
}

// TestConcurrentLoginsOfOneUserStayBounded: logins of one user recorded
// at once (several clients, several instances on one storage) take turns
// with the user's index, so none escapes the bound.
func TestConcurrentLoginsOfOneUserStayBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *OAuthProviderConfig) { c.MaxLoginsPerUser = 3 })
	ctx := context.Background()
	until := e.p.now().Add(e.p.cfg.MaxLoginLifetime)
	const n = 12
	errs := make(chan error, n)
	for i := range n {
		go func() {
			g := "g" + strconv.Itoa(i)
			if err := e.p.store.Put(ctx, "grant:"+g, []byte("x"), 0); err != nil {
				errs <- err
				return
			}
			errs <- e.p.trackLogin(ctx, "alice", g, until)
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	live := 0
	for i := range n {
		if _, err := e.p.store.Get(ctx, "grant:g"+strconv.Itoa(i)); err == nil {
			live++
		}
	}
	assert.Equal(t, 3, live)
}
