package mcphttp_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/sessionstate"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
)

// TestSessionsMoveBetweenReplicas: two handlers (replicas) on one shared
// store, in memory and on a real redis-server. A session made on A is
// served by B; what B changes (log level, subscriptions, initialized) is
// in the stored record; a DELETE on A ends it on B too (404).
func TestSessionsMoveBetweenReplicas(t *testing.T) {
	t.Parallel()
	stores := map[string]func(t *testing.T) session.Store{
		"memory": func(*testing.T) session.Store { return session.NewMemoryStore() },
		"redis": func(t *testing.T) session.Store {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			return redisstore.New(c, nil)
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			a, ha := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store})
			b, hb := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store})
			a.initialize("2025-11-25")
			b.sid, b.version = a.sid, a.version

			res, _ := b.call(1, "tools/call", `{"name":"add","arguments":{"a":2,"b":3}}`)
			require.Nil(t, res.Error, "B serves the session A made")
			assert.Contains(t, string(res.Result), `"5"`)
			assert.Equal(t, 1, hb.SessionCount(), "B adopted it")

			res, _ = b.call(2, "logging/setLevel", `{"level":"error"}`)
			require.Nil(t, res.Error)
			res, _ = b.call(3, "resources/subscribe", `{"uri":"test://a"}`)
			require.Nil(t, res.Error)
			rec, err := store.Get(context.Background(), a.sid)
			require.NoError(t, err)
			assert.Equal(t, mcp.LevelError, rec.LogLevel, "B wrote the log level back")
			assert.Equal(t, []string{"test://a"}, rec.Subscriptions)
			assert.True(t, rec.Initialized)
			assert.Equal(t, "test", rec.Client.Name)

			// A takes what B wrote on its next request.
			res, _ = a.call(4, "resources/unsubscribe", `{"uri":"test://a"}`)
			require.Nil(t, res.Error)
			rec, err = store.Get(context.Background(), a.sid)
			require.NoError(t, err)
			assert.Empty(t, rec.Subscriptions)
			assert.Equal(t, mcp.LevelError, rec.LogLevel, "A kept B's log level")

			resp, body := a.do(http.MethodDelete, "")
			require.Equal(t, http.StatusNoContent, resp.StatusCode, "%s", body)
			assert.Equal(t, 0, ha.SessionCount())
			status, msgs := b.post(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
			assert.Equal(t, http.StatusNotFound, status, "ended on A, so gone on B")
			require.Len(t, msgs, 1)
			assert.Equal(t, int64(mcp.CodeSessionNotFound), msgs[0].Error.Code)
			assert.Equal(t, 0, hb.SessionCount(), "B dropped its copy")
		})
	}
}

// TestStoredSessionIsBoundToItsCaller: a replica adopts a stored session
// only for the identity that made it; another caller gets 403.
func TestStoredSessionIsBoundToItsCaller(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	a, _ := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store})
	a.initialize("2025-11-25")
	rec, err := store.Get(context.Background(), a.sid)
	require.NoError(t, err)
	require.NoError(t, store.Update(context.Background(), a.sid, time.Minute, func(r *session.Record) error {
		r.Identity = sessionstate.Identity("someone else")
		return nil
	}))
	b, hb := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store})
	b.sid, b.version = rec.ID, a.version
	status, msgs := b.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	assert.Equal(t, http.StatusForbidden, status)
	require.Len(t, msgs, 1)
	assert.Contains(t, msgs[0].Error.Message, "belongs to another caller")
	assert.Equal(t, 0, hb.SessionCount())
}

// failingStore is a MemoryStore whose every call fails while broken.
type failingStore struct {
	*session.MemoryStore
	broken atomic.Bool
}

var errStoreDown = errors.New("store down")

func (f *failingStore) Create(ctx context.Context, rec *session.Record, ttl time.Duration) error {
	if f.broken.Load() {
		return errStoreDown
	}
	return f.MemoryStore.Create(ctx, rec, ttl)
}

