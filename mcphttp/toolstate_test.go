package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/mcpchain/mcp/state"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type cart struct {
	Items []string `json:"items"`
}

// stateServer has tools that use the session state: add_item keeps a
// typed cart, set, get and del one string per key, and every failure is
// reported in the text so that the tests can read it.
func stateServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "state", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	report := func(err error) string {
		var se *state.SizeError
		switch {
		case errors.As(err, &se):
			return fmt.Sprintf("too large: key=%s session=%v size=%d limit=%d is=%v", se.Key, se.Session, se.Size, se.Limit, errors.Is(err, state.ErrTooLarge))
		case errors.Is(err, mcp.ErrNoSession):
			return "no session"
		}
		return "error: " + err.Error()
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add_item"}, func(ctx context.Context, c *mcp.Context, in struct {
		Item string `json:"item"`
	}) (string, error) {
		ct, _, err := state.Get[cart](ctx, state.Session(c), "cart")
		if err != nil {
			return report(err), nil
		}
		ct.Items = append(ct.Items, in.Item)
		if err := state.Set(ctx, state.Session(c), "cart", ct); err != nil {
			return report(err), nil
		}
		return strings.Join(ct.Items, ","), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "set"}, func(ctx context.Context, c *mcp.Context, in struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}) (string, error) {
		if err := state.Set(ctx, state.Session(c), in.Key, in.Value); err != nil {
			return report(err), nil
		}
		return "ok", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "get"}, func(ctx context.Context, c *mcp.Context, in struct {
		Key string `json:"key"`
	}) (string, error) {
		v, found, err := state.Get[string](ctx, state.Session(c), in.Key)
		switch {
		case err != nil:
			return report(err), nil
		case !found:
			return "<unset>", nil
		}
		return v, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "del"}, func(ctx context.Context, c *mcp.Context, in struct {
		Key string `json:"key"`
	}) (string, error) {
		if err := state.Delete(ctx, state.Session(c), in.Key); err != nil {
			return report(err), nil
		}
		return "ok", nil
	})
	return srv
}

// callText calls a tool on the session of c and returns its text.
func callText(t *testing.T, c *httpClient, id int, tool, args string) string {
	t.Helper()
	res, _ := c.call(id, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	r := wiretest.ToolResult(t, res)
	require.False(t, r.IsError, "%+v", r)
	return r.Content[0].(mcp.TextContent).Text
}

func stateStores() map[string]func(t *testing.T) session.Store {
	return map[string]func(t *testing.T) session.Store{
		"memory": func(*testing.T) session.Store { return session.NewMemoryStore() },
		"redis": func(t *testing.T) session.Store {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			return redisstore.New(c, nil)
		},
		// A Redis Cluster of three masters, every command slot-checked.
		"cluster": func(t *testing.T) session.Store {
			c, _ := redistest.NewClusterClient(t, redistest.StartCluster(t))
			return redisstore.New(c, nil)
		},
	}
}

// TestSessionStateAcrossReplicas: what a tool stores on replica A is read
// by a tool of replica B sharing the store (memory, Redis, a Redis
// Cluster), typed; a key
// deleted on B is gone on A; after DELETE the record, state included, is
// gone from the store.
func TestSessionStateAcrossReplicas(t *testing.T) {
	t.Parallel()
	for name, newStore := range stateStores() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			a, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store})
			b, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store})
			a.initialize("2025-11-25")
			b.sid, b.version = a.sid, a.version

			assert.Equal(t, "apple", callText(t, a, 1, "add_item", `{"item":"apple"}`))
			assert.Equal(t, "apple,pear", callText(t, b, 2, "add_item", `{"item":"pear"}`), "B reads A's cart")
			assert.Equal(t, "apple,pear,fig", callText(t, a, 3, "add_item", `{"item":"fig"}`), "A reads B's write")
			assert.Equal(t, "ok", callText(t, a, 4, "set", `{"key":"note","value":"hello"}`))
			assert.Equal(t, "hello", callText(t, b, 5, "get", `{"key":"note"}`))
			assert.Equal(t, "ok", callText(t, b, 6, "del", `{"key":"note"}`))
			assert.Equal(t, "<unset>", callText(t, a, 7, "get", `{"key":"note"}`))

			rec, err := store.Get(context.Background(), a.sid)
			require.NoError(t, err)
			assert.JSONEq(t, `{"items":["apple","pear","fig"]}`, string(rec.State["cart"]), "kept in the session's record")

			// Another session sees none of it.
			other, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store})
			other.initialize("2025-11-25")
			assert.Equal(t, "<unset>", callText(t, other, 1, "get", `{"key":"cart"}`))

			resp, body := a.do(http.MethodDelete, "")
			require.Equal(t, http.StatusNoContent, resp.StatusCode, "%s", body)
			_, err = store.Get(context.Background(), a.sid)
			assert.ErrorIs(t, err, session.ErrNotFound, "DELETE removed the record and its state")
		})
	}
}

