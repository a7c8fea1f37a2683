package providers

import (
	"context"
	"encoding/json"
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

// A registration flood: anonymous registrations must not fill
// the proxy's storage and lock real users out of login and refresh.

// storageCase is one TokenStorage the proxy tests run on.
type storageCase struct {
	name string
	// open returns a fresh storage (closed at the end of t).
	open func(t *testing.T) TokenStorage
	// redis is the server's client (nil for memory), to read TTLs and
	// memory use.
	redis *redis.Client
}

// storageCases are a MemoryStorage and a redisstorage.Storage on a real
// redis-server (each case gets its own key prefix). memMax caps the
// memory storage's entries (0: default).
func storageCases(t *testing.T, memMax int) []storageCase {
	t.Helper()
	addr := redistest.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rc.Close() })
	var n atomic.Int32
	return []storageCase{
		{name: "memory", open: func(t *testing.T) TokenStorage {
			s := NewMemoryStorage(&MemoryStorageOptions{MaxEntries: memMax, MaxClients: memMax, MaxTransactions: memMax})
			t.Cleanup(func() { _ = s.Close() })
			return s
		}},
		{name: "redis", redis: rc, open: func(t *testing.T) TokenStorage {
			c := redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { _ = c.Close() })
			return NewRedisStorageForTest(c, fmt.Sprintf("t%d:", n.Add(1)), memMax, memMax)
		}},
	}
}

// floodBody is a registration of the largest size the proxy accepts:
// two redirect URIs of 2,000 bytes and a name of 200, all of "<" (which
// encoding/json would turn into six bytes each).
func floodBody() string {
	uri := func(i int) string {
		u := fmt.Sprintf("http://localhost:%d/", 5000+i)
		return u + strings.Repeat("<", maxRedirectURI-len(u))
	}
	b, _ := json.Marshal(map[string]any{"redirect_uris": []string{uri(0), uri(1)},
		"client_name": strings.Repeat("<", 200), "application_type": "native", "scope": "read write"})
	return string(b)
}

// Run with the default rate limit, and with none (then the registration
// quota, 40 here, is what holds).
func TestThreatRegistrationFloodKeepsLoginWorking(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 40) {
		for _, limit := range []RateLimit{{}, {PerMinute: -1}} {
			t.Run(fmt.Sprintf("%s/limit=%v", sc.name, limit.PerMinute >= 0), func(t *testing.T) {
				floodThenLogin(t, sc, limit)
			})
		}
	}
}