func (f *failingStore) Touch(ctx context.Context, id string, ttl time.Duration) (*session.Record, error) {
	if f.broken.Load() {
		return nil, errStoreDown
	}
	return f.MemoryStore.Touch(ctx, id, ttl)
}

func (f *failingStore) Update(ctx context.Context, id string, ttl time.Duration, fn func(*session.Record) error) error {
	if f.broken.Load() {
		return errStoreDown
	}
	return f.MemoryStore.Update(ctx, id, ttl, fn)
}

// TestSessionStoreFailures: a store that fails is never taken for a
// missing session: a lookup is answered 503 with an internal error, a
// change that cannot be written back fails its request with a JSON-RPC
// internal error, and initialize is answered 503 with Retry-After and an
// internal error; each is logged.
func TestSessionStoreFailures(t *testing.T) {
	t.Parallel()
	store := &failingStore{MemoryStore: session.NewMemoryStore()}
	var logs wiretest.SyncBuffer
	c, h := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store, Logger: jsonLogger(&logs)})
	c.initialize("2025-11-25")

	// The store fails on the lookup (GETEX) of an existing session.
	store.broken.Store(true)
	status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	require.Len(t, msgs, 1)
	assert.Equal(t, int64(mcp.CodeInternalError), msgs[0].Error.Code)
	assert.Contains(t, msgs[0].Error.Message, "session store failed")
	assert.Equal(t, 1, h.SessionCount(), "an outage does not end the session")

	store.broken.Store(false)
	res, _ := c.call(2, "tools/list", "")
	require.Nil(t, res.Error, "served again once the store is back")

	fresh := &httpClient{t: t, url: c.url, hc: c.hc}
	store.broken.Store(true)
	resp, body := fresh.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", body)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, string(body), `"code":-32603`)
	assert.Contains(t, string(body), "session store failed to save the new session")
	assert.Equal(t, 1, h.SessionCount(), "no session was made")
	assert.Contains(t, logs.String(), "store down")
}