// TestSessionStateIdleExpiry: the state of a session that idles past
// SessionIdleTimeout is gone with it, in memory, on Redis and on a Redis
// Cluster.
func TestSessionStateIdleExpiry(t *testing.T) {
	t.Parallel()
	for name, newStore := range stateStores() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			a, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store, SessionIdleTimeout: 300 * time.Millisecond})
			a.initialize("2025-11-25")
			assert.Equal(t, "ok", callText(t, a, 1, "set", `{"key":"k","value":"v"}`))
			rec, err := store.Get(context.Background(), a.sid)
			require.NoError(t, err)
			require.Contains(t, rec.State, "k")
			require.Eventually(t, func() bool {
				_, err := store.Get(context.Background(), a.sid)
				return errors.Is(err, session.ErrNotFound)
			}, 5*time.Second, 50*time.Millisecond, "the idle session expired, state included")
			status, _ := a.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"key":"k"}}}`)
			assert.Equal(t, http.StatusNotFound, status, "the session is gone")
		})
	}
}

// TestSessionStateConcurrentKeys: concurrent calls of one session, on two
// replicas sharing one Redis, each setting a key of its own: every key
// survives (no lost update).
func TestSessionStateConcurrentKeys(t *testing.T) {
	t.Parallel()
	store := stateStores()["redis"](t)
	a, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store})
	b, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store})
	a.initialize("2025-11-25")
	b.sid, b.version = a.sid, a.version
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Go(func() {
			status, msgs := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"set","arguments":{"key":"k%d","value":"v%d"}}}`, i+1, i, i))
			assert.Equal(t, http.StatusOK, status)
			if assert.NotEmpty(t, msgs) {
				var r mcp.ContentResult
				assert.NoError(t, json.Unmarshal(msgs[len(msgs)-1].Result, &r))
				assert.Contains(t, string(msgs[len(msgs)-1].Result), `"ok"`)
			}
		})
	}
	wg.Wait()
	rec, err := store.Get(context.Background(), a.sid)
	require.NoError(t, err)
	assert.Len(t, rec.State, n, "every concurrent write kept")
	for i := range n {
		assert.Equal(t, fmt.Sprintf("v%d", i), callText(t, a, 100+i, "get", fmt.Sprintf(`{"key":"k%d"}`, i)))
	}
}

