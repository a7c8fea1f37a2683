package e2e

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// outageBound is how long any request may take while Redis cannot
// answer. A hung Redis costs a request its 1 s read timeout and one retry
// (redisurl's defaults), after waiting up to 1 s for a pooled connection
// when 40 requests arrive at once: about 3 s.
const outageBound = 5 * time.Second

// cacheLease is the lease of examples/everything's session cache
// (-redis-cache, redisstore.DefaultCacheMaxStale): a copy of a session's
// record is served without Redis for at most this long, so a call on a
// live session may still succeed for that long after Redis stops
// answering (a dead Redis breaks the cache's subscription and ends this
// at once; a hung one does not).
const cacheLease = time.Second

// TestRedisOutage: examples/everything keeps its sessions on a Redis that
// first hangs (SIGSTOP: connections open, no answers, as in a network
// partition) and then dies (SIGKILL) and is started again on the same
// address with the data it kept. While it cannot answer, every request
// that needs it (a call on an existing session, a new session) is
// answered within outageBound with 503, Retry-After and a JSON-RPC error,
// from many clients at once, and the process stays up; once Redis is
// back, the same process serves the session made before the outage and
// new ones, without a restart.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	rs := redistest.StartServer(t)
	srv := startHTTPServer(t, "-redis", "redis://"+rs.Addr+"/0")
	hc := &http.Client{Timeout: 10 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)

	m := newRawMCP(t, srv.url)
	post, open, call, callOK := m.post, m.open, rawCall, m.callOK

	before := open()
	callOK(before, 2)

	// outage sends 40 requests at once (calls on the session made
	// before, and new sessions) while Redis cannot answer, and checks
	// each is refused in time with what a client needs to retry.
	outage := func(kind string) {
		var wg sync.WaitGroup
		answers := make([]answer, 40)
		for i := range answers {
			wg.Go(func() {
				if i%2 == 0 {
					answers[i] = post(before, call(100+i))
				} else {
					answers[i] = post("", rawInit)
				}
			})
		}
		wg.Wait()
		var slowest time.Duration
		for _, a := range answers {
			slowest = max(slowest, a.took)
		}
		t.Logf("Redis %s: %d requests (calls on a live session, new sessions) answered 503, the slowest in %v", kind, len(answers), slowest.Round(time.Millisecond))
		for i, a := range answers {
			what := kind + ": a call on a session made before"
			if i%2 == 1 {
				what = kind + ": a new session"
			}
			assertUnavailable(t, a, what)
			assert.Less(t, a.took, outageBound, "%s took %v", what, a.took)
		}
		select {
		case <-srv.exited:
			t.Fatalf("the server exited while Redis was %s", kind)
		default:
		}
	}

	// A hung Redis (stopped, its connections open: a partition).
	rs.Pause()
	time.Sleep(cacheLease + 100*time.Millisecond)
	outage("hung")
	rs.Resume()
	require.Eventually(t, func() bool {
		return post(before, call(6)).status == http.StatusOK
	}, 10*time.Second, 100*time.Millisecond, "the session, once Redis answers again")

	// A dead Redis (killed), then started again on its data. The cache
	// notices at once; the wait keeps a busy machine's scheduling out of
	// the test.
	rs.Stop()
	time.Sleep(cacheLease + 100*time.Millisecond)
	outage("down")

	rs.Start()
	// The same process serves again: the session Redis kept, and new ones.
	require.Eventually(t, func() bool {
		return post(before, call(3)).status == http.StatusOK
	}, 10*time.Second, 100*time.Millisecond, "the session made before the outage")
	callOK(before, 4)
	callOK(open(), 5)
}
