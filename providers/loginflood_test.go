package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// Issue 31, hole 2: anonymous authorization starts each store a
// transaction; they must never take the room of the codes, grants and
// refresh tokens of users who log in.

// floodQuota is the transaction quota of the flood tests' storages.
const floodQuota = 40

// floodStorage is one storage of the flood test. capMemory is called
// once the users' records are in, before the flood; room then says how
// many bytes are left (-1: the storage has no byte cap).
type floodStorage struct {
	name string
	open func(t *testing.T) (s TokenStorage, capMemory func(), room func() int64)
}

// floodStorages are a MemoryStorage whose records other than
// registrations and transactions are capped too (so the flood would fill
// that room if it could), and a redisstorage.Storage on a redis-server of
// its own, whose memory is capped 1 MiB above what it holds before the
// flood, with maxmemory-policy noeviction, as docs/auth.md asks.
func floodStorages() []floodStorage {
	return []floodStorage{
		{"memory", func(t *testing.T) (TokenStorage, func(), func() int64) {
			s := NewMemoryStorage(&MemoryStorageOptions{MaxEntries: floodQuota, MaxTransactions: floodQuota})
			t.Cleanup(func() { _ = s.Close() })
			return s, func() {}, func() int64 { return -1 }
		}},
		{"redis", func(t *testing.T) (TokenStorage, func(), func() int64) {
			addr := redistest.Start(t)
			rc := redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { _ = rc.Close() })
			s := NewRedisStorageForTest(rc, "", 0, floodQuota)
			var limit int64
			return s, func() {
					ctx := context.Background()
					limit = redistest.UsedMemory(t, rc) + 1<<20
					require.NoError(t, rc.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err())
					require.NoError(t, rc.ConfigSet(ctx, "maxmemory", fmt.Sprint(limit)).Err())
				}, func() int64 {
					return limit - redistest.UsedMemory(t, rc)
				}
		}},
	}
}

func TestThreatAuthorizeFloodKeepsLoginsWorking(t *testing.T) {
	t.Parallel()
	for _, sc := range floodStorages() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			store, capMemory, room := sc.open(t)
			e := newEnv(t, func(c *OAuthProviderConfig) {
				c.TokenStorage = store
				c.AuthorizeRateLimit = RateLimit{PerMinute: -1} // the quota is what holds
			})
			victim, tok := loginTokens(t, e)
			// A login that started before the flood and goes on after it.
			newcomer := e.register("none")
			nb := browser(t)
			form := e.consent(nb, e.authorizeURL(newcomer, nil))
			form.Set("action", "approve")

			// The flooder registers the longest redirect URI allowed and
			// sends the longest state, so each transaction is as large as
			// it can be.
			long := "http://localhost:5000/" + strings.Repeat("a", maxRedirectURI-len("http://localhost:5000/"))
			flooder := e.register("none", long)
			capMemory()
			b := browser(t)
			stored, refused := 0, 0
			var lastRefusal *http.Response
			for range 2000 {
				resp := do(t, b, "GET", e.authorizeURL(flooder, url.Values{"state": {strings.Repeat("s", maxState)}}), nil, nil)
				if resp.StatusCode == http.StatusFound && strings.HasPrefix(resp.Header.Get("Location"), ConsentPath) {
					stored++
					continue
				}
				refused++
				lastRefusal = resp
				if refused == 5 {
					break
				}
			}
			t.Logf("%s: %d transactions stored, then refused", sc.name, stored)
			require.NotNil(t, lastRefusal, "the flood reached the quota")
			assert.Equal(t, floodQuota-1, stored, "the transaction quota (the newcomer's is one) stops the flood")
			if left := room(); left >= 0 {
				t.Logf("%s: %d bytes left under maxmemory after the flood", sc.name, left)
				assert.Greater(t, left, int64(512<<10), "the flood left the users' room free")
			}
			// The flooder hears that the server is busy, not that it failed.
			loc, _ := url.Parse(lastRefusal.Header.Get("Location"))
			assert.Equal(t, "temporarily_unavailable", loc.Query().Get("error"), "the refusal: %d", lastRefusal.StatusCode)

			// The logged-in user's refresh works, and so do its tokens.
			st, out := e.token(victim, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
			require.Equal(t, 200, st, "refresh during the flood: %v", out)
			code, body := e.call(out["access_token"].(string))
			assert.Equal(t, 200, code, body)

			// The newcomer's login completes: approve, provider, callback,
			// code exchange.
			resp := do(t, nb, "POST", e.ts.URL+ConsentPath, form, nil)
			require.Equal(t, 303, resp.StatusCode, "approve during the flood: %s", readBody(t, resp))
			resp = do(t, nb, "GET", resp.Header.Get("Location"), nil, nil)
			require.Equal(t, 302, resp.StatusCode)
			resp = do(t, nb, "GET", resp.Header.Get("Location"), nil, nil)
			require.Equal(t, 302, resp.StatusCode, "callback during the flood: %s", readBody(t, resp))
			u, err := url.Parse(resp.Header.Get("Location"))
			require.NoError(t, err)
			require.NotEmpty(t, u.Query().Get("code"), "callback during the flood: %s", u)
			st, out = e.exchange(newcomer, u.Query().Get("code"))
			require.Equal(t, 200, st, "code exchange during the flood: %v", out)
		})
	}
}

