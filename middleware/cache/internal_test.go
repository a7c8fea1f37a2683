package cache

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type subject string

func (s subject) Subject() string { return string(s) }

// An answer is served for TTL, then the tool runs again.
func TestCacheTTL(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "ttl", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	c := newCache(srv, Options{TTL: time.Minute}, clk.now)
	var runs atomic.Int64
	h := c.intercept(func(context.Context, *mcp.Call) (any, error) {
		return &mcp.ContentResult{Content: []mcp.Content{mcp.Text("run " + itoa(runs.Add(1)))}}, nil
	})
	call := &mcp.Call{Method: "tools/call", ID: json.RawMessage("1"), Params: json.RawMessage(`{"name":"t"}`), Auth: subject("ada")}
	text := func() string {
		res, err := h(context.Background(), call)
		require.NoError(t, err)
		return res.(*mcp.ContentResult).Text()
	}
	assert.Equal(t, "run 1", text())
	clk.add(59 * time.Second)
	assert.Equal(t, "run 1", text())
	clk.add(time.Second)
	assert.Equal(t, "run 2", text(), "expired at TTL")
	assert.Equal(t, "run 2", text())
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The memory store keeps at most MaxEntries answers and MaxBytes, the
// least recently used going first, and never an answer larger than
// MaxBytes; a caller may modify what Get returns.
func TestMemStoreBounds(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	res := func(s string) *mcp.ContentResult { return &mcp.ContentResult{Content: []mcp.Content{mcp.Text(s)}} }
	ctx := context.Background()
	m := newMemStore(3, 1<<20, clk.now)
	for _, k := range []string{"a", "b", "c"} {
		require.NoError(t, m.Set(ctx, k, res(k), time.Hour))
	}
	_, ok, _ := m.Get(ctx, "a") // a is now the most recently used
	require.True(t, ok)
	require.NoError(t, m.Set(ctx, "d", res("d"), time.Hour))
	_, ok, _ = m.Get(ctx, "b")
	assert.False(t, ok, "b was the least recently used")
	assert.Equal(t, 3, m.len())

	m = newMemStore(100, 200, clk.now)
	require.NoError(t, m.Set(ctx, "big", res(strings.Repeat("x", 300)), time.Hour))
	assert.Equal(t, 0, m.len(), "larger than the store")
	require.NoError(t, m.Set(ctx, "k1", res(strings.Repeat("x", 80)), time.Hour))
	require.NoError(t, m.Set(ctx, "k2", res(strings.Repeat("y", 80)), time.Hour))
	assert.Equal(t, 1, m.len(), "two would pass MaxBytes")
	got, ok, _ := m.Get(ctx, "k2")
	require.True(t, ok)
	got.Content[0] = mcp.Text("changed")
	again, _, _ := m.Get(ctx, "k2")
	assert.Equal(t, strings.Repeat("y", 80), again.Text(), "the kept answer is not the caller's to change")
}

// FuzzCanonical: two spellings of one JSON value have one canonical form,
// which is itself canonical; nothing panics.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2,{"y":null,"x":true}]}`, `{ "a" : "\u00e9" }`, `1.50`, `"x"`, `{"progressToken":1}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, ok := canonical(raw, volatileMeta)
		if !ok || c == nil {
			return
		}
		again, ok := canonical(c, volatileMeta)
		require.True(t, ok)
		require.Equal(t, string(c), string(again), "canonical twice")
		var a, b any
		require.NoError(t, json.Unmarshal(raw, &a))
		require.NoError(t, json.Unmarshal(c, &b))
		if m, ok := a.(map[string]any); ok {
			for _, k := range volatileMeta {
				delete(m, k)
			}
		}
		require.Equal(t, a, b, "the same value")
	})
}

// FuzzKey: whatever the params, the key is computed or refused, never a
// panic; params the engine would not take are never cached.
func FuzzKey(f *testing.F) {
	for _, s := range []string{`{"name":"t","arguments":{"q":1}}`, `{"name":"t","task":{}}`, `{"name":"t","_meta":{"progressToken":1,"mcpchain/version":"1"}}`, `{"Name":"t"}`, `{"name":"nope"}`, `{`} {
		f.Add([]byte(s), "ada", "sess")
	}
	srv := mcp.NewServer(mcp.Options{Name: "fuzz", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.Context, struct {
			Q any `json:"q,omitempty"`
		}) (string, error) {
			return "", nil
		})
	c := newCache(srv, Options{}, time.Now)
	f.Fuzz(func(t *testing.T, params []byte, sub, sid string) {
		var auth any
		if sub != "" {
			auth = subject(sub)
		}
		key, ok := c.key(context.Background(), &mcp.Call{Method: "tools/call", ID: json.RawMessage("1"), Params: params, Auth: auth, SessionID: sid}, 0)
		if !ok {
			return
		}
		require.Len(t, key, 64)
		var p struct {
			Name string `json:"name"`
		}
		require.NoError(t, json.Unmarshal(params, &p), "a key for params encoding/json refuses")
		require.Equal(t, "t", p.Name)
	})
}

// BenchmarkInterceptor is the middleware's own work on one call, without
// the transport: "off" the call through no interceptor; "not-cacheable"
// the params read and the tool looked up; "hit" the key (a canonical form
// of the arguments, a SHA-256) and an answer copied from the memory
// store.
func BenchmarkInterceptor(b *testing.B) {
	srv := mcp.NewServer(mcp.Options{Name: "bench", Version: "1.0.0"})
	fn := func(context.Context, *mcp.Context, struct {
		Q string `json:"q"`
	}) (string, error) {
		return "", nil
	}
	mcp.AddTool(srv, mcp.Tool{Name: "read", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, fn)
	mcp.AddTool(srv, mcp.Tool{Name: "write"}, fn)
	res := &mcp.ContentResult{Content: []mcp.Content{mcp.Text("an answer of some length, as tools give")}}
	next := func(context.Context, *mcp.Call) (any, error) { return res, nil }
	c := newCache(srv, Options{}, time.Now)
	for _, bc := range []struct {
		name, tool string
		on         bool
	}{{"off", "read", false}, {"not-cacheable", "write", true}, {"hit", "read", true}} {
		b.Run(bc.name, func(b *testing.B) {
			h := next
			if bc.on {
				h = c.intercept(next)
			}
			call := &mcp.Call{Method: "tools/call", ID: json.RawMessage("1"), Auth: subject("ada"),
				Params: json.RawMessage(`{"name":"` + bc.tool + `","arguments":{"q":"benchmark"}}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
