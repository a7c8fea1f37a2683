package approval

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/pages"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/providers/redisstorage"
	"github.com/mcpchain/mcp/toolsearch"
)

type user struct{ id string }

func (u *user) Subject() string { return u.id }

type opaque struct{ token string }

func authenticate(r *http.Request) (any, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case !ok:
		return nil, nil
	case name == "opaque":
		return opaque{token: "t"}, nil
	}
	return &user{id: name}, nil
}

type testSignIn struct{}

func (testSignIn) BrowserUser(r *http.Request) (any, bool) {
	c, err := r.Cookie("who")
	if err != nil || c.Value == "" {
		return nil, false
	}
	return &user{id: c.Value}, true
}

func (testSignIn) SignIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/signin?back="+url.QueryEscape(returnTo), http.StatusSeeOther)
}

type deleteIn struct {
	Repo  string `json:"repo"`
	Force bool   `json:"force,omitempty"`
}

type world struct {
	t     *testing.T
	ap    *Approvals
	ts    *httptest.Server
	url   string
	ran   atomic.Int32 // runs of delete_repo and archive
	store providers.TokenStorage
}

type worldOptions struct {
	storage   providers.TokenStorage
	key       string
	stateless bool
	now       func() time.Time
}

func newWorld(t *testing.T, o worldOptions) *world {
	t.Helper()
	w := &world{t: t, store: o.storage}
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	key := o.key
	if key == "" {
		key = strings.Repeat("k", 32)
	}
	if w.store == nil {
		st := providers.NewMemoryStorage(nil)
		t.Cleanup(func() { _ = st.Close() })
		w.store = st
	}
	log := slog.New(slog.DiscardHandler)
	ap, err := New(Config{BaseURL: base, SignIn: testSignIn{}, Storage: w.store, Key: key, Logger: log})
	require.NoError(t, err)
	if o.now != nil {
		ap.now = o.now
	}
	srv := mcp.NewServer(mcp.Options{Name: "ops", Version: "1.0.0", Authenticate: authenticate, Logger: log})
	mcp.AddTool(srv, mcp.Tool{Name: "delete_repo", Description: "Deletes a repository for good.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}},
		func(ctx context.Context, c *mcp.Context, in deleteIn) (string, error) {
			w.ran.Add(1)
			return "deleted " + in.Repo, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "archive", Tags: []string{Tag}}, func(ctx context.Context, c *mcp.Context, in deleteIn) (string, error) {
		w.ran.Add(1)
		return "archived " + in.Repo, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "list", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "a b c", nil })
	ap.Mount(srv)
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: o.stateless})
	t.Cleanup(func() { _ = h.Close() })
	ts.Config.Handler = mcphttp.NewMux(h, nil)
	ts.Start()
	t.Cleanup(ts.Close)
	w.ap, w.ts, w.url = ap, ts, ts.URL+"/mcp"
	return w
}

func (w *world) connect(name string, version mcp.Version, open func(string)) *client.Client {
	w.t.Helper()
	h := http.Header{}
	if name != "" {
		h.Set("Authorization", "Bearer "+name)
	}
	c, err := client.Connect(context.Background(), client.HTTP(w.url, &client.HTTPOptions{Header: h}), &client.Options{
		ProtocolVersion: version,
		ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			if open != nil {
				open(p.URL)
			}
			return &elicit.Result{Action: elicit.ActionAccept}, nil
		}})
	require.NoError(w.t, err)
	w.t.Cleanup(func() { _ = c.Close() })
	return c
}

// ask calls tool with args at 2025-11-25 and returns the approval URL of
// the -32042 error.
func ask(t *testing.T, c *client.Client, tool string, args any) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), tool, args, nil)
	var je *mcp.Error
	require.True(t, errors.As(err, &je), "want -32042, got %v %v", err, res)
	require.Equal(t, mcp.CodeURLElicitationRequired, int(je.Code))
	var data struct {
		Elicitations []elicit.Params `json:"elicitations"`
	}
	require.NoError(t, json.Unmarshal(errorData(t, je), &data))
	require.Len(t, data.Elicitations, 1)
	return data.Elicitations[0].URL
}

