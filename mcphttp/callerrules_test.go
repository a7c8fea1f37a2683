package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
)

// rev20260728 is revision 2026-07-28 as ruleClient.version names it.
const rev20260728 = "2026-07-28"

// callerRulesServer has a public tool, a secret one hidden server-wide,
// and tools that change the caller's own rules: unlock shows it the
// secret tool, lock hides it again, hide_public hides the public one.
func callerRulesServer(cache *mcp.CacheOptions) *mcp.Server {
	srv := quietServer(mcp.Options{Authenticate: userAuth, CallerRules: true, Cache: cache})
	text := func(s string) mcp.ToolFunc[struct{}, string] {
		return func(context.Context, *mcp.Context, struct{}) (string, error) { return s, nil }
	}
	mcp.AddTool(srv, mcp.Tool{Name: "public"}, text("public"))
	mcp.AddTool(srv, mcp.Tool{Name: "secret"}, text("the secret"))
	rule := func(name string, on bool, tool string) {
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
			reg := srv.CallerRegistry(c.Session)
			if on {
				return name + "ed", reg.Enable(mcp.Match{Kind: access.KindTool, Names: []string{tool}})
			}
			return name + "ed", reg.Disable(mcp.Match{Kind: access.KindTool, Names: []string{tool}})
		})
	}
	rule("unlock", true, "secret")
	rule("lock", false, "secret")
	rule("hide_public", false, "public")
	if err := srv.Registry().Disable(mcp.Match{Names: []string{"secret"}}); err != nil {
		panic(err)
	}
	return srv
}

// ruleClient sends requests as one user in one of the modes the rules
// must hold in.
type ruleClient struct {
	t       *testing.T
	ts      *httptest.Server
	user    string
	version string // "2026-07-28" or "2025-11-25"
	sid     string // the 2025 session, when the handler keeps one
	id      int
}

func (c *ruleClient) post(method, params string, header ...string) msg {
	c.t.Helper()
	c.id++
	hd := append([]string{"Authorization", "Bearer " + c.user, "MCP-Protocol-Version", c.version}, header...)
	var body string
	if c.version == rev20260728 {
		if params != "" {
			params += ","
		}
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, c.id, method, params, rev20260728Meta(""))
		hd = append(hd, "Mcp-Method", method)
	} else {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, c.id, method, params)
	}
	if c.sid != "" {
		hd = append(hd, "Mcp-Session-Id", c.sid)
	}
	resp, b, err := wiretest.Do(c.ts.Client(), wiretest.NewRequest(c.t.Context(), http.MethodPost, c.ts.URL, body, hd...))
	require.NoError(c.t, err)
	require.Equal(c.t, http.StatusOK, resp.StatusCode, "%s: %s", method, b)
	if method == "initialize" {
		c.sid = resp.Header.Get("Mcp-Session-Id")
	}
	msgs := wiretest.ParseMessages(c.t, resp.Header.Get("Content-Type"), b)
	require.NotEmpty(c.t, msgs, "%s", b)
	return msgs[len(msgs)-1]
}

