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
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
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
		var se *mcp.StateSizeError
		switch {
		case errors.As(err, &se):
			return fmt.Sprintf("too large: key=%s session=%v size=%d limit=%d is=%v", se.Key, se.Session, se.Size, se.Limit, errors.Is(err, mcp.ErrStateTooLarge))
		case errors.Is(err, mcp.ErrNoSession):
			return "no session"
		}
		return "error: " + err.Error()
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add_item"}, func(ctx context.Context, c *mcp.Context, in struct {
		Item string `json:"item"`
	}) (string, error) {
		ct, _, err := mcp.GetState[cart](ctx, c, "cart")
		if err != nil {
			return report(err), nil
		}
		ct.Items = append(ct.Items, in.Item)
		if err := mcp.SetState(ctx, c, "cart", ct); err != nil {
			return report(err), nil
		}
		return strings.Join(ct.Items, ","), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "set"}, func(ctx context.Context, c *mcp.Context, in struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}) (string, error) {
		if err := mcp.SetState(ctx, c, in.Key, in.Value); err != nil {
			return report(err), nil
		}
		return "ok", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "get"}, func(ctx context.Context, c *mcp.Context, in struct {
		Key string `json:"key"`
	}) (string, error) {
		v, found, err := mcp.GetState[string](ctx, c, in.Key)
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
		if err := mcp.DeleteState(ctx, c, in.Key); err != nil {
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
	assert.Contains(t, callText(t, a, 9, "set", `{"key":"","value":"v"}`), "error: mcp: a state key must be 1 to 256 bytes")
	assert.Contains(t, callText(t, a, 10, "get", fmt.Sprintf(`{"key":%q}`, strings.Repeat("k", mcp.MaxStateKeyLen+1))), "error: mcp: a state key must be 1 to 256 bytes")

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
		body := modernBody("tools/call", `"name":"set","arguments":{"key":"k","value":"v"}`)
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