func call(t *testing.T, c *client.Client, tool string, args any) *mcp.ContentResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), tool, args, nil)
	require.NoError(t, err)
	return res
}

type browser struct {
	t    *testing.T
	c    *http.Client
	base string
}

func (w *world) browser(t *testing.T, who string) *browser {
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(w.ts.URL)
	if who != "" {
		jar.SetCookies(u, []*http.Cookie{{Name: "who", Value: who, Path: "/"}})
	}
	return &browser{t: t, c: &http.Client{Jar: jar, Timeout: 5 * time.Second}, base: w.ts.URL}
}

func (b *browser) get(u string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(u)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (b *browser) post(u string, form url.Values, hdr map[string]string) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.c.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

// decide opens u in b and answers action ("approve" or "deny").
func (b *browser) decide(u, action string) (int, string) {
	b.t.Helper()
	status, body := b.get(u)
	require.Equal(b.t, http.StatusOK, status, body)
	m := csrfRE.FindStringSubmatch(body)
	require.NotNil(b.t, m, body)
	return b.post(u, url.Values{"csrf": {m[1]}, "action": {action}}, nil)
}

// TestApproval: a destructive call (by annotation or by tag) runs only
// once the user approved it on the page, which shows the tool, its
// description and its arguments; a read-only tool runs at once. At
// 2025-11-25 the client calls again after the -32042 error; at
// 2026-07-28, sessionless, the server asks in a round and runs it again.
func TestApproval(t *testing.T) {
	t.Parallel()
	t.Run("2025-11-25", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, worldOptions{})
		c := w.connect("alice", "", nil)
		assert.Equal(t, "a b c", call(t, c, "list", nil).Text())
		for _, tool := range []string{"delete_repo", "archive"} {
			args := map[string]any{"repo": "acme/site"}
			u := ask(t, c, tool, args)
			assert.True(t, strings.HasPrefix(u, w.ts.URL+"/approvals/"), u)
			assert.Equal(t, u, ask(t, c, tool, args), "one request per user, tool and arguments")
			b := w.browser(t, "alice")
			status, body := b.get(u)
			require.Equal(t, http.StatusOK, status)
			assert.Contains(t, body, `<code id="tool">`+tool+`</code>`)
			assert.Contains(t, body, "&#34;repo&#34;: &#34;acme/site&#34;", "the arguments are shown")
			if tool == "delete_repo" {
				assert.Contains(t, body, "Deletes a repository for good.")
			}
			status, body = b.decide(u, "approve")
			require.Equal(t, http.StatusOK, status, body)
			assert.Contains(t, body, "Approved")
			before := w.ran.Load()
			res := call(t, c, tool, args)
			require.False(t, res.IsError, res.Text())
			assert.Contains(t, res.Text(), "acme/site")
			assert.Equal(t, before+1, w.ran.Load())
		}
	})
	t.Run("2026-07-28 sessionless", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, worldOptions{stateless: true})
		b := w.browser(t, "alice")
		c := w.connect("alice", mcp.Version20260728, func(u string) {
			status, body := b.decide(u, "approve")
			require.Equal(t, http.StatusOK, status, body)
		})
		res := call(t, c, "delete_repo", map[string]any{"repo": "acme/site"})
		require.False(t, res.IsError, res.Text())
		assert.Equal(t, "deleted acme/site", res.Text())
		assert.Equal(t, int32(1), w.ran.Load())
	})
}

