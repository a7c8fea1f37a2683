package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/providers/redisstorage"
)

// TestConnectAccount: a tool that needs the user's account gets a URL
// elicitation to the connect page; the user's browser connects it
// (authorization code with PKCE at the service); the tool then gets a
// client that calls the service as the user. At 2025-11-25 the client
// calls again after the -32042 error (and is told the page is done by
// notifications/elicitation/complete); at 2026-07-28, sessionless, the
// server asks in an input-required round and runs the tool again itself.
func TestConnectAccount(t *testing.T) {
	t.Parallel()
	t.Run("2025-11-25", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, worldOptions{})
		var mu sync.Mutex
		var completed []string
		h := http.Header{"Authorization": {"Bearer alice"}}
		c, err := client.Connect(context.Background(), client.HTTP(w.url, &client.HTTPOptions{Header: h}), &client.Options{
			ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
				return &elicit.Result{Action: elicit.ActionAccept}, nil
			},
			OnNotification: func(method string, params json.RawMessage) {
				if method == "notifications/elicitation/complete" {
					mu.Lock()
					completed = append(completed, string(params))
					mu.Unlock()
				}
			}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		u := elicitationURL(t, c)
		assert.True(t, strings.HasPrefix(u, w.ts.URL+"/accounts/connect?id="), u)
		assert.Equal(t, u, elicitationURL(t, c), "one connection in progress per user and service")

		status, body := w.browser(t, "alice").connectFlow(u)
		require.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, "Your GitHub account is connected")
		id := strings.TrimPrefix(u, w.ts.URL+"/accounts/connect?id=")
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(completed) == 1 && strings.Contains(completed[0], id)
		}, 5*time.Second, 10*time.Millisecond, "notifications/elicitation/complete")

		res, err := c.CallTool(context.Background(), "whoami", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "200 octocat", res.Text())
		conns, err := w.acc.Connections(context.Background(), &user{id: "alice"})
		require.NoError(t, err)
		require.Len(t, conns, 1)
		assert.Equal(t, "github", conns[0].Service)
		assert.Equal(t, []string{"repo", "read:user"}, conns[0].Scopes)

		// Another user has no connection of alice's.
		bob := w.connect("bob", "", nil)
		assert.NotEqual(t, u, elicitationURL(t, bob))
	})
	t.Run("2026-07-28 sessionless", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, worldOptions{stateless: true})
		b := w.browser(t, "alice")
		opened := 0
		c := w.connect("alice", mcp.Version20260728, func(u string) {
			opened++
			status, body := b.connectFlow(u)
			require.Equal(t, http.StatusOK, status, body)
		})
		res, err := c.CallTool(context.Background(), "whoami", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "200 octocat", res.Text(), "the round connected the account and the tool ran again")
		assert.Equal(t, 1, opened)
	})
}

