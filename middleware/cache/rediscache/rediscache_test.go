package rediscache_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/cache"
	"github.com/mcpchain/mcp/middleware/cache/rediscache"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var quiet = slog.New(slog.DiscardHandler)

type user string

func (u user) Subject() string { return string(u) }

// replica is one server of a deployment: its own process state, the
// shared Redis.
type replica struct {
	srv   *mcp.Server
	runs  atomic.Int64
	chain http.Handler
}

func newReplica(t *testing.T, rc redis.UniversalClient, prefix string) *replica {
	t.Helper()
	r := &replica{srv: mcp.NewServer(mcp.Options{Name: "r", Version: "1.0.0", Logger: quiet})}
	mcp.AddTool(r.srv, mcp.Tool{Name: "whoami", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, c *mcp.Context, in struct {
			Q string `json:"q"`
		}) (string, error) {
			who := "anonymous"
			if u, ok := c.Session.(user); ok {
				who = string(u)
			}
			return fmt.Sprintf("%s asked %q, run %d", who, in.Q, r.runs.Add(1)), nil
		})
	h := mcphttp.New(r.srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	r.chain = cache.New(r.srv, cache.Options{TTL: time.Hour, Store: rediscache.New(rc, prefix)})(h)
	return r
}

func (r *replica) call(t *testing.T, auth any, q string) string {
	t.Helper()
	chain := r.chain
	if auth != nil {
		next := chain
		chain = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			next.ServeHTTP(w, req.WithContext(mcp.WithAuth(req.Context(), auth)))
		})
	}
	c, err := client.Connect(t.Context(), client.InProcess(chain, nil), &client.Options{Logger: quiet})
	require.NoError(t, err)
	defer c.Close()
	res, err := c.CallTool(t.Context(), "whoami", map[string]string{"q": q}, nil)
	require.NoError(t, err)
	return res.Text()
}

func keys(t *testing.T, rc *redis.Client, prefix string) []string {
	t.Helper()
	ks, err := rc.Keys(t.Context(), prefix+"*").Result()
	require.NoError(t, err)
	return ks
}

// Two replicas share a subject's answers through Redis, never across
// subjects; an anonymous caller's stay in its session; a change of one
// replica's tools drops every answer, for both.
func TestRedisCacheAcrossReplicas(t *testing.T) {
	t.Parallel()
	rc := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rc.Close() })
	a, b := newReplica(t, rc, ""), newReplica(t, rc, "")

	first := a.call(t, user("ada"), "q")
	assert.Equal(t, `ada asked "q", run 1`, first)
	assert.Equal(t, first, b.call(t, user("ada"), "q"), "the other replica serves it from Redis")
	assert.Equal(t, int64(0), b.runs.Load())
	assert.Equal(t, `bob asked "q", run 1`, b.call(t, user("bob"), "q"), "never another subject's")
	assert.Equal(t, `anonymous asked "q", run 2`, a.call(t, nil, "q"))
	assert.Equal(t, `anonymous asked "q", run 2`, b.call(t, nil, "q"), "each anonymous session its own")
	require.Len(t, keys(t, rc, "mcp:cache:"), 4)
	ttl, err := rc.PTTL(t.Context(), keys(t, rc, "mcp:cache:")[0]).Result()
	require.NoError(t, err)
	assert.InDelta(t, time.Hour.Seconds(), ttl.Seconds(), 60, "the TTL is the key's expiry")

	mcp.AddTool(a.srv, mcp.Tool{Name: "new"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	require.Eventually(t, func() bool { return len(keys(t, rc, "mcp:cache:")) == 0 }, 10*time.Second, 10*time.Millisecond,
		"a's change clears the shared store")
	assert.Equal(t, `ada asked "q", run 3`, b.call(t, user("ada"), "q"))
}

// The store keeps what it is given and gives it back; a key under
// another prefix is another store's.
func TestRedisStore(t *testing.T) {
	t.Parallel()
	rc := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { _ = rc.Close() })
	ctx := t.Context()
	s, other := rediscache.New(rc, "one:"), rediscache.New(rc, "two:")
	_, ok, err := s.Get(ctx, "k")
	require.NoError(t, err)
	assert.False(t, ok)
	res := &mcp.ContentResult{Content: []mcp.Content{mcp.Text("hi"), mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}},
		StructuredContent: map[string]any{"n": 1.0}, Meta: map[string]any{"m": "v"}}
	require.NoError(t, s.Set(ctx, "k", res, time.Minute))
	require.NoError(t, other.Set(ctx, "k", res, time.Minute))
	got, ok, err := s.Get(ctx, "k")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, res, got)
	require.NoError(t, s.Clear(ctx))
	_, ok, _ = s.Get(ctx, "k")
	assert.False(t, ok)
	_, ok, _ = other.Get(ctx, "k")
	assert.True(t, ok, "another prefix is left alone")

	require.NoError(t, rc.Set(ctx, "one:bad", "not json", time.Minute).Err())
	_, _, err = s.Get(ctx, "bad")
	assert.ErrorContains(t, err, "does not decode")
}

// On a Redis Cluster, Clear reaches every master.
func TestRedisStoreClusterClear(t *testing.T) {
	t.Parallel()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: redistest.StartCluster(t)})
	t.Cleanup(func() { _ = cc.Close() })
	ctx := t.Context()
	s := rediscache.New(cc, "")
	res := &mcp.ContentResult{Content: []mcp.Content{mcp.Text("hi")}}
	for i := range 50 {
		require.NoError(t, s.Set(ctx, fmt.Sprint("key-", i), res, time.Minute))
	}
	count := func() int64 {
		var n atomic.Int64 // ForEachMaster runs on every master at once
		require.NoError(t, cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			ks, err := m.Keys(ctx, "mcp:cache:"+"*").Result()
			n.Add(int64(len(ks)))
			return err
		}))
		return n.Load()
	}
	require.Equal(t, int64(50), count())
	require.NoError(t, s.Clear(ctx))
	assert.Equal(t, int64(0), count())
}