// TestApprovalRefusals: what approvals refuse. A caller without an
// identity key; another user's browser (it cannot see the call nor post
// the decision); a forged form (no CSRF cookie, cross-site); a replayed
// approval (it counts once: the next identical call asks again); changed
// arguments (another call: asks again, the approval stays for the
// approved arguments); another user's identical call; a denial (the call
// is refused, once); an expired approval; a decision written into the
// storage by someone without the key, or moved from another call.
func TestApprovalRefusals(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	w := newWorld(t, worldOptions{now: clock})
	ctx := context.Background()
	alice := w.connect("alice", "", nil)
	args := map[string]any{"repo": "acme/site"}

	for _, who := range []string{"", "opaque"} {
		res := call(t, w.connect(who, "", nil), "delete_repo", args)
		assert.True(t, res.IsError, who)
		assert.Contains(t, res.Text(), "mcp.Subject", who)
	}
	assert.Zero(t, w.ran.Load())

	t.Run("another user's browser", func(t *testing.T) {
		u := ask(t, alice, "delete_repo", args)
		bob := w.browser(t, "bob")
		status, body := bob.get(u)
		assert.Equal(t, http.StatusForbidden, status)
		assert.Contains(t, body, "another user")
		assert.NotContains(t, body, "acme/site", "bob does not see alice's arguments")
		_, page := w.browser(t, "alice").get(u)
		m := csrfRE.FindStringSubmatch(page)
		require.NotNil(t, m)
		status, _ = bob.post(u, url.Values{"csrf": {m[1]}, "action": {"approve"}}, nil)
		assert.Equal(t, http.StatusForbidden, status)
		assert.True(t, ask(t, alice, "delete_repo", args) == u, "still waiting for alice")
	})
	t.Run("forged forms", func(t *testing.T) {
		u := ask(t, alice, "delete_repo", args)
		b := w.browser(t, "alice")
		_, page := b.get(u)
		m := csrfRE.FindStringSubmatch(page)
		require.NotNil(t, m)
		f := url.Values{"csrf": {m[1]}, "action": {"approve"}}
		status, _ := w.browser(t, "alice").post(u, f, nil)
		assert.Equal(t, http.StatusForbidden, status, "no CSRF cookie: a client that fetched the page cannot post it elsewhere")
		status, _ = b.post(u, f, map[string]string{"Sec-Fetch-Site": "cross-site"})
		assert.Equal(t, http.StatusForbidden, status, "cross-site")
		status, _ = b.post(u, url.Values{"csrf": {"x"}, "action": {"approve"}}, nil)
		assert.Equal(t, http.StatusForbidden, status, "wrong token")
		status, _ = b.get(w.ts.URL + "/approvals/" + strings.Repeat("Z", 32))
		assert.Equal(t, http.StatusBadRequest, status, "made-up request")
		assert.Zero(t, w.ran.Load())
	})
	t.Run("replay, changed arguments, another user", func(t *testing.T) {
		u := ask(t, alice, "delete_repo", args)
		status, body := w.browser(t, "alice").decide(u, "approve")
		require.Equal(t, http.StatusOK, status, body)
		status, _ = w.browser(t, "alice").get(u)
		assert.Equal(t, http.StatusBadRequest, status, "decided once")

		other := ask(t, alice, "delete_repo", map[string]any{"repo": "acme/other"})
		assert.NotEqual(t, u, other, "other arguments need their own approval")
		ask(t, alice, "delete_repo", map[string]any{"repo": "acme/site", "force": true})
		ask(t, w.connect("bob", "", nil), "delete_repo", args)
		ask(t, alice, "archive", args)
		assert.Zero(t, w.ran.Load(), "the approval let none of them run")

		res := call(t, alice, "delete_repo", json.RawMessage(`{ "repo" :  "acme/site" }`))
		require.False(t, res.IsError, "the same arguments, however spaced: %s", res.Text())
		assert.Equal(t, int32(1), w.ran.Load())
		again := ask(t, alice, "delete_repo", args)
		assert.NotEqual(t, u, again, "a replay asks again")
		w.ran.Store(0)
	})
	t.Run("denied", func(t *testing.T) {
		a2 := map[string]any{"repo": "acme/denied"}
		u := ask(t, alice, "delete_repo", a2)
		status, body := w.browser(t, "alice").decide(u, "deny")
		require.Equal(t, http.StatusOK, status, body)
		res := call(t, alice, "delete_repo", a2)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text(), "denied")
		ask(t, alice, "delete_repo", a2)
		assert.Zero(t, w.ran.Load())
	})
	t.Run("expired", func(t *testing.T) {
		a3 := map[string]any{"repo": "acme/late"}
		u := ask(t, alice, "delete_repo", a3)
		status, body := w.browser(t, "alice").decide(u, "approve")
		require.Equal(t, http.StatusOK, status, body)
		mu.Lock()
		now = now.Add(w.ap.cfg.DecisionTTL + time.Second)
		mu.Unlock()
		ask(t, alice, "delete_repo", a3)
		assert.Zero(t, w.ran.Load())
		// A request the user never answered expires too.
		mu.Lock()
		now = now.Add(w.ap.cfg.RequestTTL + time.Second)
		mu.Unlock()
		status, _ = w.browser(t, "alice").get(u)
		assert.Equal(t, http.StatusBadRequest, status)
	})
	t.Run("forged and moved decisions", func(t *testing.T) {
		a4 := map[string]any{"repo": "acme/forged"}
		ah, err := argsHash(json.RawMessage(`{"repo":"acme/forged"}`))
		require.NoError(t, err)
		b := binding("sub:alice", "delete_repo", ah)
		n := clock()
		forged := sign(pages.Derive([]byte(strings.Repeat("x", 32)), "mcpchain/approval/decision/v1"),
			decision{ID: "x", Sub: pages.Hash("sub:alice"), Tool: "delete_repo", Args: ah, Approved: true, IssuedAt: n.Unix(), Expires: n.Add(time.Minute).Unix()})
		require.NoError(t, w.store.Put(ctx, decisionKey(b), []byte(forged), time.Minute))
		ask(t, alice, "delete_repo", a4)
		// A real approval of another call, moved under this call's key.
		u := ask(t, alice, "archive", a4)
		status, body := w.browser(t, "alice").decide(u, "approve")
		require.Equal(t, http.StatusOK, status, body)
		real, err := w.store.Take(ctx, decisionKey(binding("sub:alice", "archive", ah)))
		require.NoError(t, err)
		require.NoError(t, w.store.Put(ctx, decisionKey(b), real, time.Minute))
		ask(t, alice, "delete_repo", a4)
		assert.Zero(t, w.ran.Load())
	})
}

