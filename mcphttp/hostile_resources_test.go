package mcphttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/mcphttp"
)

// heapWatch samples the heap (live objects and garbage not yet swept)
// while an attack runs, and the goroutine count.
type heapWatch struct {
	base       uint64
	baseG      int
	peak       atomic.Uint64
	peakG      atomic.Int64
	stop, done chan struct{}
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func watchHeap() *heapWatch {
	runtime.GC()
	w := &heapWatch{base: heapObjects(), baseG: runtime.NumGoroutine(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			if v := heapObjects(); v > w.peak.Load() {
				w.peak.Store(v)
			}
			if g := int64(runtime.NumGoroutine()); g > w.peakG.Load() {
				w.peakG.Store(g)
			}
			select {
			case <-w.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return w
}

// end returns the peak heap over the baseline, what stayed after a
// collection, and the peak goroutine count over the baseline.
func (w *heapWatch) end() (peak, retained uint64, goroutines int) {
	close(w.stop)
	<-w.done
	runtime.GC()
	after := heapObjects()
	sub := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return sub(w.peak.Load(), w.base), sub(after, w.base), int(w.peakG.Load()) - w.baseG
}

// parallel runs fn n times at once and returns the answer of each.
func parallel(n int, fn func(i int) (int, string)) (statuses []int, bodies []string) {
	statuses, bodies = make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { statuses[i], bodies[i] = fn(i) })
	}
	wg.Wait()
	return statuses, bodies
}

// TestHostileResources is a table of inputs whose cost could be far
// larger than their size: each row's attack runs on a fresh
// handler, and the row asserts the status of its answers, that an error
// answer is short, and that the heap (and, where stated, the goroutines)
// stayed under the row's bound while it ran and after. The rows the other
// hostile tables cover (bodies, Origin, Host, session IDs, Accept, depth,
// reflected values) are in hostile_test.go and status_test.go.
func TestHostileResources(t *testing.T) {
	const MiB = 1 << 20
	type row struct {
		name string
		opts mcphttp.Options
		// attack runs against ts and returns every answer (status, body).
		attack     func(t *testing.T, ts *httptest.Server) ([]int, []string)
		status     int    // the status of the answer that matters (the last)
		bodyHas    string // in that answer
		bodyMax    int    // bytes; 0: not checked (a result, not an error)
		heapPeak   uint64 // the heap while it ran, over the baseline
		heapAfter  uint64 // what stayed after a collection
		goroutines int    // the peak over the baseline; 0: not checked
	}
	anonPost := func(ts *httptest.Server, body string, header ...string) (int, string) {
		hd := map[string]string{}
		for i := 0; i+1 < len(header); i += 2 {
			hd[header[i]] = header[i+1]
		}
		resp, b := do(t, ts, req{"POST", body, hd})
		return resp.StatusCode, b
	}
	rows := []row{
		{
			// Before: one goroutine per element, 47,101 goroutines and
			// 500 MiB for one POST of 36,000 slow calls.
			name: "30 parallel batches of 100 slow calls on 3 sessions",
			opts: mcphttp.Options{MaxConcurrentRequests: 64, MaxSessionRequests: 16},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				c := &httpClient{t: t, url: ts.URL, hc: ts.Client()}
				sids := make([]string, 3)
				for i := range sids {
					c.sid = ""
					c.initialize("2025-03-26")
					sids[i] = c.sid
				}
				return parallel(30, func(i int) (int, string) {
					cc := &httpClient{t: t, url: ts.URL, hc: ts.Client(), sid: sids[i%3], version: "2025-03-26"}
					resp, b := cc.do(http.MethodPost, napBatch(i*100, 100, 5))
					if n := strings.Count(string(b), `"text":"n=`); n != 100 {
						return -1, fmt.Sprintf("%d results of 100: %.300s", n, b)
					}
					return resp.StatusCode, ""
				})
			},
			status: http.StatusOK, heapPeak: 64 * MiB, heapAfter: 4 * MiB,
			goroutines: 64 + 30*6 + 32,
		},
		{
			// Before: no cap; 110,000 sessions in 35 s, 1.3 GB.
			name: "2,000 initializes, 20 at a time, past MaxSessions 500",
			opts: mcphttp.Options{MaxSessions: 500, MaxSessionsPerClient: -1},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for range 100 {
					s, b := parallel(20, func(int) (int, string) { return anonPost(ts, initBody) })
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusServiceUnavailable, bodyHas: "mcphttp.Options.MaxSessions", bodyMax: 512,
			heapPeak: 32 * MiB, heapAfter: MiB + 500*3<<10,
		},
		{
			name: "500 initializes from one address past MaxSessionsPerClient 100",
			opts: mcphttp.Options{},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for range 25 {
					s, b := parallel(20, func(int) (int, string) { return anonPost(ts, initBody, "X-Test-Addr", "203.0.113.9:4000") })
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusTooManyRequests, bodyHas: "mcphttp.Options.MaxSessionsPerClient", bodyMax: 512,
			heapPeak: 16 * MiB, heapAfter: MiB + 100*3<<10,
		},
		{
			name: "500 initializes of one subject from many addresses past MaxSessionsPerClient 100",
			opts: mcphttp.Options{},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for round := range 25 {
					s, b := parallel(20, func(i int) (int, string) {
						return anonPost(ts, initBody, "Authorization", "Bearer mallory", "X-Test-Addr", fmt.Sprintf("198.51.%d.%d:1", round, i))
					})
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusTooManyRequests, bodyHas: "mcphttp.Options.MaxSessionsPerClient", bodyMax: 512,
			heapPeak: 16 * MiB, heapAfter: MiB + 100*3<<10,
		},
		{
			// Before: never timed out; 200 such connections stayed open
			// past 75 s.
			name: "40 connections dribbling a body a byte per 50 ms",
			opts: mcphttp.Options{BodyReadTimeout: 200 * time.Millisecond},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				addr := strings.TrimPrefix(ts.URL, "http://")
				return parallel(40, func(int) (int, string) {
					answer, after := dribble(t, addr, 3*time.Second)
					if after > 1500*time.Millisecond {
						return -1, fmt.Sprintf("closed after %s", after)
					}
					status := 0
					_, _ = fmt.Sscanf(answer, "HTTP/1.1 %d", &status)
					_, body, _ := strings.Cut(answer, "\r\n\r\n")
					return status, body
				})
			},
			status: http.StatusRequestTimeout, bodyHas: "mcphttp.Options.BodyReadTimeout", bodyMax: 512,
			heapPeak: 8 * MiB, heapAfter: 1 * MiB,
		},
		{
			// Before: 200, and the tool saw the caller's identity.
			name: "credentials on an anonymous session",
			opts: mcphttp.Options{},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				sid := initSession(t, ts, "")
				s, b := anonPost(ts, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{"ms":1}}}`,
					"Mcp-Session-Id", sid, "Authorization", "Bearer mallory")
				return []int{s}, []string{b}
			},
			status: http.StatusForbidden, bodyHas: "belongs to another caller", bodyMax: 512,
			heapPeak: 4 * MiB, heapAfter: 1 * MiB,
		},
		{
			// Before: 7.6 KB each, 30 minutes idle.
			name: "2,000 idle sessions",
			opts: mcphttp.Options{MaxSessionsPerClient: -1},
			attack: func(t *testing.T, ts *httptest.Server) ([]int, []string) {
				var st []int
				var bs []string
				for range 100 {
					s, b := parallel(20, func(int) (int, string) { return anonPost(ts, initBody) })
					st, bs = append(st, s...), append(bs, b...)
				}
				return st, bs
			},
			status: http.StatusOK, bodyHas: `"protocolVersion"`,
			heapPeak: 32 * MiB, heapAfter: MiB + 2000*3<<10,
		},
	}
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			var g gauge
			tt.opts.KeepAlive = -1
			ts, _ := capServerWith(t, napServer(&g), &tt.opts)
			w := watchHeap()
			statuses, bodies := tt.attack(t, ts)
			ts.Client().CloseIdleConnections()
			peak, retained, goroutines := w.end()
			t.Logf("heap peak +%.1f MiB (bound %.0f), after +%.2f MiB (bound %.2f); goroutines peak +%d",
				float64(peak)/MiB, float64(tt.heapPeak)/MiB, float64(retained)/MiB, float64(tt.heapAfter)/MiB, goroutines)
			last := len(statuses) - 1
			for i, s := range statuses {
				if s != http.StatusOK && s != tt.status {
					t.Fatalf("answer %d: status %d: %.300s", i, s, bodies[i])
				}
			}
			require.Equal(t, tt.status, statuses[last], "%.300s", bodies[last])
			assert.Contains(t, bodies[last], tt.bodyHas)
			if tt.bodyMax > 0 {
				assert.LessOrEqual(t, len(bodies[last]), tt.bodyMax, "a short body")
			}
			assert.LessOrEqual(t, peak, tt.heapPeak, "heap while the attack ran")
			assert.LessOrEqual(t, retained, tt.heapAfter, "heap the attack left")
			if tt.goroutines > 0 {
				assert.LessOrEqual(t, goroutines, tt.goroutines, "goroutines while the attack ran")
			}
		})
	}
}