// TestSessionStateLimits: a value over MaxStateValue, or a session over
// MaxSessionState, is a *mcp.StateSizeError that changes nothing; a
// replaced key counts once; keys are 1 to MaxStateKeyLen bytes.
func TestSessionStateLimits(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	a, _ := newHTTP(t, stateServer(), &mcphttp.Options{Sessions: store, MaxStateValue: 20, MaxSessionState: 40})
	a.initialize("2025-11-25")
	long := strings.Repeat("x", 19) // 21 bytes of JSON
	assert.Equal(t, "too large: key=a session=false size=21 limit=20 is=true", callText(t, a, 1, "set", `{"key":"a","value":"`+long+`"}`))
	assert.Equal(t, "<unset>", callText(t, a, 2, "get", `{"key":"a"}`), "a refused write changes nothing")
	v18 := strings.Repeat("x", 18)                                                          // 20 bytes of JSON: at the limit
	assert.Equal(t, "ok", callText(t, a, 3, "set", `{"key":"a","value":"`+v18+`"}`))        // session: 1+20 = 21
	assert.Equal(t, "ok", callText(t, a, 4, "set", `{"key":"a","value":"`+v18+`"}`))        // replaced: still 21
	assert.Equal(t, "ok", callText(t, a, 5, "set", `{"key":"b","value":"12345678901234"}`)) // 21 + 1+16 = 38
	assert.Equal(t, "too large: key=c session=true size=42 limit=40 is=true", callText(t, a, 6, "set", `{"key":"c","value":"1"}`))
	assert.Equal(t, "ok", callText(t, a, 7, "del", `{"key":"b"}`))
	assert.Equal(t, "ok", callText(t, a, 8, "set", `{"key":"c","value":"1"}`), "deleting made room")
	assert.Contains(t, callText(t, a, 9, "set", `{"key":"","value":"v"}`), "error: state: a key must be 1 to 256 bytes")
	assert.Contains(t, callText(t, a, 10, "get", fmt.Sprintf(`{"key":%q}`, strings.Repeat("k", state.MaxKeyLen+1))), "error: state: a key must be 1 to 256 bytes")

	// The defaults bound a value at 16 KiB; negative limits bound nothing.
	big := strings.Repeat("x", mcphttp.DefaultMaxStateValue)
	d, _ := newHTTP(t, stateServer(), nil)
	d.initialize("2025-11-25")
	assert.Contains(t, callText(t, d, 1, "set", `{"key":"big","value":"`+big+`"}`), "too large: key=big session=false size=16386 limit=16384")
	n, _ := newHTTP(t, stateServer(), &mcphttp.Options{MaxStateValue: -1, MaxSessionState: -1})
	n.initialize("2025-11-25")
	assert.Equal(t, "ok", callText(t, n, 1, "set", `{"key":"big","value":"`+big+`"}`))
}

// TestSessionStateWithoutSession: stateless HTTP and revision 2026-07-28
// have no session: the state calls fail with mcp.ErrNoSession.
func TestSessionStateWithoutSession(t *testing.T) {
	t.Parallel()
	t.Run("stateless", func(t *testing.T) {
		t.Parallel()
		a, _ := newHTTP(t, stateServer(), &mcphttp.Options{Stateless: true})
		a.version = "2025-11-25" // no initialize: stateless serves any request
		for i, call := range [][2]string{{"set", `{"key":"k","value":"v"}`}, {"get", `{"key":"k"}`}, {"del", `{"key":"k"}`}, {"add_item", `{"item":"i"}`}} {
			assert.Equal(t, "no session", callText(t, a, i+1, call[0], call[1]), call[0])
		}
	})
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(stateServer(), nil)
		t.Cleanup(func() { _ = h.Close() })
		rec := &bodyRecorder{h: http.Header{}}
		body := rev20260728Body("tools/call", `"name":"set","arguments":{"key":"k","value":"v"}`)
		r := wiretest.NewRequest(context.Background(), http.MethodPost, "http://127.0.0.1/mcp", body,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "set")
		h.ServeHTTP(rec, r)
		assert.Contains(t, rec.body.String(), "no session")
	})
}

// bodyRecorder is a minimal http.ResponseWriter that keeps the body.
type bodyRecorder struct {
	h    http.Header
	body strings.Builder
	code int
}

func (r *bodyRecorder) Header() http.Header         { return r.h }
func (r *bodyRecorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *bodyRecorder) WriteHeader(code int)        { r.code = code }