// TestApprovalAcrossReplicas: with a shared Redis and Key, the call at one
// replica, the page (and the decision) at another, the call again at the
// first; the decision is taken once across both.
func TestApprovalAcrossReplicas(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	key := strings.Repeat("s", 32)
	a := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:appr:"), key: key})
	b := newWorld(t, worldOptions{storage: redisstorage.New(rdb, "mcp:appr:"), key: key})
	ca, cb := a.connect("alice", "", nil), b.connect("alice", "", nil)
	args := map[string]any{"repo": "acme/site"}
	u := ask(t, ca, "delete_repo", args)
	status, body := b.browser(t, "alice").decide(strings.Replace(u, a.ts.URL, b.ts.URL, 1), "approve")
	require.Equal(t, http.StatusOK, status, body)
	res := call(t, ca, "delete_repo", args)
	require.False(t, res.IsError, res.Text())
	ask(t, cb, "delete_repo", args) // taken: the other replica asks again
	assert.Equal(t, int32(1), a.ran.Load()+b.ran.Load())
}

func TestToken(t *testing.T) {
	t.Parallel()
	key := []byte(strings.Repeat("k", 32))
	now := time.Now()
	d := decision{ID: "r1", Sub: strings.Repeat("a", 64), Tool: "t", Args: strings.Repeat("b", 64), Approved: true,
		IssuedAt: now.Unix(), Expires: now.Add(time.Minute).Unix()}
	tok := sign(key, d)
	got, err := parseToken(key, tok, now)
	require.NoError(t, err)
	assert.Equal(t, d, *got)
	_, err = parseToken(key, tok, now.Add(2*time.Minute))
	assert.ErrorIs(t, err, errExpired)
	_, err = parseToken([]byte(strings.Repeat("o", 32)), tok, now)
	assert.ErrorIs(t, err, errToken, "another key")
	body, mac, _ := strings.Cut(strings.TrimPrefix(tok, tokenPrefix), ".")
	flipped := []byte(body)
	flipped[5] ^= 1
	for name, s := range map[string]string{
		"tampered": tokenPrefix + string(flipped) + "." + mac,
		"no mac":   tokenPrefix + body,
		"version":  "mcpa2." + body + "." + mac,
		"extra":    tok + ".x",
		"long":     tokenPrefix + strings.Repeat("a", maxToken),
		"empty":    "",
	} {
		_, err := parseToken(key, s, now)
		assert.ErrorIs(t, err, errToken, name)
	}
}