// tools lists the names of the tools the user sees.
func (c *ruleClient) tools() []string {
	c.t.Helper()
	m := c.post("tools/list", "")
	require.Nil(c.t, m.Error, "tools/list")
	var r struct{ Tools []struct{ Name string } }
	require.NoError(c.t, json.Unmarshal(m.Result, &r))
	names := []string{}
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

// call calls a tool and returns its text, or the JSON-RPC error's message.
func (c *ruleClient) call(name string) (string, error) {
	c.t.Helper()
	m := c.post("tools/call", `"name":"`+name+`","arguments":{}`, "Mcp-Name", name)
	if m.Error != nil {
		return "", errors.New(m.Error.Message)
	}
	var r struct {
		Content []struct{ Text string }
		IsError bool
	}
	require.NoError(c.t, json.Unmarshal(m.Result, &r))
	require.NotEmpty(c.t, r.Content)
	if r.IsError {
		return "", errors.New(r.Content[0].Text)
	}
	return r.Content[0].Text, nil
}

// TestCallerRulesPerCaller: a caller's own Disable and Enable rules
// (Server.CallerRegistry) hide and show tools to that caller alone, at
// revision 2026-07-28 (no session) on a stateful and a stateless handler,
// at 2025-11-25 on a stateless handler, and in a 2025 session: what a
// rule hides is neither listed nor callable (it reads as unknown), and
// another caller sees the server's tools unchanged.
func TestCallerRulesPerCaller(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		stateless bool
		version   string
		session   bool
	}{
		{"2026-07-28", false, rev20260728, false},
		{"2026-07-28 stateless", true, rev20260728, false},
		{"2025-11-25 stateless", true, "2025-11-25", false},
		{"2025-11-25 session", false, "2025-11-25", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := callerRulesServer(nil)
			h := mcphttp.New(srv, &mcphttp.Options{Stateless: tt.stateless})
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			as := func(user string) *ruleClient {
				c := &ruleClient{t: t, ts: ts, user: user, version: tt.version}
				if tt.session {
					c.post("initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}`)
					require.NotEmpty(t, c.sid)
				}
				return c
			}
			alice, bob := as("alice"), as("bob")
			base := []string{"public", "unlock", "lock", "hide_public"}

			assert.Equal(t, base, alice.tools())
			_, err := alice.call("secret")
			require.ErrorContains(t, err, `Unknown tool: "secret"`)

			got, err := alice.call("unlock")
			require.NoError(t, err)
			assert.Equal(t, "unlocked", got)
			assert.Equal(t, []string{"public", "secret", "unlock", "lock", "hide_public"}, alice.tools())
			got, err = alice.call("secret")
			require.NoError(t, err)
			assert.Equal(t, "the secret", got)

			// bob: the server's tools, unchanged.
			assert.Equal(t, base, bob.tools())
			_, err = bob.call("secret")
			require.ErrorContains(t, err, `Unknown tool: "secret"`)

			// A caller's Disable hides a server-wide tool from it alone.
			_, err = bob.call("hide_public")
			require.NoError(t, err)
			assert.Equal(t, []string{"unlock", "lock", "hide_public"}, bob.tools())
			_, err = bob.call("public")
			require.ErrorContains(t, err, `Unknown tool: "public"`)
			assert.Equal(t, []string{"public", "secret", "unlock", "lock", "hide_public"}, alice.tools())

			// lock: the secret is hidden from alice again.
			_, err = alice.call("lock")
			require.NoError(t, err)
			assert.Equal(t, base, alice.tools())
			_, err = alice.call("secret")
			require.ErrorContains(t, err, `Unknown tool: "secret"`)
		})
	}
}

// opaqueUser is auth data without a subject.
type opaqueUser struct{ token string }