// TestSessionStateStdioAndEmbedded: over stdio, the legacy HTTP+SSE
// transport and in an embedded session (mcptest), the state lives as long
// as the one session.
func TestSessionStateStdioAndEmbedded(t *testing.T) {
	t.Parallel()
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c := wiretest.StartStdio(t, stateServer())
		wiretest.Initialize(t, c)
		call := func(id int, item string) string {
			raw := c.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_item","arguments":{"item":%q}}}`, id, item))
			var m wiretest.Msg
			require.NoError(t, json.Unmarshal(raw, &m))
			return wiretest.ToolResult(t, m).Content[0].(mcp.TextContent).Text
		}
		assert.Equal(t, "a", call(1, "a"))
		assert.Equal(t, "a,b", call(2, "b"))
	})
	t.Run("legacy HTTP+SSE", func(t *testing.T) {
		t.Parallel()
		ts, _ := newLegacyServer(t, stateServer(), nil, "")
		c := openLegacy(t, ts.Client(), ts.URL+"/sse")
		c.initialize()
		for i, want := range []string{"a", "a,b"} {
			m, _ := c.call(i+1, "tools/call", fmt.Sprintf(`{"name":"add_item","arguments":{"item":%q}}`, want[len(want)-1:]))
			assert.Equal(t, want, wiretest.ToolResult(t, m).Content[0].(mcp.TextContent).Text)
		}
	})
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		s := mcptest.NewSession(t, stateServer(), nil)
		assert.Equal(t, "a", s.CallTool("add_item", map[string]string{"item": "a"}, nil).Text())
		assert.Equal(t, "a,b", s.CallTool("add_item", map[string]string{"item": "b"}, nil).Text())
		other := mcptest.NewSession(t, stateServer(), nil)
		assert.Equal(t, "<unset>", other.CallTool("get", map[string]string{"key": "cart"}, nil).Text(), "a session of its own")
	})
}

// stateUser is auth data with a subject: its state is the subject's.
type stateUser string

func (u stateUser) Subject() string { return string(u) }

// opaqueAuth is auth data without a subject: no two of its requests can be
// told to be one caller's.
type opaqueAuth struct{ Token string }

// stateArgs are the arguments of the scoped-state tool.
type stateArgs struct {
	// Op is get, set, del, new (a handle) or end (a handle).
	Op string `json:"op"`
	// Scope is caller, handle or session.
	Scope  string       `json:"scope,omitempty"`
	Handle state.Handle `json:"handle,omitempty"`
	Key    string       `json:"key,omitempty"`
	Value  string       `json:"value,omitempty"`
}

// scopedStateServer has one tool, "state", that runs one state operation
// on the scope its arguments name and answers the result, or the kind of
// the error and its text ("no caller: …"). The X-User header is the
// caller's subject; "opaque:…" is auth data without one; none is
// anonymous.
func scopedStateServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "scoped", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(r *http.Request) (any, error) {
			u := r.Header.Get("X-User")
			switch {
			case u == "":
				return nil, nil
			case strings.HasPrefix(u, "opaque:"):
				return opaqueAuth{Token: u}, nil
			}
			return stateUser(u), nil
		}})
	report := func(err error) string {
		var se *state.SizeError
		switch {
		case errors.As(err, &se):
			return fmt.Sprintf("too large: key=%s whole=%v size=%d limit=%d", se.Key, se.Session, se.Size, se.Limit)
		case errors.Is(err, state.ErrTooLarge):
			return "too many: " + err.Error()
		case errors.Is(err, mcp.ErrNoCaller):
			return "no caller: " + err.Error()
		case errors.Is(err, mcp.ErrNoSession):
			return "no session: " + err.Error()
		case errors.Is(err, state.ErrUnknownHandle):
			return "unknown handle: " + err.Error()
		}
		return "error: " + err.Error()
	}
	mcp.AddTool(srv, mcp.Tool{Name: "state"}, func(ctx context.Context, c *mcp.Context, in stateArgs) (string, error) {
		var s state.Scope
		switch in.Scope {
		case "caller":
			s = state.Caller(c)
		case "handle":
			s = state.ForHandle(c, in.Handle)
		case "session":
			s = state.Session(c)
		}
		var err error
		switch in.Op {
		case "new":
			var h state.Handle
			if h, err = state.NewHandle(ctx, c); err == nil {
				return string(h), nil
			}
		case "end":
			err = state.EndHandle(ctx, c, in.Handle)
		case "set":
			err = state.Set(ctx, s, in.Key, in.Value)
		case "del":
			err = state.Delete(ctx, s, in.Key)
		case "get":
			v, found, gerr := state.Get[string](ctx, s, in.Key)
			switch {
			case gerr != nil:
				err = gerr
			case !found:
				return "<unset>", nil
			default:
				return v, nil
			}
		}
		if err != nil {
			return report(err), nil
		}
		return "ok", nil
	})
	return srv
}