func TestArgsHash(t *testing.T) {
	t.Parallel()
	a, err := argsHash(json.RawMessage(`{"b": 1, "a": [1, 2.50, "x"]}`))
	require.NoError(t, err)
	b, err := argsHash(json.RawMessage(`{"a":[1,2.50,"x"],"b":1}`))
	require.NoError(t, err)
	assert.Equal(t, a, b, "order and spacing do not matter")
	c, err := argsHash(json.RawMessage(`{"a":[1,2.5,"x"],"b":1}`))
	require.NoError(t, err)
	assert.NotEqual(t, a, c, "numbers as written: 2.50 is not 2.5 (fails closed: asks again)")
	big, err := argsHash(json.RawMessage(`{"n":12345678901234567890}`))
	require.NoError(t, err)
	big2, err := argsHash(json.RawMessage(`{"n":12345678901234567891}`))
	require.NoError(t, err)
	assert.NotEqual(t, big, big2, "no precision lost")
}

func FuzzParseToken(f *testing.F) {
	key := []byte(strings.Repeat("k", 32))
	now := time.Unix(1_700_000_000, 0)
	f.Add(sign(key, decision{ID: "r", Sub: strings.Repeat("a", 64), Tool: "t", Args: strings.Repeat("b", 64), IssuedAt: now.Unix(), Expires: now.Unix() + 60}))
	f.Add("mcpa1.e30.x")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseToken(key, s, now)
		if err != nil {
			return
		}
		// Whatever verifies was signed with the key: signing it again
		// gives the token back.
		if sign(key, *d) != s {
			t.Fatalf("accepted %q, which is not the signature of %+v", s, d)
		}
	})
}

// TestAcceptingIsNotApproving: a client (or the model behind it) that
// answers the URL elicitation with accept, without the user deciding on
// the page, gets nothing run: at 2026-07-28 the round asks again until it
// gives up, at 2025-11-25 every call asks again.
func TestAcceptingIsNotApproving(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{stateless: true})
	asked := 0
	c := w.connect("alice", mcp.Version20260728, func(string) { asked++ })
	res, err := c.CallTool(context.Background(), "delete_repo", map[string]any{"repo": "acme/site"}, nil)
	if err == nil {
		assert.True(t, res.IsError, res.Text())
	}
	assert.Greater(t, asked, 1, "asked again after each accept")
	old := newWorld(t, worldOptions{}).connect("alice", "", nil)
	for range 3 {
		ask(t, old, "delete_repo", map[string]any{"repo": "acme/site"})
	}
	assert.Zero(t, w.ran.Load())
}

// failingTake is a storage whose Take fails (an outage).
type failingTake struct{ providers.TokenStorage }

