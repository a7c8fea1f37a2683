package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// methodCounter counts the requests that reach a handler, by method.
type methodCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (mc *methodCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil { // the GET stream
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" {
			mc.mu.Lock()
			mc.counts[m.Method]++
			mc.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func (mc *methodCounter) get(method string) int {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return mc.counts[method]
}

// cacheServer is a server whose tools/list and a resource's read may be
// reused for a minute (ttl), served in process behind a counter.
func cacheServer(t *testing.T, ttl time.Duration) (*mcp.Server, *methodCounter, Transport) {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "cached", Version: "1.0.0",
		Cache: &mcp.CacheOptions{Tools: mcp.CacheHint{TTL: ttl, Scope: mcp.CachePublic}}})
	mcp.AddTool(srv, mcp.Tool{Name: "a"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "a", nil })
	srv.AddResource(mcp.Resource{URI: "note://1", Name: "one", Cache: mcp.CacheHint{TTL: ttl},
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "note://1", Text: "one"}}, nil
		}})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	mc := &methodCounter{counts: map[string]int{}}
	return srv, mc, InProcess(mc.wrap(h), nil)
}

// TestCacheReusesResults: at 2026-07-28 a list and a read whose answer
// carries a positive ttlMs are answered again without a round trip until
// the TTL runs out; DisableCache and revision 2025-11-25 (no hints)
// send every request.
func TestCacheReusesResults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		version    mcp.Version
		disable    bool
		ttl        time.Duration
		wantRounds int
	}{
		{"2026-07-28 with a TTL", mcp.Version20260728, false, time.Minute, 1},
		{"2026-07-28 TTL zero", mcp.Version20260728, false, 0, 3},
		{"2026-07-28 cache off", mcp.Version20260728, true, time.Minute, 3},
		{"2025-11-25", mcp.Version20251125, false, time.Minute, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			_, mc, tr := cacheServer(t, tt.ttl)
			c, err := Connect(ctx, tr, &Options{ProtocolVersion: tt.version, DisableCache: tt.disable})
			require.NoError(t, err)
			defer c.Close()
			for range 3 {
				tools, err := c.ListTools(ctx)
				require.NoError(t, err)
				require.Len(t, tools, 1)
				res, err := c.ReadResource(ctx, "note://1")
				require.NoError(t, err)
				require.Len(t, res.Contents, 1)
				assert.Equal(t, "one", res.Contents[0].Text)
			}
			assert.Equal(t, tt.wantRounds, mc.get("tools/list"), "tools/list round trips")
			assert.Equal(t, tt.wantRounds, mc.get("resources/read"), "resources/read round trips")
		})
	}
}

// TestCacheExpires: a kept result is used until its ttlMs runs out, then
// asked for again.
func TestCacheExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, mc, tr := cacheServer(t, time.Minute)
	c, err := Connect(ctx, tr, &Options{ProtocolVersion: mcp.Version20260728})
	require.NoError(t, err)
	defer c.Close()
	now := time.Now()
	var mu sync.Mutex
	c.cache.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	_, err = c.ListTools(ctx)
	require.NoError(t, err)
	advance(59 * time.Second)
	_, err = c.ListTools(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, mc.get("tools/list"), "fresh: reused")
	advance(time.Second)
	_, err = c.ListTools(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, mc.get("tools/list"), "expired at the TTL: asked again")
}