// stateMode is a way of calling a server: a revision, with or without a
// session.
type stateMode struct {
	name string
	// stateless serves the handler without sessions.
	stateless bool
	// rev20260728 speaks 2026-07-28; otherwise 2025-11-25.
	rev20260728 bool
}

var stateModes = []stateMode{
	{name: "2025-11-25 stateful"},
	{name: "2025-11-25 stateless", stateless: true},
	{name: "2026-07-28", rev20260728: true},
}

// scopedReplica is one replica of scopedStateServer reached in one mode,
// with a 2025 session per user when the mode has sessions.
type scopedReplica struct {
	t        *testing.T
	mode     stateMode
	c        *httpClient
	sessions map[string]*httpClient
	id       atomic.Int64
}

func newScopedReplica(t *testing.T, mode stateMode, opts mcphttp.Options) *scopedReplica {
	t.Helper()
	opts.Stateless = mode.stateless
	c, _ := newHTTP(t, scopedStateServer(), &opts)
	return &scopedReplica{t: t, mode: mode, c: c, sessions: map[string]*httpClient{}}
}

// do calls the state tool as user with args and returns its text.
func (r *scopedReplica) do(user string, args stateArgs) string {
	r.t.Helper()
	var hd []string
	if user != "" {
		hd = append(hd, "X-User", user)
	}
	a, err := json.Marshal(args)
	require.NoError(r.t, err)
	id := r.id.Add(1)
	params := fmt.Sprintf(`"name":"state","arguments":%s`, a)
	c := &httpClient{t: r.t, url: r.c.url, hc: r.c.hc}
	switch {
	case r.mode.rev20260728:
		c.version = string(mcp.Version20260728)
		params += "," + rev20260728Meta("")
		hd = append(hd, "Mcp-Method", "tools/call", "Mcp-Name", "state")
	case r.mode.stateless:
		c.version = string(mcp.Version20251125)
	default:
		if r.sessions[user] == nil {
			r.sessions[user] = r.openSession(hd)
		}
		c = r.sessions[user]
	}
	status, msgs := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`, id, params), hd...)
	require.Equal(r.t, http.StatusOK, status, "%+v", msgs)
	require.NotEmpty(r.t, msgs)
	res := wiretest.ToolResult(r.t, msgs[len(msgs)-1])
	require.False(r.t, res.IsError, "%+v", res)
	return res.Content[0].(mcp.TextContent).Text
}

// openSession initializes a 2025-11-25 session with the headers hd.
func (r *scopedReplica) openSession(hd []string) *httpClient {
	r.t.Helper()
	d := &httpClient{t: r.t, url: r.c.url, hc: r.c.hc}
	resp, b := d.do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1.0.0"}}}`, hd...)
	require.Equal(r.t, http.StatusOK, resp.StatusCode, "%s", b)
	d.sid, d.version = resp.Header.Get("Mcp-Session-Id"), string(mcp.Version20251125)
	status, _ := d.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, hd...)
	require.Equal(r.t, http.StatusAccepted, status)
	return d
}