func (failingTake) Take(context.Context, string) ([]byte, error) {
	return nil, errors.New("redis: connection refused")
}

// TestApprovalFailsClosed: when the decisions cannot be read, a call that
// needs approval fails, and never runs.
func TestApprovalFailsClosed(t *testing.T) {
	t.Parallel()
	st := providers.NewMemoryStorage(nil)
	t.Cleanup(func() { _ = st.Close() })
	w := newWorld(t, worldOptions{storage: failingTake{st}})
	res := call(t, w.connect("alice", "", nil), "delete_repo", map[string]any{"repo": "acme/site"})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "cannot be checked now")
	assert.NotContains(t, res.Text(), "connection refused", "the storage's error stays in the log")
	assert.Zero(t, w.ran.Load())
}

// TestApprovalPageShowsWhatRuns: a prompt-injected model cannot make the
// page show other arguments than the call's. Characters that change how
// the text is drawn (a right-to-left override that shows "acme/etis" for
// a repository named otherwise, zero-width characters) are shown as
// their escapes, in the client's self-declared name too; arguments too
// large to be shown whole (an argument hidden after a long one) are
// refused before any request is made, and the call does not run.
func TestApprovalPageShowsWhatRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	c := w.connect("alice", "", nil)
	for _, tc := range []struct{ repo, shown, hidden string }{
		{"acme/\u202eetis", `acme/\u202eetis`, "\u202e"},
		{"acme/pro\u200bd", `acme/pro\u200bd`, "\u200b"},
		{"acme/a\u2028b", `acme/a\u2028b`, "\u2028"},
	} {
		u := ask(t, c, "delete_repo", map[string]any{"repo": tc.repo})
		status, body := w.browser(t, "alice").get(u)
		require.Equal(t, http.StatusOK, status)
		assert.Contains(t, body, tc.shown)
		assert.NotContains(t, body, tc.hidden)
	}

	spoof, err := client.Connect(context.Background(), client.HTTP(w.url, &client.HTTPOptions{Header: http.Header{"Authorization": {"Bearer alice"}}}),
		&client.Options{Info: mcp.Implementation{Name: "Claude\u202e (official)", Version: "1"},
			ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
				return &elicit.Result{Action: elicit.ActionAccept}, nil
			}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = spoof.Close() })
	u := ask(t, spoof, "archive", map[string]any{"repo": "acme/site"})
	status, body := w.browser(t, "alice").get(u)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `Claude\u202e (official)`, "the client's name, escaped too")
	assert.NotContains(t, body, "\u202e")

	res := call(t, c, "delete_repo", map[string]any{"repo": strings.Repeat("a", 17<<10), "force": true})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "too large to be shown")
	assert.Zero(t, w.ran.Load())
}

// TestApprovalThroughToolSearch: a destructive tool called through tool
// search's call_tool (a catalog hidden behind search) needs the same
// approval: the guard runs on the inner call, under the tool's own name.
func TestApprovalThroughToolSearch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	srv := w.ap.srv
	s, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	hdr := http.Header{"Authorization": {"Bearer alice"}}
	c, err := client.Connect(context.Background(), client.InProcess(s.Middleware(h), hdr), &client.Options{
		ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: elicit.ActionAccept}, nil
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	args := map[string]any{"name": "delete_repo", "arguments": map[string]any{"repo": "acme/site"}}
	u := ask(t, c, toolsearch.DefaultCallTool, args)
	assert.Contains(t, u, "/approvals/")
	assert.Equal(t, u, ask(t, w.connect("alice", "", nil), "delete_repo", map[string]any{"repo": "acme/site"}),
		"the same call as delete_repo's own: one request")
	assert.Zero(t, w.ran.Load())
}

// errorData is the JSON of a JSON-RPC error's data.
func errorData(t *testing.T, e *mcp.Error) []byte {
	t.Helper()
	b, err := json.Marshal(e.Data)
	require.NoError(t, err)
	return b
}