// TestCacheDroppedByNotifications: a list_changed notification drops the
// kept pages of its lists, resources/updated the read of its URI, and
// an answer to a request sent before a notification is not kept (the
// server may have answered from the list before the change).
func TestCacheDroppedByNotifications(t *testing.T) {
	t.Parallel()
	page := json.RawMessage(`{"tools":[],"ttlMs":60000}`)
	for _, tt := range []struct {
		method, params string
		dropped        []cacheKey
		kept           []cacheKey
	}{
		{"notifications/tools/list_changed", `{}`, []cacheKey{{"tools/list", ""}, {"tools/list", "c2"}},
			[]cacheKey{{"prompts/list", ""}, {"resources/read", "note://1"}}},
		{"notifications/prompts/list_changed", `{}`, []cacheKey{{"prompts/list", ""}}, []cacheKey{{"tools/list", ""}}},
		{"notifications/resources/list_changed", `{}`, []cacheKey{{"resources/list", ""}, {"resources/templates/list", ""}},
			[]cacheKey{{"resources/read", "note://1"}, {"tools/list", ""}}},
		{"notifications/resources/updated", `{"uri":"note://1"}`, []cacheKey{{"resources/read", "note://1"}},
			[]cacheKey{{"resources/read", "note://2"}, {"resources/list", ""}}},
		{"notifications/message", `{"level":"info","data":"x"}`, nil,
			[]cacheKey{{"tools/list", ""}, {"resources/read", "note://1"}}},
	} {
		t.Run(tt.method, func(t *testing.T) {
			rc := newResultCache()
			for _, k := range append(append([]cacheKey{}, tt.dropped...), tt.kept...) {
				rc.put(k, page, rc.generation())
			}
			gen := rc.generation()
			rc.changed(tt.method, json.RawMessage(tt.params))
			for _, k := range tt.dropped {
				_, ok := rc.get(k)
				assert.False(t, ok, "%v dropped", k)
			}
			for _, k := range tt.kept {
				_, ok := rc.get(k)
				assert.True(t, ok, "%v kept", k)
			}
			if tt.dropped != nil {
				k := cacheKey{"tools/list", "late"}
				rc.put(k, page, gen)
				_, ok := rc.get(k)
				assert.False(t, ok, "an answer to a request sent before the change is not kept")
			}
		})
	}
}

// TestCacheBounded: results without a positive ttlMs are not kept, and
// the cache holds at most maxCacheEntries.
func TestCacheBounded(t *testing.T) {
	t.Parallel()
	rc := newResultCache()
	for _, raw := range []string{`{}`, `{"ttlMs":0}`, `{"ttlMs":-5}`, `{"ttlMs":"60000"}`, `not json`} {
		rc.put(cacheKey{"tools/list", raw}, json.RawMessage(raw), 0)
	}
	assert.Empty(t, rc.entries)
	for i := range maxCacheEntries + 10 {
		rc.put(cacheKey{"resources/read", string(rune('a'+i%26)) + string(rune(i))}, json.RawMessage(`{"ttlMs":1000}`), 0)
	}
	assert.Len(t, rc.entries, maxCacheEntries)
}

// TestCacheAgentLoop: the round trips of an agent's loop at 2026-07-28,
// ten turns each listing the tools, calling one and reading a resource,
// against a server whose list and resource may be reused for a minute:
// 30 without the cache, 12 with it (the calls, one list, one read).
func TestCacheAgentLoop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		disable bool
		want    int
	}{{true, 30}, {false, 12}} {
		ctx := context.Background()
		_, mc, tr := cacheServer(t, time.Minute)
		c, err := Connect(ctx, tr, &Options{ProtocolVersion: mcp.Version20260728, DisableCache: tt.disable})
		require.NoError(t, err)
		for range 10 {
			_, err := c.ListTools(ctx)
			require.NoError(t, err)
			_, err = c.CallTool(ctx, "a", nil, nil)
			require.NoError(t, err)
			_, err = c.ReadResource(ctx, "note://1")
			require.NoError(t, err)
		}
		require.NoError(t, c.Close())
		got := mc.get("tools/list") + mc.get("tools/call") + mc.get("resources/read")
		assert.Equal(t, tt.want, got, "round trips with DisableCache=%v", tt.disable)
	}
}

// BenchmarkListTools: a tools/list at 2026-07-28 in process, answered by
// the server each time (uncached) or from the cache (cached).
func BenchmarkListTools(b *testing.B) {
	for _, bb := range []struct {
		name    string
		disable bool
	}{{"uncached", true}, {"cached", false}} {
		b.Run(bb.name, func(b *testing.B) {
			ctx := context.Background()
			srv := mcp.NewServer(mcp.Options{Name: "cached", Version: "1.0.0",
				Cache: &mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Hour, Scope: mcp.CachePublic}}})
			for _, name := range []string{"a", "b", "c", "d"} {
				mcp.AddTool(srv, mcp.Tool{Name: name, Description: "a tool"}, func(context.Context, *mcp.Context, struct{ X int }) (string, error) { return "", nil })
			}
			h := mcphttp.New(srv, nil)
			defer h.Close()
			c, err := Connect(ctx, InProcess(h, nil), &Options{ProtocolVersion: mcp.Version20260728, DisableCache: bb.disable})
			require.NoError(b, err)
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.ListTools(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