// TestConnectRefusals: what the connect flow refuses, each leaving nothing
// connected: a caller without an identity key (anonymous, or auth data
// without a subject); another user's browser opening (or posting) the
// link; a browser not signed in (sent to sign in); a form without its
// CSRF cookie, or posted cross-site; a forged or malformed state; the
// service's callback replayed in another browser, or twice.
func TestConnectRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	ctx := context.Background()

	for _, who := range []string{"", "opaque"} {
		res, err := w.connect(who, "", nil).CallTool(ctx, "whoami", nil, nil)
		require.NoError(t, err, who)
		assert.True(t, res.IsError, who)
		assert.Contains(t, res.Text(), "needs you to be signed in", who)
		assert.Contains(t, res.Text(), "mcp.Subject", who)
	}

	u := elicitationURL(t, w.connect("alice", "", nil))
	page := func(b *browser) url.Values {
		status, body, _ := w.browser(t, "alice").get(u)
		require.Equal(t, http.StatusOK, status, body)
		_ = b
		return fields(body)
	}

	t.Run("another user's browser", func(t *testing.T) {
		bob := w.browser(t, "bob")
		status, body, _ := bob.get(u)
		assert.Equal(t, http.StatusForbidden, status)
		assert.Contains(t, body, "This link is for another user")
		f := page(bob)
		f.Set("action", "connect")
		status, _, _ = bob.post("/accounts/connect", f, nil)
		assert.Equal(t, http.StatusForbidden, status, "bob posts alice's form: no CSRF cookie of his")
	})
	t.Run("not signed in", func(t *testing.T) {
		anon := w.browser(t, "")
		anon.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := anon.c.Get(u)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
		assert.Equal(t, "/signin?back="+url.QueryEscape(strings.TrimPrefix(u, w.ts.URL)), resp.Header.Get("Location"))
	})
	t.Run("csrf", func(t *testing.T) {
		b := w.browser(t, "alice")
		status, body, _ := b.get(u)
		require.Equal(t, http.StatusOK, status)
		f := fields(body)
		f.Set("action", "connect")
		status, _, _ = b.post("/accounts/connect", f, map[string]string{"Sec-Fetch-Site": "cross-site"})
		assert.Equal(t, http.StatusForbidden, status, "cross-site")
		status, _, _ = b.post("/accounts/connect", f, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": ""})
		assert.Equal(t, http.StatusForbidden, status, "another origin")
		other := w.browser(t, "alice") // alice, but a browser that never loaded the form
		status, _, _ = other.post("/accounts/connect", f, nil)
		assert.Equal(t, http.StatusForbidden, status, "no CSRF cookie")
		tok := f.Get("csrf")
		first := "x"
		if tok[0] == 'x' { // one token in 64: "x"+tok[1:] would be tok itself
			first = "y"
		}
		f.Set("csrf", first+tok[1:])
		status, _, _ = b.post("/accounts/connect", f, nil)
		assert.Equal(t, http.StatusForbidden, status, "wrong token")
	})
	t.Run("forged state and replayed callback", func(t *testing.T) {
		b := w.browser(t, "alice")
		b.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		status, body, _ := b.get(u)
		require.Equal(t, http.StatusOK, status)
		f := fields(body)
		f.Set("action", "connect")
		req, _ := http.NewRequest(http.MethodPost, w.ts.URL+"/accounts/connect", strings.NewReader(f.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", w.ts.URL)
		resp, err := b.c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		authURL, _ := url.Parse(resp.Header.Get("Location"))
		state := authURL.Query().Get("state")
		id, secret, ok := parseState(state)
		require.True(t, ok, state)
		resp, err = b.c.Get(authURL.String())
		require.NoError(t, err)
		resp.Body.Close()
		callback := resp.Header.Get("Location")
		cb, _ := url.Parse(callback)
		code := cb.Query().Get("code")

		for name, st := range map[string]string{
			"wrong secret": id + "." + strings.Repeat("A", len(secret)),
			"made-up id":   strings.Repeat("B", 32) + "." + secret,
			"no secret":    id,
			"garbage":      "<script>",
		} {
			status, body, _ := b.get(w.ts.URL + "/accounts/callback?" + url.Values{"code": {code}, "state": {st}}.Encode())
			assert.Equal(t, http.StatusBadRequest, status, name)
			assert.Contains(t, body, "expired or was already used", name)
		}
		status, body, _ = w.browser(t, "alice").get(callback)
		assert.Equal(t, http.StatusForbidden, status, "the callback in another browser")
		assert.Contains(t, body, "started in another browser")
		status, body, _ = b.get(callback)
		require.Equal(t, http.StatusOK, status, "its own browser still finishes it: %s", body)
		status, _, _ = b.get(callback)
		assert.Equal(t, http.StatusBadRequest, status, "a second use")
	})
	t.Run("nothing connected for bob", func(t *testing.T) {
		conns, err := w.acc.Connections(ctx, &user{id: "bob"})
		require.NoError(t, err)
		assert.Empty(t, conns)
	})
}

// TestTokensSealedAndRefreshed: the stored connection holds no token in
// clear (nor does any record of the flow); an expiring token is refreshed
// (the service rotates the refresh token) and the new one stored; a
// refresh the service refuses ends the connection and the tool asks to
// connect again.
func TestTokensSealedAndRefreshed(t *testing.T) {
	t.Parallel()
	st := providers.NewMemoryStorage(nil)
	t.Cleanup(func() { _ = st.Close() })
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	svc := newFakeService(t)
	w := newWorld(t, worldOptions{storage: st, svc: svc, now: clock})
	c := w.connect("alice", "", nil)
	status, body := w.browser(t, "alice").connectFlow(elicitationURL(t, c))
	require.Equal(t, http.StatusOK, status, body)

	sk := w.acc.connKey("sub:alice", w.acc.services["github"])
	raw, err := st.Get(context.Background(), sk)
	require.NoError(t, err)
	svc.mu.Lock()
	for at := range svc.tokens {
		assert.NotContains(t, string(raw), at, "access token in clear")
	}
	for rt := range svc.refreshes {
		assert.NotContains(t, string(raw), rt, "refresh token in clear")
	}
	svc.mu.Unlock()
	assert.NotContains(t, sk, "alice", "the storage key does not name the user")

	res, err := c.CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text())
	assert.Zero(t, svc.refreshed.Load())

	mu.Lock()
	now = now.Add(2 * time.Hour) // the token expired
	mu.Unlock()
	svc.expiresIn.Store(int64(10 * 24 * time.Hour / time.Second)) // the next one lasts 10 days
	res, err = c.CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text(), "refreshed")
	assert.Equal(t, int32(1), svc.refreshed.Load())
	res, err = c.CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text())
	assert.Equal(t, int32(1), svc.refreshed.Load(), "the refreshed token was stored")

	mu.Lock()
	now = now.Add(11 * 24 * time.Hour)
	mu.Unlock()
	svc.refuseNext.Store(true)
	u := elicitationURL(t, c)
	assert.Contains(t, u, "/accounts/connect?id=", "a refused refresh asks to connect again")
	_, err = st.Get(context.Background(), sk)
	assert.ErrorIs(t, err, providers.ErrNotFound, "the ended connection is forgotten")
}