func floodThenLogin(t *testing.T, sc storageCase, limit RateLimit) {
	store := sc.open(t)
	e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store; c.RegisterRateLimit = limit })
	victim := e.register("client_secret_post")
	u := e.login(browser(t), victim)
	st, tok := e.exchange(victim, u.Query().Get("code"))
	require.Equal(t, 200, st, tok)

	body := floodBody()
	statuses := map[int]int{}
	start := time.Now()
	for range 300 {
		resp, err := http.Post(e.ts.URL+RegisterPath, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		statuses[resp.StatusCode]++
		resp.Body.Close()
	}
	t.Logf("%s: 300 registrations of %d bytes in %v: statuses %v", sc.name, len(body), time.Since(start).Round(time.Millisecond), statuses)
	if sc.redis != nil {
		// Redis has no entry cap here: what the flood left must be
		// small (bounded records, rate limit, quota).
		var total int64
		iter := sc.redis.Scan(context.Background(), 0, "*client:*", 0).Iterator()
		for iter.Next(context.Background()) {
			n, err := sc.redis.StrLen(context.Background(), iter.Val()).Result()
			require.NoError(t, err)
			total += n
		}
		require.NoError(t, iter.Err())
		t.Logf("redis: client records hold %d bytes after the flood", total)
		assert.Less(t, total, int64(1<<20), "the flood's client records on Redis")
	}

	// The victim's refresh, and a new login, still work.
	st, tok2 := e.token(victim, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
	require.Equal(t, 200, st, "refresh after the flood: %v", tok2)
	code, _ := e.call(tok2["access_token"].(string))
	assert.Equal(t, 200, code)
	u = e.login(browser(t), victim)
	require.NotEmpty(t, u.Query().Get("code"), "login after the flood: %s", u)
	st, tok3 := e.exchange(victim, u.Query().Get("code"))
	require.Equal(t, 200, st, "code exchange after the flood: %v", tok3)
	if limit.PerMinute < 0 {
		assert.Equal(t, 39, statuses[201], "the quota of 40 (the victim's registration is one)")
		assert.Equal(t, 300-39, statuses[503], "registrations beyond the quota: 503")
	}
}

func TestThreatRegistrationRecordsAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	post := func(ctype, body string) (int, map[string]any) {
		resp, err := http.Post(e.ts.URL+RegisterPath, ctype, strings.NewReader(body))
		require.NoError(t, err)
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		return resp.StatusCode, out
	}
	// The largest registration accepted stores a record of a few KB, not
	// six times its size.
	st, out := post("application/json", floodBody())
	require.Equal(t, 201, st, out)
	raw, err := e.p.store.Get(context.Background(), "client:"+out["client_id"].(string))
	require.NoError(t, err)
	assert.Less(t, len(raw), 5<<10, "a maximal registration's stored record")

	for name, tt := range map[string]struct{ ctype, body, want string }{
		"text/plain":              {"text/plain", `{"redirect_uris":["http://localhost:5000/cb"]}`, "application/json"},
		"no content type":         {"", `{"redirect_uris":["http://localhost:5000/cb"]}`, "application/json"},
		"form":                    {"application/x-www-form-urlencoded", `{"redirect_uris":["http://localhost:5000/cb"]}`, "application/json"},
		"application_type other":  {"application/json", `{"redirect_uris":["http://localhost:5000/cb"],"application_type":"browser"}`, "application_type"},
		"application_type 60 KB":  {"application/json", `{"redirect_uris":["http://localhost:5000/cb"],"application_type":"` + strings.Repeat("w", 60000) + `"}`, "application_type"},
		"redirect URIs over 4 KB": {"application/json", `{"redirect_uris":["http://localhost:1/` + strings.Repeat("a", 1900) + `","http://localhost:2/` + strings.Repeat("a", 1900) + `","http://localhost:3/` + strings.Repeat("a", 1900) + `"]}`, "redirect_uris"},
		"too many scopes":         {"application/json", `{"redirect_uris":["http://localhost:5000/cb"],"scope":"` + strings.Repeat("read ", 5000) + `"}`, "scope"},
	} {
		st, out := post(tt.ctype, tt.body)
		assert.Equal(t, 400, st, name)
		assert.Contains(t, out["error_description"], tt.want, name)
	}
	// Repeated grant types are stored once, however they alternate (they
	// used to be compacted only when adjacent: 3,000 of them made a 60 KB
	// record, and the quota of registrations 600 MB).
	grants := make([]string, 3000)
	for i := range grants {
		grants[i] = []string{"authorization_code", "refresh_token"}[i%2]
	}
	gb, err := json.Marshal(map[string]any{"redirect_uris": []string{"http://localhost:5000/cb"}, "grant_types": grants})
	require.NoError(t, err)
	st, out = post("application/json", string(gb))
	require.Equal(t, 201, st, out)
	assert.Equal(t, []any{"authorization_code", "refresh_token"}, out["grant_types"])
	raw, err = e.p.store.Get(context.Background(), "client:"+out["client_id"].(string))
	require.NoError(t, err)
	assert.Less(t, len(raw), 1<<10, "a registration with 3,000 grant types")

	// Repeated scopes are stored once; charset parameters are fine.
	st, out = post("application/json; charset=utf-8", `{"redirect_uris":["http://localhost:5000/cb"],"scope":"read read write read","application_type":"native"}`)
	require.Equal(t, 201, st, out)
	assert.Equal(t, "read write", out["scope"])

	// state is capped at /authorize (the transaction stores it for 10
	// minutes): the client hears invalid_request.
	c := e.register("none")
	resp := do(t, browser(t), "GET", e.authorizeURL(c, url.Values{"state": {strings.Repeat("s", maxState+1)}}), nil, nil)
	require.Equal(t, 302, resp.StatusCode)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	assert.Equal(t, "invalid_request", loc.Query().Get("error"))
	assert.Contains(t, loc.Query().Get("error_description"), "state")
	resp = do(t, browser(t), "GET", e.authorizeURL(c, url.Values{"state": {strings.Repeat("s", maxState)}}), nil, nil)
	assert.Equal(t, 302, resp.StatusCode)
	assert.True(t, strings.HasPrefix(resp.Header.Get("Location"), ConsentPath), "a state of %d bytes is accepted", maxState)
}

func TestThreatRegistrationAndAuthorizeRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	good := `{"redirect_uris":["http://localhost:5000/cb"],"token_endpoint_auth_method":"none"}`
	var created, limited int
	var retry string
	var id string
	for range 100 {
		resp, err := http.Post(e.ts.URL+RegisterPath, "application/json", strings.NewReader(good))
		require.NoError(t, err)
		switch resp.StatusCode {
		case 201:
			created++
			var out map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
			id = out["client_id"].(string)
		case 429:
			limited++
			retry = resp.Header.Get("Retry-After")
		}
		resp.Body.Close()
	}
	assert.Greater(t, created, 0)
	assert.Greater(t, limited, 0, "100 registrations in a burst from one address are limited")
	assert.NotEmpty(t, retry, "a 429 says when to retry")
	assert.Equal(t, 100, created+limited)

	c := regd{ID: id, Redirect: "http://localhost:5000/cb"}
	b := browser(t)
	limited = 0
	for range 200 {
		resp := do(t, b, "GET", e.authorizeURL(c, nil), nil, nil)
		if resp.StatusCode == 429 {
			limited++
		}
	}
	assert.Greater(t, limited, 0, "200 authorization starts in a burst from one address are limited")
}

func TestRegistrationsExpireUnlessUsed(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	store := NewMemoryStorage(&MemoryStorageOptions{Now: clock, CleanupInterval: time.Hour})
	t.Cleanup(func() { _ = store.Close() })
	e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store })
	e.p.now = clock
	unused := e.register("none")
	used := e.register("none")
	u := e.login(browser(t), used)
	st, tok := e.exchange(used, u.Query().Get("code"))
	require.Equal(t, 200, st, tok)

	now.Add(int64(DefaultUnusedClientTTL + time.Minute))
	_, err := store.Get(context.Background(), "client:"+unused.ID)
	assert.ErrorIs(t, err, ErrNotFound, "a registration never used expires after %v", DefaultUnusedClientTTL)
	_, err = store.Get(context.Background(), "client:"+used.ID)
	require.NoError(t, err, "a registration that got tokens lives on")

	// Each use slides its lifetime: two refreshes 12 days apart keep it
	// past 30 days after its first use.
	rt := tok["refresh_token"].(string)
	for range 2 {
		now.Add(int64(DefaultClientTTL * 2 / 5))
		st, tok = e.token(used, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
		require.Equal(t, 200, st, tok)
		rt = tok["refresh_token"].(string)
	}
	now.Add(int64(DefaultClientTTL / 2))
	_, err = store.Get(context.Background(), "client:"+used.ID)
	require.NoError(t, err, "the last use slid the registration's lifetime")
	now.Add(int64(DefaultClientTTL / 2))
	_, err = store.Get(context.Background(), "client:"+used.ID)
	assert.ErrorIs(t, err, ErrNotFound, "a registration unused for %v expires", DefaultClientTTL)
}

// The same lifetimes on Redis, read as the keys' TTLs: a day before the
// first use, ClientTTL after it.
func TestRegistrationsExpireUnlessUsedRedis(t *testing.T) {
	t.Parallel()
	sc := storageCases(t, 0)[1]
	require.NotNil(t, sc.redis)
	const prefix = "expire:"
	store := NewRedisStorageForTest(sc.redis, prefix, 0, 0)
	e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store })
	ctx := context.Background()
	pttl := func(id string) time.Duration {
		d, err := sc.redis.PTTL(ctx, prefix+"client:"+id).Result()
		require.NoError(t, err)
		return d
	}
	unused := e.register("none")
	assert.InDelta(t, DefaultUnusedClientTTL.Seconds(), pttl(unused.ID).Seconds(), 60, "an unused registration lives a day")
	used := e.register("none")
	u := e.login(browser(t), used)
	st, tok := e.exchange(used, u.Query().Get("code"))
	require.Equal(t, 200, st, tok)
	assert.InDelta(t, DefaultClientTTL.Seconds(), pttl(used.ID).Seconds(), 60, "a used one lives ClientTTL from its use")
	assert.InDelta(t, DefaultUnusedClientTTL.Seconds(), pttl(unused.ID).Seconds(), 60)
	// The quota set follows the slide: the used client's score is ClientTTL away.
	score, err := sc.redis.ZScore(ctx, prefix+"clients", "client:"+used.ID).Result()
	require.NoError(t, err)
	assert.InDelta(t, float64(time.Now().Add(DefaultClientTTL).UnixMilli()), score, 60_000)
}