// TestCallerRegistryRefuses: a caller's registry refuses what it cannot
// do, each with the error that says why: an anonymous caller and auth
// data without a subject (ErrNoCaller); objects, which hold functions that
// cannot travel to another replica, and a server made without
// Options.CallerRules (ErrInvalidDefinition); a rule past MaxCallerRules.
func TestCallerRegistryRefuses(t *testing.T) {
	t.Parallel()
	srv := callerRulesServer(nil)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	plain := quietServer(mcp.Options{Authenticate: userAuth})
	hp := mcphttp.New(plain, nil)
	t.Cleanup(func() { _ = hp.Close() })
	child := quietServer(mcp.Options{})

	hide := mcp.Match{Names: []string{"public"}}
	alice := srv.CallerRegistry(caller{Name: "alice"})
	for _, tt := range []struct {
		name string
		err  error
		has  string
		do   func() error
	}{
		{"anonymous", mcp.ErrNoCaller, "anonymous", func() error { return srv.CallerRegistry(nil).Disable(hide) }},
		{"no subject", mcp.ErrNoCaller, "has none", func() error {
			return srv.CallerRegistry(opaqueUser{"t"}).Enable(hide)
		}},
		{"empty subject", mcp.ErrNoCaller, "subject", func() error { return srv.CallerRegistry(caller{}).Enable(hide) }},
		{"AddRawTool", mcp.ErrInvalidDefinition, "cannot travel to another replica", func() error {
			return alice.AddRawTool(mcp.Tool{Name: "mine"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) { return nil, nil })
		}},
		{"TryAddTool", mcp.ErrInvalidDefinition, "hide it with a server-wide Disable", func() error {
			return mcp.TryAddTool(alice, mcp.Tool{Name: "mine"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		}},
		{"AddResource", mcp.ErrInvalidDefinition, "Enable it on the caller's registry", func() error {
			return alice.AddResource(mcp.Resource{URI: "mem://mine", Name: "mine"})
		}},
		{"Remove", mcp.ErrInvalidDefinition, "Disable and Enable rules only", func() error { return alice.Remove(access.KindTool, "public") }},
		{"Mount", mcp.ErrInvalidDefinition, "Disable and Enable rules only", func() error {
			_, err := alice.Mount("child", child, nil)
			return err
		}},
		{"bad kind", mcp.ErrInvalidDefinition, "not a kind", func() error { return alice.Disable(mcp.Match{Kind: "widget"}) }},
		{"without Options.CallerRules", mcp.ErrInvalidDefinition, "Options.CallerRules", func() error {
			return plain.CallerRegistry(caller{Name: "alice"}).Disable(hide)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			require.ErrorIs(t, err, tt.err)
			assert.Contains(t, err.Error(), tt.has)
		})
	}

	t.Run("bound", func(t *testing.T) {
		carol := srv.CallerRegistry(caller{Name: "carol"})
		for i := range mcp.MaxCallerRules {
			require.NoError(t, carol.Disable(mcp.Match{Names: []string{fmt.Sprintf("t%d", i)}}), "rule %d", i)
		}
		err := carol.Disable(mcp.Match{Names: []string{"one_too_many"}})
		require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
		assert.Contains(t, err.Error(), "MaxCallerRules")
		// A rule with an earlier one's Match replaces it: no new place.
		require.NoError(t, carol.Enable(mcp.Match{Names: []string{"t0"}}))
		// Another caller has places of its own.
		require.NoError(t, srv.CallerRegistry(caller{Name: "dave"}).Disable(hide))
	})
}

// ruleStoreDown fails every read of a state record (a caller's state or
// rules) while failing is set.
type ruleStoreDown struct {
	*session.MemoryStore
	failing atomic.Bool
	reads   atomic.Int64 // the reads of state records
}

func (s *ruleStoreDown) Get(ctx context.Context, id string) (*session.Record, error) {
	if strings.HasPrefix(id, "state.") {
		s.reads.Add(1)
	}
	if s.failing.Load() && strings.HasPrefix(id, "state.") {
		return nil, errors.New("connection refused")
	}
	return s.MemoryStore.Get(ctx, id)
}

// TestCallerRulesFailClosed: when a caller's rules cannot be read from
// the store, the server cannot tell what they hide, so it shows the
// caller nothing (its lists are empty, the server-wide tools included)
// and refuses its calls with an error that says why, rather than show an
// object a rule of the caller's may hide; once the store answers again,
// the caller's rules apply as stored.
func TestCallerRulesFailClosed(t *testing.T) {
	t.Parallel()
	srv := callerRulesServer(nil)
	store := &ruleStoreDown{MemoryStore: session.NewMemoryStore()}
	h := mcphttp.New(srv, &mcphttp.Options{Sessions: store})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	// erin hides the public tool from herself on another replica (its
	// rules are in the store; this replica has not read them).
	other := callerRulesServer(nil)
	ho := mcphttp.New(other, &mcphttp.Options{Sessions: store})
	t.Cleanup(func() { _ = ho.Close() })
	require.NoError(t, other.CallerRegistry(caller{Name: "erin"}).Disable(mcp.Match{Names: []string{"public"}}))

	erin := &ruleClient{t: t, ts: ts, user: "erin", version: rev20260728}
	store.failing.Store(true)
	assert.Empty(t, erin.tools(), "nothing is listed while the rules cannot be read")
	for _, name := range []string{"public", "unlock", "secret"} {
		_, err := erin.call(name)
		require.ErrorContains(t, err, "could not read the caller's visibility rules", name)
		assert.NotContains(t, err.Error(), "connection refused", "the store's words stay in the log")
	}
	m := erin.post("prompts/get", `"name":"any"`, "Mcp-Name", "any")
	require.NotNil(t, m.Error)
	assert.Contains(t, m.Error.Message, "visibility rules")

	store.failing.Store(false)
	assert.Equal(t, []string{"unlock", "lock", "hide_public"}, erin.tools(), "her own Disable applies")
}

// TestCallerRulesReadOnce: a replica reads a caller's rules from the
// store once and keeps them: many requests of the caller (lists and
// calls, at 2026-07-28) cost one store read, not one each.
func TestCallerRulesReadOnce(t *testing.T) {
	t.Parallel()
	srv := callerRulesServer(nil)
	store := &ruleStoreDown{MemoryStore: session.NewMemoryStore()}
	r := newRuleReplica(t, srv, &mcphttp.Options{Sessions: store})
	alice := &ruleClient{t: t, ts: r.ts, user: "alice", version: rev20260728}
	start := time.Now()
	for range 20 {
		alice.tools()
		_, err := alice.call("public")
		require.NoError(t, err)
	}
	// One read, and one more per 2 s the requests took (a slow machine).
	most := 1 + int64(time.Since(start)/(2*time.Second))
	assert.LessOrEqual(t, store.reads.Load(), most, "store reads of alice's rules for 40 requests")
	assert.Positive(t, store.reads.Load())
}

// TestCallerRulesListChanged: a change of a caller's rules that changes
// what it sees sends tools/list_changed to that caller's listen streams
// alone; a change that changes nothing it sees sends nothing.
func TestCallerRulesListChanged(t *testing.T) {
	t.Parallel()
	srv := callerRulesServer(nil)
	r := newRuleReplica(t, srv, nil)
	filter := `{"toolsListChanged":true}`
	aliceL := listenAs(t, r, "alice", filter)
	bobL := listenAs(t, r, "bob", filter)

	alice := srv.CallerRegistry(caller{Name: "alice"})
	require.NoError(t, alice.Enable(mcp.Match{Names: []string{"secret"}}))
	expect(t, aliceL, "alice", "notifications/tools/list_changed", "")
	// Nothing alice sees changes: nothing is sent.
	require.NoError(t, alice.Enable(mcp.Match{Names: []string{"no_such_tool"}}))
	require.NoError(t, alice.Disable(mcp.Match{Kind: access.KindPrompt}))
	// A server-wide change: the next message of both streams. bob heard
	// nothing of alice's rule, and alice nothing of her no-op ones.
	require.NoError(t, srv.Registry().Remove(access.KindTool, "none"))
	expect(t, bobL, "bob", "notifications/tools/list_changed", "")
	expect(t, aliceL, "alice", "notifications/tools/list_changed", "")
}

// newRuleReplica serves srv over opts (nil: defaults) as a replica for
// listenAs.
func newRuleReplica(t *testing.T, srv *mcp.Server, opts *mcphttp.Options) replica {
	t.Helper()
	h := mcphttp.New(srv, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return replica{srv: srv, ts: ts}
}

// TestCallerRulesAcrossReplicas: two replicas share a store and a relay.
// Replica B has read alice's rules (none) and keeps them; alice unlocks
// the secret tool on replica A. Her listen stream on B hears of it, and
// her next list on B, made at once (well within the time B keeps rules
// it read), shows the tool: the relayed change made B read her rules
// again. bob's stream hears nothing and his list is unchanged.
func TestCallerRulesAcrossReplicas(t *testing.T) {
	t.Parallel()
	store, relay := session.NewMemoryStore(), session.NewMemoryRelay()
	a := newRuleReplica(t, callerRulesServer(nil), &mcphttp.Options{Sessions: store, Relay: relay, Stateless: true})
	b := newRuleReplica(t, callerRulesServer(nil), &mcphttp.Options{Sessions: store, Relay: relay, Stateless: true})
	filter := `{"toolsListChanged":true,"promptsListChanged":true}`
	aliceL := listenAs(t, b, "alice", filter)
	bobL := listenAs(t, b, "bob", filter)
	aliceA := &ruleClient{t: t, ts: a.ts, user: "alice", version: rev20260728}
	aliceB := &ruleClient{t: t, ts: b.ts, user: "alice", version: rev20260728}
	bobB := &ruleClient{t: t, ts: b.ts, user: "bob", version: rev20260728}
	base := []string{"public", "unlock", "lock", "hide_public"}
	require.Equal(t, base, aliceB.tools(), "B reads and keeps alice's rules")

	start := time.Now()
	_, err := aliceA.call("unlock")
	require.NoError(t, err)
	expect(t, aliceL, "alice on B", "notifications/tools/list_changed", "")
	heard := time.Since(start)
	assert.Equal(t, []string{"public", "secret", "unlock", "lock", "hide_public"}, aliceB.tools())
	assert.Less(t, time.Since(start), time.Second, "well within the time B keeps what it read")
	got, err := aliceB.call("secret")
	require.NoError(t, err)
	assert.Equal(t, "the secret", got)
	assert.Equal(t, base, bobB.tools())
	t.Logf("unlock on A → list_changed on alice's stream on B: %v", heard)

	require.NoError(t, a.srv.Registry().Remove(access.KindPrompt, "none"))
	expect(t, bobL, "bob on B", "notifications/prompts/list_changed", "")
}

// TestCallerRulesCacheScope: a list that a caller's own rules change
// depends on who asks: private, even where the server's hint says
// public; a caller without rules of its own gets the server's hint.
func TestCallerRulesCacheScope(t *testing.T) {
	t.Parallel()
	srv := callerRulesServer(&mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}})
	r := newRuleReplica(t, srv, nil)
	scope := func(user string) string {
		c := &ruleClient{t: t, ts: r.ts, user: user, version: rev20260728}
		m := c.post("tools/list", "")
		require.Nil(t, m.Error)
		var res struct {
			CacheScope string `json:"cacheScope"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &res))
		return res.CacheScope
	}
	require.NoError(t, srv.CallerRegistry(caller{Name: "alice"}).Enable(mcp.Match{Names: []string{"secret"}}))
	assert.Equal(t, "private", scope("alice"))
	assert.Equal(t, "public", scope("bob"))
}

// BenchmarkCallerRules is a 2026-07-28 tools/call and tools/list by an
// authenticated in-process client: on a server without Options.CallerRules
// ("off"), with it and no rules for the caller ("no-rules"), and with a
// rule of the caller's ("rule"): the rules read from the store are kept,
// so the last two pay a cache lookup per request, not a store read.
func BenchmarkCallerRules(b *testing.B) {
	for _, tt := range []struct {
		name     string
		on, rule bool
	}{{"off", false, false}, {"no-rules", true, false}, {"rule", true, true}} {
		b.Run(tt.name, func(b *testing.B) {
			ctx := context.Background()
			srv := quietServer(mcp.Options{Authenticate: userAuth, CallerRules: tt.on})
			mcp.AddTool(srv, mcp.Tool{Name: "public"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil })
			mcp.AddTool(srv, mcp.Tool{Name: "secret"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil })
			h := mcphttp.New(srv, nil)
			defer h.Close()
			if tt.rule {
				if err := srv.CallerRegistry(caller{Name: "alice"}).Disable(mcp.Match{Names: []string{"secret"}}); err != nil {
					b.Fatal(err)
				}
			}
			c, err := client.Connect(ctx, client.InProcess(h, http.Header{"Authorization": {"Bearer alice"}}),
				&client.Options{ProtocolVersion: mcp.Version20260728})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(ctx, "public", nil, nil); err != nil {
					b.Fatal(err)
				}
				if _, err := c.ListTools(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