func set(scope, key, value string) stateArgs {
	return stateArgs{Op: "set", Scope: scope, Key: key, Value: value}
}
func get(scope, key string) stateArgs { return stateArgs{Op: "get", Scope: scope, Key: key} }
func hset(h, key, value string) stateArgs {
	return stateArgs{Op: "set", Scope: "handle", Handle: state.Handle(h), Key: key, Value: value}
}
func hget(h, key string) stateArgs {
	return stateArgs{Op: "get", Scope: "handle", Handle: state.Handle(h), Key: key}
}
func newHandle() stateArgs { return stateArgs{Op: "new"} }

// TestScopedStateEveryMode: at 2025-11-25 with a session, stateless and
// at 2026-07-28, on memory, Redis and a Redis Cluster, across two replicas
// that share the store: a caller's own state follows the caller and no
// one else sees it; a handle's state follows the handle within its
// caller, and another caller (or an anonymous one) is refused it; an
// anonymous caller is refused a caller scope with ErrNoCaller but may use
// a bearer handle (where AnonymousHandles allows: TestAnonymousHandles);
// the session scope works only where there is a session.
func TestScopedStateEveryMode(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stateStores() {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			for _, mode := range stateModes {
				t.Run(mode.name, func(t *testing.T) {
					a := newScopedReplica(t, mode, mcphttp.Options{Sessions: store, AnonymousHandles: 10})
					b := newScopedReplica(t, mode, mcphttp.Options{Sessions: store, AnonymousHandles: 10})
					// Subjects of this mode only: the store is shared by the modes.
					ada, bob := "ada/"+mode.name, "bob/"+mode.name

					// The caller's own state, across replicas.
					assert.Equal(t, "<unset>", a.do(ada, get("caller", "cart")))
					assert.Equal(t, "ok", a.do(ada, set("caller", "cart", "apple")))
					assert.Equal(t, "apple", b.do(ada, get("caller", "cart")), "B reads what A wrote for ada")
					assert.Equal(t, "<unset>", b.do(bob, get("caller", "cart")), "bob does not see ada's state")
					assert.Equal(t, "ok", b.do(bob, set("caller", "cart", "pear")))
					assert.Equal(t, "apple", a.do(ada, get("caller", "cart")), "bob's write is his own")
					assert.Equal(t, "pear", a.do(bob, get("caller", "cart")))
					assert.Equal(t, "ok", b.do(ada, stateArgs{Op: "del", Scope: "caller", Key: "cart"}))
					assert.Equal(t, "<unset>", a.do(ada, get("caller", "cart")))
					assert.Equal(t, "pear", a.do(bob, get("caller", "cart")), "ada's delete is her own")

					// A handle's state, across replicas, bound to its caller.
					h := a.do(ada, newHandle())
					require.True(t, strings.HasPrefix(h, "st_"), h)
					h2 := a.do(ada, newHandle())
					assert.NotEqual(t, h, h2)
					assert.Equal(t, "<unset>", b.do(ada, hget(h, "step")))
					assert.Equal(t, "ok", b.do(ada, hset(h, "step", "2")))
					assert.Equal(t, "2", a.do(ada, hget(h, "step")))
					assert.Equal(t, "<unset>", a.do(ada, hget(h2, "step")), "each handle has its own state")
					assert.Equal(t, "<unset>", a.do(ada, get("caller", "step")), "a handle's state is not the caller's")
					for _, other := range []string{bob, ""} {
						assert.Contains(t, b.do(other, hget(h, "step")), "unknown handle: ", "another caller is refused ada's handle")
						assert.Contains(t, b.do(other, hset(h, "step", "9")), "unknown handle: ")
						assert.Contains(t, b.do(other, stateArgs{Op: "end", Handle: state.Handle(h)}), "unknown handle: ")
					}
					assert.Equal(t, "2", a.do(ada, hget(h, "step")), "their attempts changed nothing")
					assert.Equal(t, "ok", b.do(ada, stateArgs{Op: "end", Handle: state.Handle(h)}))
					assert.Contains(t, a.do(ada, hget(h, "step")), "unknown handle: ", "an ended handle is gone")
					assert.Contains(t, a.do(ada, hget("st_forged", "step")), "is not a state handle this server made")

					// An anonymous caller: no state of its own, a bearer handle.
					got := a.do("", get("caller", "cart"))
					assert.True(t, strings.HasPrefix(got, "no caller: "), got)
					assert.Contains(t, got, "state.NewHandle", "the refusal says what to use instead")
					assert.True(t, strings.HasPrefix(a.do("", set("caller", "cart", "x")), "no caller: "))
					anon := a.do("", newHandle())
					require.True(t, strings.HasPrefix(anon, "st_"), anon)
					assert.Equal(t, "ok", a.do("", hset(anon, "k", "v")))
					assert.Equal(t, "v", b.do("", hget(anon, "k")), "a bearer handle works for any anonymous request")
					assert.Contains(t, b.do(ada, hget(anon, "k")), "unknown handle: ", "an anonymous handle is not an authenticated caller's")

					// Auth data without a subject has neither.
					assert.True(t, strings.HasPrefix(a.do("opaque:x", get("caller", "k")), "no caller: "))
					assert.True(t, strings.HasPrefix(a.do("opaque:x", newHandle()), "no caller: "))

					// The session scope: only with a session.
					if mode.stateless || mode.rev20260728 {
						got := a.do(ada, set("session", "k", "v"))
						assert.True(t, strings.HasPrefix(got, "no session: "), got)
						assert.Contains(t, got, "state.Caller", "the refusal says what to use instead")
						return
					}
					assert.Equal(t, "ok", a.do(ada, set("session", "k", "v")))
					assert.Equal(t, "v", a.do(ada, get("session", "k")))
					assert.Equal(t, "<unset>", a.do(ada, get("caller", "k")), "the session's state is not the caller's")
					assert.Equal(t, "<unset>", b.do(ada, get("session", "k")), "another session of ada's does not see it")
				})
			}
		})
	}
}