// failAfterSwap is a storage whose Swap of a key with prefix does its
// work and then reports a failure, once: a reply lost on the way back
// from Redis.
type failAfterSwap struct {
	*hookStore
	prefix string
	armed  atomic.Bool
}

func (f *failAfterSwap) Swap(ctx context.Context, key string, val []byte, ttl time.Duration) ([]byte, error) {
	b, err := f.hookStore.Swap(ctx, key, val, ttl)
	if err == nil && strings.HasPrefix(key, f.prefix) && f.armed.CompareAndSwap(true, false) {
		return nil, errors.New("connection reset before the reply")
	}
	return b, err
}

// A refresh or code exchange whose new refresh token cannot be stored
// (the storage is full or down) answers an error the client retries, and
// leaves the refresh token (or code) it used good: the retry works and
// the login lives on. A retry is not a reuse, even when the storage did
// mark the old token used but its reply was lost.
func TestThreatFailedRefreshKeepsTheLogin(t *testing.T) {
	t.Parallel()
	down := errors.New("storage full")
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			fs := &failAfterSwap{hookStore: &hookStore{TokenStorage: sc.open(t)}, prefix: "rt:"}
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = fs })
			failNextPut := func(prefix string) {
				var once atomic.Bool
				fs.fail = func(op, key string) error {
					if op == "put" && strings.HasPrefix(key, prefix) && once.CompareAndSwap(false, true) {
						return down
					}
					return nil
				}
			}

			// The code exchange's refresh token cannot be stored.
			c := e.register("client_secret_post")
			u := e.login(browser(t), c)
			failNextPut("rt:")
			st, out := e.exchange(c, u.Query().Get("code"))
			assert.Equal(t, 503, st, "the failed code exchange: %v", out)
			assert.Equal(t, "temporarily_unavailable", out["error"])
			st, tok := e.exchange(c, u.Query().Get("code"))
			require.Equal(t, 200, st, "the retried code exchange: %v", tok)

			// A refresh whose new refresh token cannot be stored.
			rt := tok["refresh_token"].(string)
			failNextPut("rt:")
			st, out = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			assert.Equal(t, 503, st, "the failed refresh: %v", out)
			code, _ := e.call(tok["access_token"].(string))
			assert.Equal(t, 200, code, "the login lives on")
			st, out = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			require.Equal(t, 200, st, "the retried refresh is no reuse: %v", out)
			code, _ = e.call(out["access_token"].(string))
			assert.Equal(t, 200, code)

			// A refresh that cannot read its login (the storage is down
			// a moment): 503, and the refresh token stays good.
			rt = out["refresh_token"].(string)
			var once atomic.Bool
			fs.fail = func(op, key string) error {
				if op == "get" && strings.HasPrefix(key, "grant:") && once.CompareAndSwap(false, true) {
					return down
				}
				return nil
			}
			st, out = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			assert.Equal(t, 503, st, "a refresh whose login could not be read: %v", out)
			st, out = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			require.Equal(t, 200, st, "its retry: %v", out)

			// A refresh whose old token was marked used but whose reply
			// was lost: the retry works too.
			rt = out["refresh_token"].(string)
			fs.armed.Store(true)
			st, out = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			assert.Equal(t, 503, st, "the refresh whose reply was lost: %v", out)
			st, out = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			require.Equal(t, 200, st, "its retry is no reuse: %v", out)
			code, _ = e.call(out["access_token"].(string))
			assert.Equal(t, 200, code)

			// Reuse is still reuse: the token spent by that retry, once
			// more, revokes the login.
			st, _ = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			assert.Equal(t, 400, st)
			code, _ = e.call(out["access_token"].(string))
			assert.Equal(t, 401, code, "a replay after a successful refresh revokes the login")
		})
	}
}