// TestDisconnect: the user revokes a connection on the page (CSRF-checked,
// as the browser's user) or through the API route with the MCP caller's
// own credentials (what `mcpchain accounts disconnect` calls); the
// service's revocation endpoint is called; the tool then asks to connect
// again. A caller without an identity key gets 403 from the API.
func TestDisconnect(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	ctx := context.Background()
	c := w.connect("alice", "", nil)
	connect := func() {
		status, body := w.browser(t, "alice").connectFlow(elicitationURL(t, c))
		require.Equal(t, http.StatusOK, status, body)
		res, err := c.CallTool(ctx, "whoami", nil, nil)
		require.NoError(t, err)
		require.Equal(t, "200 octocat", res.Text())
	}
	api := func(method, path, who string) (int, string) {
		req, _ := http.NewRequest(method, w.ts.URL+path, nil)
		if who != "" {
			req.Header.Set("Authorization", "Bearer "+who)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	connect()
	status, body := api(http.MethodGet, "/accounts/api/connections", "alice")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"service":"github"`)
	assert.NotContains(t, body, "svc-at-", "no token in the API")
	status, body = api(http.MethodGet, "/accounts/api/connections", "opaque")
	assert.Equal(t, http.StatusForbidden, status, body)
	status, body = api(http.MethodGet, "/accounts/api/connections", "")
	assert.Equal(t, http.StatusForbidden, status, "an anonymous caller has no accounts")
	assert.Contains(t, body, "mcp.Subject")
	status, _ = api(http.MethodDelete, "/accounts/api/connections/github", "bob")
	assert.Equal(t, http.StatusNoContent, status, "bob has nothing to disconnect")
	res, err := c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text(), "bob's disconnect left alice's connection")

	status, _ = api(http.MethodDelete, "/accounts/api/connections/github", "alice")
	assert.Equal(t, http.StatusNoContent, status)
	w.svc.mu.Lock()
	assert.Len(t, w.svc.revoked, 2, "refresh and access token revoked at the service")
	w.svc.mu.Unlock()
	elicitationURL(t, c)

	connect()
	b := w.browser(t, "alice")
	status, body, _ = b.get(w.ts.URL + "/accounts")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "GitHub")
	f := fields(body)
	status, _, _ = w.browser(t, "alice").post("/accounts/disconnect", f, nil)
	assert.Equal(t, http.StatusForbidden, status, "no CSRF cookie")
	status, _, _ = w.browser(t, "bob").post("/accounts/disconnect", f, nil)
	assert.Equal(t, http.StatusForbidden, status, "bob's browser")
	status, _, _ = b.post("/accounts/disconnect", f, map[string]string{"Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusForbidden, status, "posted from another site, with the cookie (CSRF)")
	status, _, _ = b.post("/accounts/disconnect", f, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": ""})
	assert.Equal(t, http.StatusForbidden, status, "posted from another origin")
	res, err = c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text(), "still connected after the refused posts")
	status, body, final := b.post("/accounts/disconnect", f, nil)
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, "/accounts", final.Path)
	assert.Contains(t, body, "You have connected no account")
	elicitationURL(t, c)
}

// TestConnectAcrossReplicas: two replicas sharing a Redis and a Key: the
// tool call at one, the pages at the other (the elicitation's record is in
// the shared store), the tool's next call at the first gets the client,
// and a refresh at either updates the one shared record.
func TestConnectAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	svc := newFakeService(t)
	key := strings.Repeat("s", 32)
	a := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:test:"), key: key, svc: svc})
	b := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:test:"), key: key, svc: svc})
	ca := a.connect("alice", "", nil)
	u := elicitationURL(t, ca)
	u = strings.Replace(u, a.ts.URL, b.ts.URL, 1) // the pages at the other replica
	status, body := b.browser(t, "alice").connectFlow(u)
	require.Equal(t, http.StatusOK, status, body)
	res, err := ca.CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text())
	res, err = b.connect("alice", "", nil).CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "200 octocat", res.Text())

	// A replica with another key reads no connection: it asks again.
	c := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:test:"), key: strings.Repeat("x", 32), svc: svc})
	elicitationURL(t, c.connect("alice", "", nil))
}

// TestNewRefuses: a configuration that cannot work safely is refused.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	svc := Service{Name: "github", ClientID: "c", AuthURL: "https://a.example/auth", TokenURL: "https://a.example/token"}
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"no base":        {Config{Services: []Service{svc}, SignIn: testSignIn{}}, "BaseURL is required"},
		"http base":      {Config{BaseURL: "http://mcp.example.com", Services: []Service{svc}, SignIn: testSignIn{}}, "http on a host other than loopback"},
		"no sign-in":     {Config{BaseURL: "https://mcp.example.com", Services: []Service{svc}}, "SignIn is required"},
		"no services":    {Config{BaseURL: "https://mcp.example.com", SignIn: testSignIn{}}, "no Services"},
		"bad name":       {Config{BaseURL: "https://mcp.example.com", SignIn: testSignIn{}, Services: []Service{{Name: "Git Hub", ClientID: "c", AuthURL: svc.AuthURL, TokenURL: svc.TokenURL}}}, "lower-case"},
		"http token url": {Config{BaseURL: "https://mcp.example.com", SignIn: testSignIn{}, Services: []Service{{Name: "x", ClientID: "c", AuthURL: svc.AuthURL, TokenURL: "http://a.example/token"}}}, "must be https"},
		"short key":      {Config{BaseURL: "https://mcp.example.com", SignIn: testSignIn{}, Services: []Service{svc}, Key: "short"}, "at least 32 bytes"},
		"shared no key": {Config{BaseURL: "https://mcp.example.com", SignIn: testSignIn{}, Services: []Service{svc},
			Storage: redisstorage.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), "")}, "must be set when the storage is shared"},
		"duplicate": {Config{BaseURL: "https://mcp.example.com", SignIn: testSignIn{}, Services: []Service{svc, svc}}, "two services"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseState(t *testing.T) {
	t.Parallel()
	id, secret := strings.Repeat("a", 32), strings.Repeat("B", 32)
	for s, ok := range map[string]bool{
		id + "." + secret:           true,
		id + "." + secret + ".x":    false,
		id:                          false,
		id + "." + secret[1:]:       false,
		id + "." + secret[1:] + "+": false,
		"":                          false,
		"." + secret:                false,
	} {
		gotID, gotSecret, got := parseState(s)
		assert.Equal(t, ok, got, s)
		if ok {
			assert.Equal(t, id, gotID)
			assert.Equal(t, secret, gotSecret)
		}
	}
}

func FuzzParseState(f *testing.F) {
	f.Add(strings.Repeat("a", 32) + "." + strings.Repeat("B", 32))
	f.Add("x.y")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, secret, ok := parseState(s)
		if !ok {
			return
		}
		if !validID(id) || !validID(secret) || id+"."+secret != s {
			t.Fatalf("accepted %q as %q, %q", s, id, secret)
		}
	})
}

// TestRefreshOnceAcrossReplicas: when the token of a connection expires,
// concurrent calls on two replicas refresh it once (the service rotates
// refresh tokens: a second refresh with the spent one would end the
// connection), the others waiting for the stored result.
func TestRefreshOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	svc := newFakeService(t)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	key := strings.Repeat("s", 32)
	a := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:rf:"), key: key, svc: svc, now: clock})
	b := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:rf:"), key: key, svc: svc, now: clock})
	ca, cb := a.connect("alice", "", nil), b.connect("alice", "", nil)
	status, body := a.browser(t, "alice").connectFlow(elicitationURL(t, ca))
	require.Equal(t, http.StatusOK, status, body)

	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	svc.expiresIn.Store(int64(10 * 24 * time.Hour / time.Second))
	var wg sync.WaitGroup
	results := make(chan string, 8)
	for i := range 8 {
		c := ca
		if i%2 == 1 {
			c = cb
		}
		wg.Go(func() {
			res, err := c.CallTool(context.Background(), "whoami", nil, nil)
			if err != nil {
				results <- err.Error()
				return
			}
			results <- res.Text()
		})
	}
	wg.Wait()
	close(results)
	for r := range results {
		assert.Equal(t, "200 octocat", r)
	}
	assert.Equal(t, int32(1), svc.refreshed.Load(), "one refresh for every call on both replicas")
}

// failingGet is a storage whose reads fail (an outage).
type failingGet struct{ providers.TokenStorage }

func (failingGet) Get(context.Context, string) ([]byte, error) {
	return nil, errors.New("redis: dial tcp 10.0.0.7:6379: connection refused")
}

// TestConnectFailsClosed: when the connections cannot be read, the tool
// fails with a message that says to try again, never a client without
// the user's token nor the storage's error (it goes to the log).
func TestConnectFailsClosed(t *testing.T) {
	t.Parallel()
	st := providers.NewMemoryStorage(nil)
	t.Cleanup(func() { _ = st.Close() })
	w := newWorld(t, worldOptions{storage: failingGet{st}})
	res, err := w.connect("alice", "", nil).CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "cannot be used now")
	assert.NotContains(t, res.Text(), "10.0.0.7")
	assert.Contains(t, w.logs.String(), "10.0.0.7", "logged")
}
