package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// failoverBound is how long after a master dies every session is served
// again: the cluster's node timeout (1 s here) before the master is
// marked failed, the replica's election, go-redis's slot map refresh, and
// the session cache's lease.
const failoverBound = 15 * time.Second

// TestClusterFailover: examples/everything keeps its sessions on a Redis
// Cluster of three masters, each with a replica. Under load from eight
// clients (calls on sessions made before, and new sessions), one master is
// killed (SIGKILL) and its replica takes over. Every request is answered
// within outageBound, with a result or with 503, Retry-After and a
// JSON-RPC error a client can retry; the process stays up; within
// failoverBound of the kill every session made before (whose records were
// replicated) is served again, on the promoted replica, and new sessions
// are made, without a restart.
func TestClusterFailover(t *testing.T) {
	t.Parallel()
	cl, err := redistest.NewClusterWith(redistest.ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	require.NoError(t, err)
	t.Cleanup(cl.Stop)
	srv := startHTTPServer(t, "-redis", strings.Join(cl.Addrs, ","))
	m := newRawMCP(t, srv.url)

	sessions := make([]string, 24)
	for i := range sessions {
		sessions[i] = m.open()
		m.callOK(sessions[i], i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, cl.WaitReplicated(ctx), "the records reached the replicas")
	masters, err := cl.Masters(ctx)
	require.NoError(t, err)
	require.Len(t, masters, redistest.ClusterSize)
	victim := masters[0]

	// The load: each worker calls on the sessions in turn and makes a new
	// session every fourth request, until stop.
	type result struct {
		answer
		at  time.Time
		new bool
	}
	var (
		mu      sync.Mutex
		results []result
		wg      sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				at := time.Now()
				var r result
				if n%4 == 3 {
					r = result{m.post("", rawInit), at, true}
				} else {
					r = result{m.post(sessions[(w*7+n)%len(sessions)], rawCall(n)), at, false}
				}
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	killed := time.Now()
	cl.Kill(victim)
	require.NoError(t, cl.WaitOK(ctx), "the replica took over")
	tookOver := time.Since(killed)
	// Every session made before is served again, once the copies in the
	// server's session cache are out of their lease: from Redis.
	time.Sleep(time.Until(killed.Add(cacheLease)))
	require.Eventually(t, func() bool {
		for _, sid := range sessions {
			if m.post(sid, rawCall(1)).status != http.StatusOK {
				return false
			}
		}
		return true
	}, failoverBound, 50*time.Millisecond, "every session made before the failover is served again")
	served := time.Since(killed)
	time.Sleep(500 * time.Millisecond) // load on the healed cluster
	close(stop)
	wg.Wait()

	var ok, unavailable int
	var slowest time.Duration
	lastFailure := killed
	for _, r := range results {
		slowest = max(slowest, r.took)
		what := "a call on a session made before"
		if r.new {
			what = "a new session"
		}
		assert.Less(t, r.took, outageBound, "%s took %v", what, r.took)
		if r.status == http.StatusOK {
			ok++
			continue
		}
		unavailable++
		assertUnavailable(t, r.answer, what)
		// A request answered before the kill has no reason to fail; one
		// sent just before it may be served after it.
		assert.False(t, r.at.Add(r.took).Before(killed), "%s failed before the master was killed: %s", what, r.body)
		if r.at.After(lastFailure) {
			lastFailure = r.at
		}
	}
	t.Logf("master %s killed: the replica took over after %v; every session served again after %v; "+
		"%d requests answered, %d with a result, %d with 503 (the last sent %v after the kill), the slowest in %v",
		cl.Addrs[victim], tookOver.Round(time.Millisecond), served.Round(time.Millisecond),
		len(results), ok, unavailable, lastFailure.Sub(killed).Round(time.Millisecond), slowest.Round(time.Millisecond))
	assert.Positive(t, ok)
	select {
	case <-srv.exited:
		t.Fatal("the server exited during the failover")
	default:
	}
	m.callOK(m.open(), 7)
}