// TestAnonymousHandles: by default an anonymous caller gets no handle
// (ErrNoCaller, whose text names the option), since every anonymous
// client would share its allowance; with AnonymousHandles they share that
// many, and filling it refuses only anonymous callers: a signed-in
// caller's own allowance is untouched.
func TestAnonymousHandles(t *testing.T) {
	t.Parallel()
	for _, mode := range stateModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			closed := newScopedReplica(t, mode, mcphttp.Options{})
			got := closed.do("", newHandle())
			assert.True(t, strings.HasPrefix(got, "no caller: "), got)
			assert.Contains(t, got, "mcphttp.Options.AnonymousHandles")
			assert.True(t, strings.HasPrefix(closed.do("ada", newHandle()), "st_"), "a signed-in caller still gets one")

			open := newScopedReplica(t, mode, mcphttp.Options{AnonymousHandles: 2})
			h := open.do("", newHandle())
			require.True(t, strings.HasPrefix(h, "st_"), h)
			require.True(t, strings.HasPrefix(open.do("", newHandle()), "st_"))
			got = open.do("", newHandle())
			assert.True(t, strings.HasPrefix(got, "too many: "), got)
			assert.Contains(t, got, "anonymous callers hold 2 live state handles")
			assert.Contains(t, got, "AnonymousHandles")
			assert.True(t, strings.HasPrefix(open.do("ada", newHandle()), "st_"), "the anonymous allowance is not ada's")
			assert.Equal(t, "ok", open.do("", stateArgs{Op: "end", Handle: state.Handle(h)}))
			assert.True(t, strings.HasPrefix(open.do("", newHandle()), "st_"), "ending a handle frees its place")
		})
	}
}

