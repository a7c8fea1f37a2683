package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
)

// replica is one handler of a server that shares a relay with others.
type replica struct {
	srv *mcp.Server
	ts  *httptest.Server
}

// newReplica serves a server of its own (replicas are processes, each
// with its registry) over relay, authenticating "Bearer <name>".
func newReplica(t *testing.T, relay session.Relay) replica {
	t.Helper()
	srv := quietServer(mcp.Options{Authenticate: userAuth})
	h := mcphttp.New(srv, &mcphttp.Options{Relay: relay})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return replica{srv: srv, ts: ts}
}

// listenAs opens a subscriptions/listen stream on r as user, with filter
// (a notifications object), checks its acknowledgement and returns its
// later messages.
func listenAs(t *testing.T, r replica, user, filter string) <-chan msg {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	body := `{"jsonrpc":"2.0","id":"l-` + user + `","method":"subscriptions/listen","params":{"notifications":` + filter + `,` + rev20260728Meta("") + `}}`
	resp, err := r.ts.Client().Do(wiretest.NewRequest(ctx, http.MethodPost, r.ts.URL, body,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", "Authorization", "Bearer "+user))
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	frames := sseFrames(resp.Body)
	ack := readFrames(frames, 1, 5*time.Second)
	require.Len(t, ack, 1)
	require.Equal(t, "notifications/subscriptions/acknowledged", ack[0].Method)
	return frames
}

// nextOn returns the next message of a listen stream; it fails the test
// after 5 s.
func nextOn(t *testing.T, frames <-chan msg, who string) msg {
	t.Helper()
	got := readFrames(frames, 1, 5*time.Second)
	require.Len(t, got, 1, "%s heard nothing within 5 s", who)
	return got[0]
}

// expect checks the next message of a listen stream: its method, its URI
// (resources/updated) and the subscription ID it is tagged with.
func expect(t *testing.T, frames <-chan msg, who, method, uri string) {
	t.Helper()
	m := nextOn(t, frames, who)
	require.Equal(t, method, m.Method, "%s's next message", who)
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
		URI  string                     `json:"uri"`
	}
	require.NoError(t, json.Unmarshal(m.Params, &p))
	assert.Equal(t, uri, p.URI, "%s: %s", who, method)
	assert.NotEmpty(t, p.Meta["io.modelcontextprotocol/subscriptionId"], "%s: tagged with the subscription ID", who)
}

// relayPairs are the relays two replicas run on: in memory (one process),
// and two Redis clients of one real Redis, standalone and Cluster (two
// processes' worth of connections).
func relayPairs() map[string]func(t *testing.T) (a, b session.Relay) {
	return map[string]func(t *testing.T) (session.Relay, session.Relay){
		"memory": func(*testing.T) (session.Relay, session.Relay) {
			r := session.NewMemoryRelay()
			return r, r
		},
		"redis": func(t *testing.T) (session.Relay, session.Relay) {
			addr := redistest.Start(t)
			a, b := redis.NewClient(&redis.Options{Addr: addr}), redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			return redisstore.NewRelay(a, ""), redisstore.NewRelay(b, "")
		},
		"cluster": func(t *testing.T) (session.Relay, session.Relay) {
			addrs := redistest.StartCluster(t)
			a, _ := redistest.NewClusterClient(t, addrs)
			b, _ := redistest.NewClusterClient(t, addrs)
			return redisstore.NewRelay(a, ""), redisstore.NewRelay(b, "")
		},
	}
}

// TestListenAcrossReplicas: two replicas share a relay (in memory, Redis,
// Redis Cluster). A change on replica A (tools added, a resource updated,
// one caller's lists changed) reaches the subscriptions/listen streams
// held on replica B, as it reaches A's own; a change for alice reaches
// alice's streams only, never bob's; and no stream hears a change twice:
// a replica skips its own changes when they come back on the relay. The
// delay from a tool added on A to the notification read on B's stream is
// logged (median and 95th percentile of 50 changes).
func TestListenAcrossReplicas(t *testing.T) {
	t.Parallel()
	for name, relays := range relayPairs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ra, rb := relays(t)
			a, b := newReplica(t, ra), newReplica(t, rb)
			filter := `{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["mem://watched"]}`
			aliceA := listenAs(t, a, "alice", filter)
			aliceB := listenAs(t, b, "alice", filter)
			bobB := listenAs(t, b, "bob", filter)

			// Tools added on A, one at a time: each reaches B's streams
			// and A's own, once.
			const changes = 50
			delays := make([]time.Duration, 0, changes)
			for i := range changes {
				start := time.Now()
				mcp.AddTool(a.srv, mcp.Tool{Name: fmt.Sprintf("added_%d", i)}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
				expect(t, aliceB, "alice on B", "notifications/tools/list_changed", "")
				delays = append(delays, time.Since(start))
				expect(t, bobB, "bob on B", "notifications/tools/list_changed", "")
				expect(t, aliceA, "alice on A", "notifications/tools/list_changed", "")
			}
			slices.Sort(delays)
			median, p95 := delays[changes/2], delays[changes*95/100]
			t.Logf("%s: tool added on A → notification read on B's listen stream, %d changes: median %v, p95 %v, max %v",
				name, changes, median, p95, delays[changes-1])
			assert.Less(t, p95, time.Second, "the 95th percentile delay")

			// A resource updated on A: the streams subscribed to it hear
			// of it (all three are), and of no other URI.
			a.srv.ResourceUpdated("mem://other")
			a.srv.ResourceUpdated("mem://watched")
			expect(t, aliceB, "alice on B", "notifications/resources/updated", "mem://watched")
			expect(t, bobB, "bob on B", "notifications/resources/updated", "mem://watched")
			expect(t, aliceA, "alice on A", "notifications/resources/updated", "mem://watched")

			// alice's prompts changed, on A: her streams hear of it on both
			// replicas; bob's does not (checked below: his next message
			// is the next change for everyone).
			require.NoError(t, a.srv.ListChangedFor(caller{Name: "alice"}, access.KindPrompt))
			expect(t, aliceB, "alice on B", "notifications/prompts/list_changed", "")
			expect(t, aliceA, "alice on A", "notifications/prompts/list_changed", "")

			// A change on B. Everything A published came back to A before
			// it (one channel, in order: aliceB heard A's last change
			// through the relay), so A's streams would have heard any of
			// A's own changes again by now; and bob would have heard
			// alice's.
			require.NoError(t, b.srv.Registry().Remove(access.KindTool, "none"))
			expect(t, bobB, "bob on B", "notifications/tools/list_changed", "")
			expect(t, aliceB, "alice on B", "notifications/tools/list_changed", "")
			expect(t, aliceA, "alice on A", "notifications/tools/list_changed", "")
			// And the other way: B's change came back to B before this one
			// of A's, which B's streams hear next.
			require.NoError(t, a.srv.Registry().Remove(access.KindPrompt, "none"))
			expect(t, aliceA, "alice on A", "notifications/prompts/list_changed", "")
			expect(t, aliceB, "alice on B", "notifications/prompts/list_changed", "")
			expect(t, bobB, "bob on B", "notifications/prompts/list_changed", "")
		})
	}
}