// Security pass: every refresh used to leave the mark of the token it
// spent for the refresh token lifetime (30 days), so the records of one
// login grew by one per refresh: a client refreshing hourly added 720 a
// month (the default MemoryStorage holds 100,000: 139 such users filled
// it), and one refreshing in a loop filled it in minutes. The mark now
// lives spentRefreshTTL; a replay after that is still recognised (the
// token's MAC, its record gone, its login there) and revokes the login.
func TestThreatRefreshesDoNotFillTheStorage(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	const room = 30
	store := NewMemoryStorage(&MemoryStorageOptions{Now: clock, CleanupInterval: time.Hour, MaxEntries: room})
	t.Cleanup(func() { _ = store.Close() })
	e := newEnv(t, func(c *OAuthProviderConfig) {
		c.TokenStorage = store
		c.RefreshRateLimit = RateLimit{PerMinute: -1} // the storage is what this test looks at
	})
	e.p.now = clock
	c, tok := loginTokens(t, e)
	first := tok["refresh_token"].(string)
	rt := first
	for i := range 10 * room {
		st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
		require.Equal(t, 200, st, "refresh %d: %v", i, out)
		rt = out["refresh_token"].(string)
		tok = out
		if i%10 == 9 {
			now.Add(int64(spentRefreshTTL + time.Second)) // an hour of a busy client
		}
	}
	assert.LessOrEqual(t, store.Len(), room, "the login's records stay within the storage")

	// A replay of the first refresh token, long spent: revoked.
	code, _ := e.call(tok["access_token"].(string))
	require.Equal(t, 200, code)
	st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first}})
	assert.Equal(t, 400, st)
	assert.Contains(t, out["error_description"], "already used")
	code, _ = e.call(tok["access_token"].(string))
	assert.Equal(t, 401, code, "a replay of a long-spent refresh token revokes the login")
	st, _ = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
	assert.Equal(t, 400, st, "its last refresh token is dead too")
}

// A made-up refresh token naming someone's grant (its id is in every
// access token) is unknown: it neither revokes the login nor uses up its
// refreshes.
func TestThreatMadeUpRefreshTokenIsUnknown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c, tok := loginTokens(t, e)
	claims, err := e.p.jwt.verify(tok["access_token"].(string), time.Now())
	require.NoError(t, err)
	for i := range 2 * DefaultRefreshRateLimit.Burst {
		for _, forged := range []string{claims.GrantID + ".x", claims.GrantID + "." + randomToken(32) + "." + randomToken(16)} {
			st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {forged}})
			require.Equal(t, 400, st, "%d: %v", i, out)
			require.Contains(t, out["error_description"], "unknown")
		}
	}
	code, _ := e.call(tok["access_token"].(string))
	assert.Equal(t, 200, code, "the login lives on")
	st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	assert.Equal(t, 200, st, "and may refresh: %v", out)
}

// Refreshes are limited per login: beyond the burst the client hears 429
// with Retry-After, and its refresh token stays good.
func TestRefreshesAreRateLimitedPerLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *OAuthProviderConfig) { c.RefreshRateLimit = RateLimit{PerMinute: 1, Burst: 3} })
	c, tok := loginTokens(t, e)
	other, otherTok := loginTokens(t, e)
	rt := tok["refresh_token"].(string)
	for i := range 3 {
		st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
		require.Equal(t, 200, st, "refresh %d: %v", i, out)
		rt = out["refresh_token"].(string)
	}
	resp := do(t, http.DefaultClient, "POST", e.ts.URL+TokenPath, url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {rt}, "client_id": {c.ID}, "client_secret": {c.Secret}}, nil)
	assert.Equal(t, 429, resp.StatusCode, readBody(t, resp))
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
	st, out := e.token(other, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {otherTok["refresh_token"].(string)}})
	assert.Equal(t, 200, st, "another login has its own limit: %v", out)
	_, err := e.p.store.Get(context.Background(), "rt:"+hashKey(rt))
	assert.NoError(t, err, "the refused refresh token is still stored, unspent")
}