// TestCallerStateAcrossRevisions: one caller's own state is the same
// whether it speaks 2025-11-25 with a session, without one, or
// 2026-07-28: the same calls, one state.
func TestCallerStateAcrossRevisions(t *testing.T) {
	t.Parallel()
	store := session.NewMemoryStore()
	var rs []*scopedReplica
	for _, mode := range stateModes {
		rs = append(rs, newScopedReplica(t, mode, mcphttp.Options{Sessions: store}))
	}
	h := rs[0].do("ada", newHandle())
	for i, r := range rs {
		assert.Equal(t, "ok", r.do("ada", set("caller", "n", fmt.Sprint(i))), r.mode.name)
		assert.Equal(t, "ok", r.do("ada", hset(h, "n", fmt.Sprint(i))), r.mode.name)
		next := rs[(i+1)%len(rs)]
		assert.Equal(t, fmt.Sprint(i), next.do("ada", get("caller", "n")), "%s reads what %s wrote", next.mode.name, r.mode.name)
		assert.Equal(t, fmt.Sprint(i), next.do("ada", hget(h, "n")), "%s reads the handle %s wrote", next.mode.name, r.mode.name)
	}
}

// TestScopedStateBounds: the caller's and a handle's state are bounded
// like a session's (a value, the whole scope), a caller holds at most
// MaxStateHandles live handles (ending one frees its place), and the
// state expires: a handle StateHandleTTL after its creation, a caller's
// state CallerStateTTL after its last write.
func TestScopedStateBounds(t *testing.T) {
	t.Parallel()
	for _, mode := range stateModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			r := newScopedReplica(t, mode, mcphttp.Options{MaxStateValue: 10, MaxSessionState: 25, MaxStateHandles: 2})
			h := r.do("ada", newHandle())
			for _, tc := range []struct {
				name string
				set  func(key, value string) stateArgs
			}{
				{"caller", func(k, v string) stateArgs { return set("caller", k, v) }},
				{"handle", func(k, v string) stateArgs { return hset(h, k, v) }},
			} {
				assert.Equal(t, "too large: key=k whole=false size=13 limit=10", r.do("ada", tc.set("k", "12345678901")), tc.name)
				assert.Equal(t, "ok", r.do("ada", tc.set("a", "1234567")), tc.name)
				assert.Equal(t, "ok", r.do("ada", tc.set("b", "1234567")), tc.name)
				assert.Equal(t, "too large: key=c whole=true size=30 limit=25", r.do("ada", tc.set("c", "1234567")), tc.name)
			}

			assert.Equal(t, "ok", r.do("bob", set("caller", "c", "1234567")), "bob's state is bounded apart from ada's")

			h2 := r.do("ada", newHandle())
			require.True(t, strings.HasPrefix(h2, "st_"), h2)
			got := r.do("ada", newHandle())
			assert.True(t, strings.HasPrefix(got, "too many: "), got)
			assert.Contains(t, got, "MaxStateHandles")
			assert.True(t, strings.HasPrefix(r.do("bob", newHandle()), "st_"), "bob has his own allowance")
			assert.Equal(t, "ok", r.do("ada", stateArgs{Op: "end", Handle: state.Handle(h2)}))
			assert.True(t, strings.HasPrefix(r.do("ada", newHandle()), "st_"), "ending a handle frees its place")
		})
	}
	t.Run("expiry", func(t *testing.T) {
		t.Parallel()
		r := newScopedReplica(t, stateModes[2], mcphttp.Options{StateHandleTTL: time.Second, CallerStateTTL: time.Second})
		h := r.do("ada", newHandle())
		assert.Equal(t, "ok", r.do("ada", hset(h, "k", "v")))
		assert.Equal(t, "ok", r.do("ada", set("caller", "k", "v")))
		require.Eventually(t, func() bool {
			return strings.Contains(r.do("ada", hget(h, "k")), "expired at")
		}, 10*time.Second, 50*time.Millisecond, "the handle expires")
		require.Eventually(t, func() bool {
			return r.do("ada", get("caller", "k")) == "<unset>"
		}, 10*time.Second, 50*time.Millisecond, "the caller's state expires")
	})
}