// TestListenReconnectsToAnotherReplica: revision 2026-07-28 promises a
// listener nothing across a reconnection: no resumption (Last-Event-ID
// is not supported), and the server holds no subscription state; a
// client that listens again re-lists. So a stream opened on replica B
// after one on A closed starts with its acknowledgement and then hears
// the changes made from then on, on any replica; what changed while no
// stream was open is not replayed, and a list on B shows it.
func TestListenReconnectsToAnotherReplica(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	ca, cb := redis.NewClient(&redis.Options{Addr: addr}), redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = ca.Close(); _ = cb.Close() })
	a, b := newReplica(t, redisstore.NewRelay(ca, "")), newReplica(t, redisstore.NewRelay(cb, ""))
	filter := `{"toolsListChanged":true,"promptsListChanged":true}`

	ctx, cancel := context.WithCancel(t.Context())
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":` + filter + `,` + rev20260728Meta("") + `}}`
	resp, err := a.ts.Client().Do(wiretest.NewRequest(ctx, http.MethodPost, a.ts.URL, body,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", "Authorization", "Bearer alice"))
	require.NoError(t, err)
	require.Len(t, readFrames(sseFrames(resp.Body), 1, 5*time.Second), 1, "acknowledged on A")
	cancel()
	_ = resp.Body.Close()

	// While alice listens nowhere, both replicas add the same tool (as
	// replicas applying one configuration do). carol, listening on B
	// throughout, hears both changes: B has delivered them, A's included,
	// before alice listens there.
	carol := listenAs(t, b, "carol", filter)
	for _, r := range []replica{a, b} {
		mcp.AddTool(r.srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	}
	expect(t, carol, "carol on B", "notifications/tools/list_changed", "")
	expect(t, carol, "carol on B", "notifications/tools/list_changed", "")
	// She listens again, on B: nothing is replayed; the next message is
	// the next change, made on A.
	again := listenAs(t, b, "alice", filter)
	require.NoError(t, a.srv.Registry().Remove(access.KindPrompt, "none"))
	expect(t, again, "alice on B", "notifications/prompts/list_changed", "")
	// What changed meanwhile is in the list she asks B for.
	_, msgs := rev20260728Post(t, b.ts, rev20260728Body("tools/list", ""), "Authorization", "Bearer alice")
	require.Len(t, msgs, 1)
	require.Nil(t, msgs[0].Error)
	assert.Contains(t, string(msgs[0].Result), `"name":"late"`)
}

// TestListChangedForOneCaller: Server.ListChangedFor tells one caller's
// streams, by its identity key: its listen streams and the GET streams of
// its 2025 sessions, in one process without a relay too; another caller's
// hear nothing. Auth data without a subject is refused with ErrNoCaller,
// and a kind that has no list with ErrInvalidDefinition.
func TestListChangedForOneCaller(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{Authenticate: userAuth})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	r := replica{srv: srv, ts: ts}
	filter := `{"toolsListChanged":true,"resourcesListChanged":true}`
	alice, bob := listenAs(t, r, "alice", filter), listenAs(t, r, "bob", filter)

	// alice's 2025 session and its GET stream.
	hc := ts.Client()
	hc.Transport = bearer{user: "alice", next: hc.Transport}
	c := &httpClient{t: t, url: ts.URL, hc: hc}
	c.initialize("2025-11-25")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	get := c.open(ctx, http.MethodGet, "")
	require.Equal(t, http.StatusOK, get.resp.StatusCode)

	require.NoError(t, srv.ListChangedFor(caller{Name: "alice"}, access.KindResource, access.KindTool))
	expect(t, alice, "alice", "notifications/resources/list_changed", "")
	expect(t, alice, "alice", "notifications/tools/list_changed", "")
	for _, want := range []string{"notifications/resources/list_changed", "notifications/tools/list_changed"} {
		m := nextData(t, get)
		assert.Equal(t, want, m.Method, "alice's GET stream")
	}
	// bob's next message is the next change for everyone.
	require.NoError(t, srv.Registry().Remove(access.KindTool, "none"))
	expect(t, bob, "bob", "notifications/tools/list_changed", "")

	err := srv.ListChangedFor(nil, access.KindTool)
	require.ErrorIs(t, err, mcp.ErrNoCaller)
	assert.Contains(t, err.Error(), "anonymous")
	err = srv.ListChangedFor(struct{ Role string }{"admin"}, access.KindTool)
	require.ErrorIs(t, err, mcp.ErrNoCaller)
	assert.Contains(t, err.Error(), "Subject")
	err = srv.ListChangedFor(caller{Name: "alice"}, access.Kind("skill"))
	require.ErrorIs(t, err, mcp.ErrInvalidDefinition)
	assert.True(t, strings.Contains(err.Error(), `"skill"`), "%v", err)
}

// bearer sends every request with "Authorization: Bearer <user>".
type bearer struct {
	user string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.user)
	return b.next.RoundTrip(r)
}