// TestWriteBackFailureFailsTheRequest: logging/setLevel whose change
// cannot be saved is answered with an internal error naming it.
func TestWriteBackFailureFailsTheRequest(t *testing.T) {
	t.Parallel()
	store := &updateFails{MemoryStore: session.NewMemoryStore()}
	c, _ := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store})
	c.initialize("2025-11-25")
	store.broken.Store(true)
	res, _ := c.call(1, "logging/setLevel", `{"level":"error"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, int64(mcp.CodeInternalError), res.Error.Code)
	assert.Contains(t, res.Error.Message, "failed to save the log level")
}

// updateFails fails Update alone while broken.
type updateFails struct {
	*session.MemoryStore
	broken atomic.Bool
}

func (f *updateFails) Update(ctx context.Context, id string, ttl time.Duration, fn func(*session.Record) error) error {
	if f.broken.Load() {
		return errStoreDown
	}
	return f.MemoryStore.Update(ctx, id, ttl, fn)
}

// TestStreamResumesOnAnotherReplica: with a shared event store
// (Options.Events), a client whose connection to replica A broke mid-call
// resumes the stream with Last-Event-ID on replica B, which replays what
// it missed and follows the stream, while A runs the call, until the
// response; the delivered stream cannot be resumed again. In memory and on
// a real redis-server.
func TestStreamResumesOnAnotherReplica(t *testing.T) {
	t.Parallel()
	type stores struct {
		sessions session.Store
		events   session.EventStore
	}
	backends := map[string]func(t *testing.T) stores{
		"memory": func(*testing.T) stores {
			return stores{session.NewMemoryStore(), session.NewMemoryEventStore(time.Minute)}
		},
		"redis": func(t *testing.T) stores {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			return stores{redisstore.New(c, nil), redisstore.NewEventStore(c, "", time.Minute)}
		},
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := backend(t)
			opts := &mcphttp.Options{Resumable: true, Sessions: st.sessions, Events: st.events}
			a := newResumeEnv(t, opts, nil)
			b := newResumeEnv(t, opts, nil)
			a.c.initialize("2025-11-25")
			b.c.sid, b.c.version = a.c.sid, a.c.version

			ctx, drop := context.WithTimeout(context.Background(), 10*time.Second)
			defer drop()
			s := a.c.open(ctx, http.MethodPost, toolCall(2, "chatty", `{"tag":"X"}`), "X-Test-Tag", "X")
			require.Equal(t, http.StatusOK, s.resp.StatusCode)
			prime := s.mustNext()
			require.True(t, prime.isPriming(), "%+v", prime)
			first := s.mustNext()
			require.Equal(t, "X 1", logText(t, first.msg(t)))
			drop()
			a.waitServed("X")

			gctx, gcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer gcancel()
			g := b.c.open(gctx, http.MethodGet, "", "Last-Event-ID", first.ID)
			require.Equal(t, http.StatusOK, g.resp.StatusCode)
			require.Equal(t, a.c.sid, g.resp.Header.Get("Mcp-Session-Id"))
			close(a.p.gate) // the call on A goes on while B follows it
			resumed := g.all()
			require.Len(t, resumed, 3, "the missed notifications and the response: %+v", resumed)
			assert.Equal(t, "X 2", logText(t, resumed[0].msg(t)))
			assert.Equal(t, "X 3", logText(t, resumed[1].msg(t)))
			res := resumed[2].msg(t)
			require.True(t, res.IsResponse())
			assert.Equal(t, "2", string(res.ID))
			assert.Equal(t, "X done", wiretest.ToolResult(t, res).Text())
			for i, ev := range resumed {
				assert.NotEqual(t, first.ID, ev.ID, "event %d has its own ID", i)
			}
			require.NoError(t, a.waitFinished())

			resp, body := b.c.do(http.MethodGet, "", "Last-Event-ID", first.ID)
			assert.Equal(t, http.StatusOK, resp.StatusCode, "delivered: %s", body)
			assert.Empty(t, body, "a delivered stream resumes empty")
		})
	}
}

// TestAnswerOnAnotherReplicaIsDropped: without a relay, server-to-client
// requests are not routed between replicas. A tool on replica A elicits;
// the client's answer posted to replica B is dropped (and logged) but
// answered 202, since an error status makes a client such as the official
// Go SDK close its connection for good; the same answer posted to A
// completes the call.
func TestAnswerOnAnotherReplicaIsDropped(t *testing.T) {
	t.Parallel()
	a, b, s, answer := startElicit(t, nil)

	status, msgs := b.post(answer)
	assert.Equal(t, http.StatusAccepted, status)
	assert.Empty(t, msgs)

	status, _ = a.post(answer)
	require.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, "accept", elicitResult(t, s))
}

// TestAnswerRelayedToTheAskingReplica: with Options.Relay (in memory and
// on Redis pub/sub), the client's answer posted to replica B reaches the
// tool waiting on replica A.
func TestAnswerRelayedToTheAskingReplica(t *testing.T) {
	t.Parallel()
	relays := map[string]func(t *testing.T) session.Relay{
		"memory": func(*testing.T) session.Relay { return session.NewMemoryRelay() },
		"redis": func(t *testing.T) session.Relay {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			return redisstore.NewRelay(c, "")
		},
	}
	for name, newRelay := range relays {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, b, s, answer := startElicit(t, newRelay(t))
			status, body := b.post(answer)
			require.Equal(t, http.StatusAccepted, status, "%v", body)
			assert.Equal(t, "accept", elicitResult(t, s))
		})
	}
}

// elicitResult reads the elicit call's stream to its response and returns
// the tool's text.
func elicitResult(t *testing.T, s *sseStream) string {
	t.Helper()
	for {
		ev := s.mustNext()
		if m := ev.msg(t); m.IsResponse() {
			assert.Equal(t, "7", string(m.ID))
			return wiretest.ToolResult(t, m).Text()
		}
	}
}

// startElicit runs two replicas sharing a store (and relay, if not nil),
// opens a session on A, calls a tool on A that elicits, and returns the
// clients, the call's stream, and the client's answer to the elicitation.
func startElicit(t *testing.T, relay session.Relay) (a, b *httpClient, s *sseStream, answer string) {
	t.Helper()
	newSrv := func() *mcp.Server {
		srv := quietServerWithTools(mcp.Options{})
		mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			res, err := c.Elicit(ctx, &mcp.ElicitParams{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object"}})
			if err != nil {
				return "", err
			}
			return res.Action, nil
		})
		return srv
	}
	store, events := session.NewMemoryStore(), session.NewMemoryEventStore(time.Minute)
	opts := &mcphttp.Options{Sessions: store, Events: events, Relay: relay}
	a, _ = newHTTP(t, newSrv(), opts)
	b, _ = newHTTP(t, newSrv(), opts)
	a.initWith(`{"elicitation":{}}`, "asker")
	b.sid, b.version = a.sid, a.version

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	s = a.open(ctx, http.MethodPost, toolCall(7, "ask", `{}`))
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	var req msg
	for {
		ev := s.mustNext()
		if ev.HasData && ev.Data != "" {
			req = ev.msg(t)
			break
		}
	}
	require.Equal(t, "elicitation/create", req.Method)
	answer = `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept","content":{}}}`
	return a, b, s, answer
}

