package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
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

	type answer struct {
		status     int
		retryAfter string
		body       string
		sid        string
		took       time.Duration
	}
	post := func(sid, body string) answer {
		req, err := http.NewRequest(http.MethodPost, srv.url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		start := time.Now()
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(b), resp.Header.Get("Mcp-Session-Id"), time.Since(start)}
	}
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"outage","version":"1.0.0"}}}`
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":1}}}`, id, id)
	}
	open := func() string {
		a := post("", initBody)
		require.Equal(t, http.StatusOK, a.status, a.body)
		sid := a.sid
		require.NotEmpty(t, sid)
		a = post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		require.Equal(t, http.StatusAccepted, a.status, a.body)
		return sid
	}
	callOK := func(sid string, id int) {
		a := post(sid, call(id))
		require.Equal(t, http.StatusOK, a.status, a.body)
		require.Contains(t, a.body, fmt.Sprintf(`"text":"%d"`, id+1))
	}

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
					answers[i] = post("", initBody)
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
			assert.Equal(t, http.StatusServiceUnavailable, a.status, "%s: %s", what, a.body)
			assert.NotEmpty(t, a.retryAfter, "%s: 503 without Retry-After", what)
			assert.Less(t, a.took, outageBound, "%s took %v", what, a.took)
			var msg struct {
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if assert.NoError(t, json.Unmarshal([]byte(a.body), &msg), "%s: %s", what, a.body) && assert.NotNil(t, msg.Error, a.body) {
				assert.Equal(t, -32603, msg.Error.Code, "%s: %s", what, a.body)
			}
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
