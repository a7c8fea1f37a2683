package ratelimit

import (
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/mcpchain/mcp"
)

// fakeClock is a settable clock for the limiter.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// 100,000 distinct callers hold buckets while active; once idle past
// IdleTimeout the sweep drops them all and the heap returns to within a
// bound of where it started.
func TestRateLimitIdleCallersExpire(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	rl := newRateLimiter(Options{
		ToolCalls:   Limit{Rate: 1, Burst: 5},
		Other:       Limit{Rate: 10, Burst: 20},
		Key:         func(_ *http.Request, c *mcp.Call) string { return c.SessionID },
		IdleTimeout: time.Hour, // the test sweeps by hand
	}, clock.now)
	r, _ := http.NewRequest(http.MethodPost, "/", nil)
	before := heapInUse()
	const n = 100_000
	for i := range n {
		require.NoError(t, rl.check(r, &mcp.Call{Method: "tools/call", SessionID: "caller-" + strconv.Itoa(i)}))
	}
	require.Equal(t, n, rl.callers())
	held := heapInUse() - before
	t.Logf("100000 callers hold %d KiB of buckets (%d B each)", held>>10, held/n)

	clock.add(time.Hour + time.Second)
	for i := range rl.shards {
		rl.sweep(&rl.shards[i])
	}
	assert.Equal(t, 0, rl.callers())
	after := heapInUse()
	grown := int64(after) - int64(before)
	t.Logf("after the sweep the heap is %d KiB above the start", grown>>10)
	// Bound: 1 MiB, against the ~20 MiB the buckets held.
	assert.Less(t, grown, int64(1<<20), "idle callers' buckets must be freed")
	assert.Greater(t, held, uint64(5<<20), "the measurement must see the buckets")
}

// A caller active within IdleTimeout keeps its bucket (and its debt).
func TestRateLimitSweepKeepsActive(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	rl := newRateLimiter(Options{ToolCalls: Limit{Rate: rate.Every(2 * time.Hour), Burst: 1}, IdleTimeout: time.Hour,
		Key: func(_ *http.Request, c *mcp.Call) string { return c.SessionID }}, clock.now)
	r, _ := http.NewRequest(http.MethodPost, "/", nil)
	require.NoError(t, rl.check(r, &mcp.Call{Method: "tools/call", SessionID: "a"}))
	require.NoError(t, rl.check(r, &mcp.Call{Method: "tools/call", SessionID: "b"}))
	clock.add(59 * time.Minute)
	require.Error(t, rl.check(r, &mcp.Call{Method: "tools/call", SessionID: "a"}), "a refills one token in two hours")
	clock.add(2 * time.Minute)
	for i := range rl.shards {
		rl.sweep(&rl.shards[i])
	}
	assert.Equal(t, 1, rl.callers(), "a was seen a minute ago and stays; b is dropped")
}