// TestIdleHereButBusyElsewhere: replica A made a session that the client
// then uses only on replica B, for longer than the idle timeout. A's
// reaper must drop only its own copy (the stored record lives, touched by
// B), never end the session: B keeps serving it.
func TestIdleHereButBusyElsewhere(t *testing.T) {
	t.Parallel()
	const idle = 400 * time.Millisecond
	store := session.NewMemoryStore()
	var endsA atomic.Int32
	hooksA := &mcphttp.SessionHooks{OnEnd: func(mcphttp.SessionInfo, mcphttp.EndReason) { endsA.Add(1) }}
	opts := func(h *mcphttp.SessionHooks) *mcphttp.Options {
		return &mcphttp.Options{Sessions: store, Events: session.NewMemoryEventStore(time.Minute),
			SessionIdleTimeout: idle, Hooks: h}
	}
	a, ha := newHTTP(t, quietServerWithTools(mcp.Options{}), opts(hooksA))
	b, _ := newHTTP(t, quietServerWithTools(mcp.Options{}), opts(nil))
	a.initialize("2025-11-25")
	b.sid, b.version = a.sid, a.version
	// B keeps the session in use (a request every 50 ms, far inside the
	// idle timeout) until A, which sees none of it, drops its idle copy.
	deadline := time.Now().Add(10 * time.Second)
	for i := 1; ha.SessionCount() != 0; i++ {
		require.True(t, time.Now().Before(deadline), "A never dropped its idle copy")
		res, _ := b.call(i, "tools/list", "")
		require.Nil(t, res.Error, "request %d", i)
		time.Sleep(50 * time.Millisecond) // pacing B's use, not synchronisation
	}
	assert.Zero(t, endsA.Load(), "A dropped its copy without ending the session")
	_, err := store.Get(context.Background(), a.sid)
	require.NoError(t, err, "the record lives on")
	res, _ := a.call(99, "tools/list", "")
	require.Nil(t, res.Error, "A adopts it again")

	// Unused everywhere, it expires (store.Get does not touch it), and the
	// next request gets 404.
	require.Eventually(t, func() bool {
		_, err := store.Get(context.Background(), a.sid)
		return errors.Is(err, session.ErrNotFound)
	}, 10*time.Second, 20*time.Millisecond, "the unused session never expired")
	status, _ := b.post(`{"jsonrpc":"2.0","id":100,"method":"tools/list"}`)
	assert.Equal(t, http.StatusNotFound, status)
}
