package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fleetConfig is one way docs/deploy.md runs several replicas, with the
// clients that go with it.
type fleetConfig struct {
	name  string
	redis bool     // sessions (and streams, relayed answers) on one Redis
	flags []string // examples/everything's flags besides -redis
	// The revisions of the Go SDK clients on each balancer, and which of
	// them run the elicit tool (a server-to-client request on the call's
	// own stream: it needs the balancer to stream, and the client's answer
	// lands on another replica).
	versions []string
	elicit   func(version string) bool
	ts       string // the TypeScript client: v1 (2025-11-25) or v2 (pinned to 2026-07-28)
	tsWant   string // the revision it must negotiate
	// Every call cut by the SIGKILL fails within this of it.
	killBound time.Duration
}

var fleetConfigs = []fleetConfig{
	{
		name: "sessions", redis: true,
		versions: []string{legacyProtocol, legacyProtocol, legacyProtocol, legacyProtocol},
		elicit:   func(string) bool { return true },
		ts:       "v1", tsWant: legacyProtocol,
		killBound: 3 * time.Second,
	},
	{
		name: "stateless", flags: []string{"-stateless"},
		versions: []string{"2026-07-28", "2026-07-28", legacyProtocol, legacyProtocol},
		// A 2025 client of a stateless server has no elicitation (no
		// session to answer on); 2026-07-28's is an input-required result
		// whose retry another replica unseals with the shared MCP_STATE_KEY.
		elicit: func(v string) bool { return v == "2026-07-28" },
		ts:     "v2", tsWant: "2026-07-28",
		killBound: 3 * time.Second,
	},
	{
		name: "resumable", redis: true, flags: []string{"-resumable"},
		versions: []string{legacyProtocol, legacyProtocol, legacyProtocol, legacyProtocol},
		elicit:   func(string) bool { return true },
		ts:       "v1", tsWant: legacyProtocol,
		// A call cut by the kill is resumed on another replica, which
		// answers -32603 once the dead one's heartbeats have stopped for 5 s.
		killBound: 10 * time.Second,
	},
}

// TestBalancers runs three examples/everything replicas behind nginx and
// HAProxy at once, each with its configuration from deploy/, for each way
// docs/deploy.md runs several replicas: 2025-11-25 sessions on Redis,
// stateless (2026-07-28 clients and 2025-11-25 ones), and resumable streams
// on Redis; the three run in parallel. On each balancer, four Go SDK
// clients and one TypeScript SDK client call tools in a loop (add; slow
// 200 ms; elicit where the configuration has it). Under that load:
//
//   - a rolling restart: each replica in turn is drained in HAProxy
//     (runtime API; nginx has no such thing), gets SIGTERM, drains, exits 0
//     and is started again on its port; once it answers /health it is made
//     ready again, and the next one waits until both balancers send it
//     requests. HAProxy sends a drained replica no request it accepted
//     after the drain (its log's accept times), and no call fails behind
//     it; behind nginx only a call answered 502 while a replica was
//     stopping (its connection reset by the listener's close), and nginx
//     logged no other error than those resets and refused connects;
//   - then one replica gets SIGKILL. No call that started after it (once
//     the process was reaped) fails; the calls in flight during it may fail,
//     each within the configuration's killBound (an elicit call whose
//     answer was lost with the killed replica: at its own deadline).
//
// Before the load, through each balancer: the Host check (a request under
// another name is refused by the replica, 403); with sessions on Redis, an
// elicitation's question streamed to the client while the call waits for
// its answer (the balancer does not hold the stream back), and the answer
// taken by another replica; with resumable streams, a call whose
// connection is dropped after its priming event resumed with Last-Event-ID
// on another replica.
func TestBalancers(t *testing.T) {
	for _, cfg := range fleetConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			testFleet(t, cfg)
		})
	}
}

func testFleet(t *testing.T, cfg fleetConfig) {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	env := []string{"MCP_ALLOWED_HOSTS=" + publicHost, "MCP_STATE_KEY=" + hex.EncodeToString(key),
		// The race runtime sleeps 1 s before a process exits (for the
		// goroutines still running to report): not part of a drain.
		"GORACE=atexit_sleep_ms=0"}
	args := slices.Clone(cfg.flags)
	if cfg.redis {
		args = append(args, "-redis", "redis://"+redistest.Start(t)+"/0")
	}
	replicas := make([]*replica, 3)
	ports := make([]int, len(replicas))
	for i := range replicas {
		replicas[i] = &replica{port: freePort(t), env: env, args: args}
		replicas[i].start(t)
		ports[i] = replicas[i].port
	}
	bals := []*realBalancer{startNginx(t, ports), startHAProxy(t, ports)}

	// What needs the rotation to itself comes before the load.
	for _, b := range bals {
		checkHostThrough(t, b)
		if cfg.redis {
			checkStreamThrough(t, b)
		}
		if slices.Contains(cfg.flags, "-resumable") {
			checkResumeThrough(t, b)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loads := make([]*fleetLoad, len(bals))
	var tsLoads []*tsLoad
	var sessions []*mcp.ClientSession
	for bi, b := range bals {
		l := &fleetLoad{last: map[string]time.Time{}}
		loads[bi] = l
		for j, v := range cfg.versions {
			worker := fmt.Sprintf("go-%d-%s", j, v)
			s, err := fleetClient(ctx, fmt.Sprintf("%s-%s-%d", cfg.name, b.name, j), b, v, l, worker)
			require.NoError(t, err, "%s: client %s", b.name, worker)
			t.Cleanup(func() { _ = s.Close() })
			sessions = append(sessions, s)
			l.register(worker)
			wg.Go(func() { goLoad(ctx, s, l, worker, cfg.elicit(v), stop) })
		}
		tsLoads = append(tsLoads, startTSLoad(t, cfg.ts, b.loopback(), l, "ts-"+cfg.ts, cfg.tsWant))
	}
	stopLoad := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
		for _, p := range tsLoads {
			p.stop(t)
		}
		// A session ends with DELETE through the balancer (a stateless
		// server issues none, and the client sends none).
		for _, s := range sessions {
			assert.NoError(t, s.Close(), "DELETE through the balancer")
		}
	})
	defer stopLoad()

	everyLoad := func(f func(l *fleetLoad) bool) func() bool {
		return func() bool {
			for _, l := range loads {
				if !f(l) {
					return false
				}
			}
			return true
		}
	}
	waitUntil(t, "calls before the restart", 30*time.Second, everyLoad(func(l *fleetLoad) bool {
		return l.count(func(c fleetCall) bool { return c.err == "" }) >= 20 && l.everyWorkerPast(time.Time{})
	}))

	// The rolling restart: each replica in turn leaves the rotation of the
	// balancers that can take it out (HAProxy), gets SIGTERM, drains and
	// exits, is started again on its port, answers /health, is put back,
	// and the next one waits until every balancer sends it requests again
	// (nginx tries it again fail_timeout after it refused a connection,
	// HAProxy once two health checks passed): with two replicas out of
	// nginx's rotation and the third stopping, nginx would have none.
	restartStart := time.Now()
	drains := make([]string, len(replicas))
	rejoins := make([]string, len(replicas))
	stops := make([]window, len(replicas)) // from SIGTERM to the exit
	for i, r := range replicas {
		removed := make([]int64, len(bals)) // the access log's offset when the replica left the rotation
		for bi, b := range bals {
			if b.remove != nil {
				removed[bi] = b.offset(t)
				b.remove(t, i)
			}
		}
		removedAt := time.Now()
		stops[i].from = time.Now()
		drains[i] = r.stop(t).Round(time.Millisecond).String()
		stops[i].to = time.Now()
		r.start(t)
		waitUntil(t, "the restarted replica answers /health", 10*time.Second, r.healthy)
		back := time.Now()
		since := make([]int64, len(bals))
		for bi, b := range bals {
			if b.restore != nil {
				// While out of the rotation (drained), the replica got no
				// request the balancer accepted after that.
				for _, l := range b.lines(t, removed[bi]) {
					if l.replica == i && l.accepted.After(removedAt) {
						t.Errorf("%s sent %s %s, accepted at %s, to replica %d, drained at %s", b.name, l.method, l.uri,
							l.accepted.Format("15:04:05.000"), i, removedAt.Format("15:04:05.000"))
					}
				}
				b.restore(t, i)
			}
			since[bi] = b.offset(t)
		}
		waitUntil(t, "the restarted replica back in each balancer's rotation", 15*time.Second, func() bool {
			for bi, b := range bals {
				if !slices.ContainsFunc(b.lines(t, since[bi]), func(l logLine) bool {
					return l.method == http.MethodPost && l.replica == i && l.status/100 == 2
				}) {
					return false
				}
			}
			return true
		})
		rejoins[i] = time.Since(back).Round(time.Millisecond).String()
	}
	restartEnd := time.Now()

	// The kill, once each load has gone on after the restart.
	waitUntil(t, "calls after the restart", 20*time.Second, everyLoad(func(l *fleetLoad) bool {
		return l.count(func(c fleetCall) bool { return c.start.After(restartEnd) }) >= 10
	}))
	const victim = 1
	killOffsets := make([]int64, len(bals))
	errorLogs := make([]string, len(bals)) // what nginx logged as errors before the kill
	for bi, b := range bals {
		killOffsets[bi] = b.offset(t)
		if b.errorLog != "" {
			e, err := os.ReadFile(b.errorLog)
			require.NoError(t, err)
			errorLogs[bi] = string(e)
		}
	}
	killStart := time.Now()
	replicas[victim].proc.kill(t)
	reaped := time.Now()
	// Every client has finished the call it had in flight at the kill, and
	// made more.
	waitUntil(t, "every client past the kill", 30*time.Second, everyLoad(func(l *fleetLoad) bool {
		return l.everyWorkerPast(reaped) && l.count(func(c fleetCall) bool { return c.start.After(reaped) }) >= 10
	}))
	stopLoad()

	for bi, b := range bals {
		t.Run(b.name, func(t *testing.T) {
			var passedOn int
			var odd []string // what the balancer answered, other than 2xx, after the kill
			for _, l := range b.lines(t, killOffsets[bi]) {
				passedOn += l.tried
				if (l.status/100 != 2 || l.cut) && len(odd) < 10 {
					odd = append(odd, fmt.Sprintf("%s %d (cut %v) after %d tries", l.method, l.status, l.cut, l.tried+1))
				}
			}
			t.Logf("%s after the kill, not 2xx or cut: %v", b.name, odd)
			// Without a way to take a replica out first (nginx), a request
			// whose connection the kernel accepted in the instant the
			// replica's listener closed is reset, and nginx answers 502:
			// the one failure a plain SIGTERM may cause. Until the kill,
			// nginx met no other error than that, and connections refused
			// or reset before it sent the request (while connecting: the
			// same closing listener, met a step earlier), which it passes
			// on to the next replica: a request a replica had read
			// was always answered ("upstream prematurely closed" would say
			// it was not), and some replica was always in its rotation (no
			// "no live upstreams").
			resets := b.remove == nil
			if resets {
				for _, line := range strings.Split(errorLogs[bi], "\n") {
					if strings.Contains(line, "[error]") &&
						!strings.Contains(line, "(111: Connection refused) while connecting to upstream") &&
						!strings.Contains(line, "(104: Connection reset by peer) while connecting to upstream") &&
						!strings.Contains(line, "recv() failed (104: Connection reset by peer) while reading response header from upstream") {
						t.Errorf("%s before the kill: %s", b.name, line)
					}
				}
			}
			s := loads[bi].judge(t, stops, resets, restartStart, restartEnd, killStart, reaped, cfg.killBound)
			t.Logf("| %s | %s | %d Go (%s) + 1 TS (%s) | %d | %d calls, %d failed (reset at a listener's close); `add` p50/p99/max %s (steady p50/p99 %s) | %d in flight, %d failed %v, the last %v after SIGKILL; %d requests passed on to another replica | drains %s; back in every rotation after %s |",
				cfg.name, b.name, len(cfg.versions), strings.Join(slices.Compact(slices.Clone(cfg.versions)), ", "), cfg.tsWant,
				s.calls, s.restartCalls, s.resets, s.restartLatency, s.steadyLatency,
				s.inKill, s.killFailed, s.kinds, s.lastKillErr.Round(time.Millisecond), passedOn,
				strings.Join(drains, "/"), strings.Join(rejoins, "/"))
		})
	}
}

// fleetCall is one tool call of the load.
type fleetCall struct {
	worker     string
	tool       string
	start, end time.Time
	err        string // "" when it succeeded
}

// fleetLoad is the calls made through one balancer, safe for concurrent
// use.
type fleetLoad struct {
	mu    sync.Mutex
	calls []fleetCall
	last  map[string]time.Time   // worker -> start of its last finished call
	lost  map[string][]time.Time // worker -> when an answer of its to a server's request failed
}

// lostAnswer records that worker's answer to a server-to-client request
// (an elicitation's) got no 2xx through the balancer at ts.
func (l *fleetLoad) lostAnswer(worker string, ts time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		l.lost = map[string][]time.Time{}
	}
	l.lost[worker] = append(l.lost[worker], ts)
}

func (l *fleetLoad) register(worker string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last[worker] = time.Time{}
}

func (l *fleetLoad) add(c fleetCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
	l.last[c.worker] = c.start
}

func (l *fleetLoad) count(f func(fleetCall) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.calls {
		if f(c) {
			n++
		}
	}
	return n
}

// everyWorkerPast reports whether every worker has finished a call that
// started after ts: each calls one at a time, so the call it had in flight
// at ts is over.
func (l *fleetLoad) everyWorkerPast(ts time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, last := range l.last {
		if !last.After(ts) {
			return false
		}
	}
	return true
}

// window is a span of time.
type window struct{ from, to time.Time }

// fleetSummary is what judge found.
type fleetSummary struct {
	calls, failed, restartCalls, resets int
	restartLatency, steadyLatency       string
	inKill, killFailed, answersLost     int
	kinds                               map[string]int
	lastKillErr                         time.Duration
}

// judge checks the calls: none may fail but those in flight during the
// kill (started before the process was reaped, ended after SIGKILL), and
// those only within killBound of it; with resets, also a call answered 502
// while a replica was stopping (stops: from its SIGTERM to its exit).
//
// An elicit call whose client's answer to the question failed during the
// call waits for an answer that will not come (the Go SDK does not send it
// again, and nothing tells the client): it ends at its own deadline
// (elicitTimeout). That is allowed, beyond killBound, when the answer
// failed after the SIGKILL (it went to the replica killed), and with
// resets when it failed while a replica was stopping (it met the reset at
// a listener's close, as a call may).
func (l *fleetLoad) judge(t *testing.T, stops []window, resets bool, restartStart, restartEnd, killStart, reaped time.Time, killBound time.Duration) fleetSummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fleetSummary{calls: len(l.calls), kinds: map[string]int{}}
	var errs errorLog
	var steady, restart []time.Duration
	for i, c := range l.calls {
		inKill := c.start.Before(reaped) && c.end.After(killStart)
		inRestart := c.start.Before(restartEnd) && c.end.After(restartStart)
		if inRestart {
			s.restartCalls++
		}
		if c.tool == "add" && c.err == "" {
			switch {
			case c.end.Before(restartStart):
				steady = append(steady, c.end.Sub(c.start))
			case inRestart:
				restart = append(restart, c.end.Sub(c.start))
			}
		}
		if c.err == "" {
			continue
		}
		s.failed++
		duringStop := slices.ContainsFunc(stops, func(w window) bool { return c.start.Before(w.to) && c.end.After(w.from) })
		// An elicit call that ended at its deadline after its client's
		// answer failed (lostIn: at a time in the call for which in holds).
		lostIn := func(in func(ts time.Time) bool) bool {
			return c.tool == "elicit" && strings.Contains(c.err, "deadline exceeded") &&
				slices.ContainsFunc(l.lost[c.worker], func(ts time.Time) bool { return ts.After(c.start) && ts.Before(c.end) && in(ts) })
		}
		inStop := func(ts time.Time) bool {
			return slices.ContainsFunc(stops, func(w window) bool { return !ts.Before(w.from) && !ts.After(w.to) })
		}
		switch {
		case !inKill && resets && duringStop && fleetErrorKind(c.err) == "502":
			s.resets++
		case !inKill && resets && lostIn(inStop):
			// The answer met the reset at a listener's close instead.
			s.resets++
		case !inKill:
			what := "outside the kill"
			if inRestart {
				what = "during the rolling restart"
			}
			if lostIn(func(time.Time) bool { return true }) {
				what += " (an answer of its client failed during it)"
			}
			errs.add(i, fmt.Sprintf("%s %s %s, started at %s, %v after its start", c.worker, c.tool, what,
				c.start.Format("15:04:05.000"), c.end.Sub(c.start).Round(time.Millisecond)), fmt.Errorf("%s", c.err))
		case lostIn(func(ts time.Time) bool { return !ts.Before(killStart) }):
			s.answersLost++
			s.killFailed++
			s.kinds["answer lost, the call's deadline"]++
		case c.end.Sub(killStart) > killBound:
			var lost []string // the worker's failed answers, for the message
			for _, ts := range l.lost[c.worker] {
				lost = append(lost, ts.Sub(killStart).Round(time.Millisecond).String())
			}
			errs.add(i, fmt.Sprintf("%s %s in flight at the kill, failed %v after it (bound %v; the call started %v after it; answers of the client that failed, after the kill: %v)",
				c.worker, c.tool, c.end.Sub(killStart).Round(time.Millisecond), killBound, c.start.Sub(killStart).Round(time.Millisecond), lost), fmt.Errorf("%s", c.err))
		default:
			s.killFailed++
			s.kinds[fleetErrorKind(c.err)]++
			s.lastKillErr = max(s.lastKillErr, c.end.Sub(killStart))
		}
	}
	for _, c := range l.calls {
		if c.start.Before(reaped) && c.end.After(killStart) {
			s.inKill++
		}
	}
	s.restartLatency = percentiles(restart, true)
	s.steadyLatency = percentiles(steady, false)
	errs.requireNone(t)
	assert.GreaterOrEqual(t, s.restartCalls, 10, "calls made during the rolling restart")
	return s
}

// percentiles formats the p50, p99 (and max) of ds.
func percentiles(ds []time.Duration, withMax bool) string {
	if len(ds) == 0 {
		return "-"
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration {
		return ds[min(len(ds)-1, int(p*float64(len(ds))))].Round(time.Millisecond)
	}
	if withMax {
		return fmt.Sprintf("%v/%v/%v", q(0.5), q(0.99), ds[len(ds)-1].Round(time.Millisecond))
	}
	return fmt.Sprintf("%v/%v", q(0.5), q(0.99))
}

// fleetErrorKind names the class of a failed call's error, from either
// SDK: the balancer's 502 (no response yet when the replica died), a cut
// stream, or the follower's answer to a resumed stream.
func fleetErrorKind(msg string) string {
	switch {
	case strings.Contains(msg, "Bad Gateway"), strings.Contains(msg, "502"):
		return "502"
	case strings.Contains(msg, "replica running this request stopped"):
		return "resumed, then -32603"
	case strings.Contains(msg, "deadline exceeded"):
		return "the call's deadline"
	case strings.Contains(msg, "terminated without response"), strings.Contains(msg, "terminated"), strings.Contains(msg, "disconnected"):
		return "stream cut"
	case strings.HasSuffix(msg, ": EOF"), strings.Contains(msg, "fetch failed"):
		// HAProxy closes the client's connection rather than answer 502
		// when the request was not the first on it, so that the client
		// may send it again (neither SDK does, for a POST).
		return "connection closed"
	default:
		return msg
	}
}

// fleetClient connects a Go SDK client to the balancer, by its public
// name, at version; it answers elicitations with yes, and records in l, as
// worker's, each answer that fails.
func fleetClient(ctx context.Context, name string, b *realBalancer, version string, l *fleetLoad, worker string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
		},
	})
	hc := &http.Client{Transport: answerWatch{base: b.hc.Transport, lost: func() { l.lostAnswer(worker, time.Now()) }}}
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: b.endpoint(), HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	if got := s.InitializeResult().ProtocolVersion; got != version {
		_ = s.Close()
		return nil, fmt.Errorf("asked for %s, negotiated %s", version, got)
	}
	return s, nil
}

// answerWatch is a client's transport that calls lost when a POST of a
// JSON-RPC response (the client's answer to a server's request) fails or
// is not accepted. The Go SDK does not send such an answer again.
type answerWatch struct {
	base http.RoundTripper
	lost func()
}

func (a answerWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	answer := false
	if r.Method == http.MethodPost && r.GetBody != nil {
		if body, err := r.GetBody(); err == nil {
			var m struct {
				Method *string         `json:"method"`
				Result json.RawMessage `json:"result"`
			}
			b, _ := io.ReadAll(body)
			answer = json.Unmarshal(b, &m) == nil && m.Method == nil && m.Result != nil
		}
	}
	resp, err := a.base.RoundTrip(r)
	if answer && (err != nil || resp.StatusCode/100 != 2) {
		a.lost()
	}
	return resp, err
}

// elicitTimeout bounds an elicit call of the load (calls of the other
// tools get 15 s): a call whose answer was lost at a kill ends there.
const elicitTimeout = 6 * time.Second

// goLoad calls tools on s one after another until stop: add, every fourth
// call slow (200 ms), and with elicit every eighth call elicit; each call is
// bounded by 15 s, an elicit call by elicitTimeout.
func goLoad(ctx context.Context, s *mcp.ClientSession, l *fleetLoad, worker string, elicit bool, stop <-chan struct{}) {
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		tool, args, want := "add", map[string]any{"a": n, "b": 1}, fmt.Sprint(n+1)
		switch {
		case elicit && n%8 == 5:
			tool, args, want = "elicit", map[string]any{}, `"yes"`
		case n%4 == 3:
			tool, args, want = "slow", map[string]any{"ms": 200}, "slept 200 ms"
		}
		timeout := 15 * time.Second
		if tool == "elicit" {
			timeout = elicitTimeout
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		c := fleetCall{worker: worker, tool: tool, start: time.Now()}
		got, err := callText(cctx, s, tool, args)
		cancel()
		c.end = time.Now()
		if err != nil {
			c.err = err.Error()
		} else if !strings.Contains(got, want) {
			c.err = fmt.Sprintf("got %q, want %q in it", got, want)
		}
		l.add(c)
	}
}

// tsLoad is node/load.mjs running against a balancer.
type tsLoad struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{} // closed once its output is read and it is reaped
	stderr *syncBuffer
}

// startTSLoad runs node/load.mjs with sdk against url, recording its calls
// in l as worker, and waits until it has connected at revision want.
func startTSLoad(t *testing.T, sdk, url string, l *fleetLoad, worker, want string) *tsLoad {
	t.Helper()
	dir, bin := nodePaths(t)
	p := &tsLoad{done: make(chan struct{}), stderr: &syncBuffer{}}
	p.cmd = exec.Command(filepath.Join(bin, "node"), "load.mjs", sdk, url)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	p.stdin, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	l.register(worker)
	connected := make(chan error, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			var m struct {
				Connected       bool    `json:"connected"`
				ProtocolVersion string  `json:"protocolVersion"`
				ConnectError    string  `json:"connectError"`
				Start           int64   `json:"start"`
				End             int64   `json:"end"`
				Tool            string  `json:"tool"`
				Error           *string `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				l.add(fleetCall{worker: worker, tool: "?", start: time.Now(), end: time.Now(), err: fmt.Sprintf("load.mjs printed %q: %v", sc.Text(), err)})
				continue
			}
			if first {
				first = false
				switch {
				case !m.Connected:
					connected <- fmt.Errorf("load.mjs %s did not connect: %s", sdk, m.ConnectError)
				case m.ProtocolVersion != want:
					connected <- fmt.Errorf("load.mjs %s negotiated %q, want %s", sdk, m.ProtocolVersion, want)
				default:
					connected <- nil
				}
				continue
			}
			c := fleetCall{worker: worker, tool: m.Tool, start: time.UnixMilli(m.Start), end: time.UnixMilli(m.End)}
			if m.Error != nil {
				c.err = *m.Error
			}
			l.add(c)
		}
		_ = p.cmd.Wait()
		if first {
			connected <- fmt.Errorf("load.mjs %s exited before connecting", sdk)
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
		if t.Failed() {
			t.Logf("load.mjs %s stderr:\n%s", sdk, p.stderr.String())
		}
	})
	select {
	case err := <-connected:
		require.NoError(t, err, "stderr:\n%s", p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("load.mjs %s: not connected within 30s:\n%s", sdk, p.stderr.String())
	}
	return p
}

// stop ends the load (its stdin closes) and waits for a clean exit.
func (p *tsLoad) stop(t *testing.T) {
	_ = p.stdin.Close()
	select {
	case <-p.done:
		assert.Equal(t, 0, p.cmd.ProcessState.ExitCode(), "load.mjs exit status; stderr:\n%s", p.stderr.String())
	case <-time.After(20 * time.Second):
		t.Errorf("load.mjs still running 20s after its stdin closed; killing it:\n%s", p.stderr.String())
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// waitUntil waits until cond holds, checking every 20 ms; it fails t after
// d.
func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, d)
		}
	}
}

// checkHostThrough: a request under a name the replicas do not list
// reaches them through the balancer with that Host, and they refuse it.
func checkHostThrough(t *testing.T, b *realBalancer) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t, 10*time.Second), http.MethodPost, b.loopback(),
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := b.hc.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s: Host evil.example: %s", b.name, body)
	assert.Contains(t, string(body), `Host \"evil.example\" is not a name of this server`, b.name)
}

// sendThrough sends one MCP request through the balancer, by its public
// name, with the 2025-11-25 headers of session sid (none when ""); the URL
// carries ?step=step so that the balancer's log tells the requests apart.
func sendThrough(ctx context.Context, t *testing.T, b *realBalancer, method, step, sid, lastEventID, body string) *http.Response {
	t.Helper()
	resp, err := b.hc.Do(requestThrough(ctx, t, b, method, step, sid, lastEventID, body))
	require.NoError(t, err, "%s: %s %s", b.name, method, step)
	return resp
}

// requestThrough is sendThrough's request.
func requestThrough(ctx context.Context, t *testing.T, b *realBalancer, method, step, sid, lastEventID, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, b.endpoint()+"?step="+step, strings.NewReader(body))
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", legacyProtocol)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	return req
}

// elicitInit is a 2025-11-25 initialize of a client that can answer
// elicitations.
const elicitInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1.0.0"}}}`

// checkStreamThrough: the balancer passes on an SSE answer event by
// event. Through it, a 2025-11-25 session calls the elicit tool; the
// replica sends its question (elicitation/create) on the call's stream and
// then waits for the answer, so the response cannot end before the client
// has answered: a balancer that held the stream back until its end (nginx
// with proxy_buffering on and X-Accel-Buffering ignored) would deliver the
// question never, and the check fails after 5 s. The answer goes through
// the balancer to whichever replica it picks, and the call's result then
// arrives on the first stream.
func checkStreamThrough(t *testing.T, b *realBalancer) {
	t.Helper()
	ctx := testContext(t, 10*time.Second)
	from := b.offset(t)
	resp := sendThrough(ctx, t, b, http.MethodPost, "init", "", "", elicitInit)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	resp = sendThrough(ctx, t, b, http.MethodPost, "initialized", sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	// The call cannot end before its question is answered: a balancer that
	// waits for the end sends not even the headers (nginx with gzip for
	// text/event-stream and proxy_buffering on).
	callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := b.hc.Do(requestThrough(callCtx, t, b, http.MethodPost, "call", sid, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit","arguments":{}}}`))
	require.NoError(t, err, "%s: no answer to an elicit call within 5s: the balancer holds the stream back", b.name)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"), "%s: the call is answered with a stream", b.name)
	events := make(chan sseMessage)
	go func() {
		defer close(events)
		rd := bufio.NewReader(resp.Body)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
			if !ok {
				continue
			}
			var m sseMessage
			if json.Unmarshal([]byte(data), &m) == nil {
				select {
				case events <- m:
				case <-callCtx.Done():
					return
				}
			}
		}
	}()
	next := func(what string) sseMessage {
		t.Helper()
		select {
		case m, ok := <-events:
			require.True(t, ok, "%s: the stream ended before %s", b.name, what)
			return m
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no %s on the call's stream within 5s: the balancer holds the stream back", b.name, what)
			return sseMessage{}
		}
	}
	q := next("elicitation/create")
	for q.Method != "elicitation/create" { // notifications may come first
		require.Empty(t, q.Result, "%s: the call ended before its question", b.name)
		q = next("elicitation/create")
	}
	require.NotEmpty(t, q.ID)
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"answer":"yes"}}}`, q.ID)
	ans := sendThrough(ctx, t, b, http.MethodPost, "answer", sid, "", answer)
	ans.Body.Close()
	require.Equal(t, http.StatusAccepted, ans.StatusCode, "%s: the answer", b.name)
	for {
		m := next("the call's result")
		if string(m.ID) != "2" {
			continue
		}
		assert.Contains(t, string(m.Result), `yes`, "%s: the call's result: %s", b.name, m.Result)
		break
	}

	var call, answered logLine
	waitUntil(t, b.name+" logs the call and the answer", 5*time.Second, func() bool {
		call, answered = logLine{replica: -1}, logLine{replica: -1}
		for _, l := range b.lines(t, from) {
			switch l.uri {
			case "/mcp?step=call":
				call = l
			case "/mcp?step=answer":
				answered = l
			}
		}
		return call.replica >= 0 && answered.replica >= 0
	})
	t.Logf("%s: the elicitation's question streamed from replica %d, its answer sent to replica %d", b.name, call.replica, answered.replica)
}

// sseMessage is the part of a JSON-RPC message in an SSE event that
// checkStreamThrough reads.
type sseMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
}

// checkResumeThrough: through the balancer, a 2025-11-25 client calls the
// slow tool, drops its connection after the priming event, and resumes with
// GET and Last-Event-ID; the balancer's round robin sends the GET to
// another replica than the call's (the balancer's log shows which), which
// follows the stream in Redis and delivers the call's response. The
// requests carry ?step=… so that the log tells them apart.
func checkResumeThrough(t *testing.T, b *realBalancer) {
	t.Helper()
	ctx := testContext(t, 10*time.Second)
	from := b.offset(t)
	resp := sendThrough(ctx, t, b, http.MethodPost, "init", "", "", rawInit)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	resp = sendThrough(ctx, t, b, http.MethodPost, "initialized", sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	callCtx, drop := context.WithCancel(ctx)
	resp = sendThrough(callCtx, t, b, http.MethodPost, "call", sid, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":700}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	rd := bufio.NewReader(resp.Body)
	var lastID string
	for lastID == "" {
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "%s: the priming event", b.name)
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "id:"); ok {
			lastID = strings.TrimSpace(v)
		}
	}
	drop() // the connection breaks; the call goes on on its replica
	resp.Body.Close()

	resp = sendThrough(ctx, t, b, http.MethodGet, "resume", sid, lastID, "")
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", b.name, body)
	assert.Contains(t, string(body), `"id":2`, "%s: the call's response on the resumed stream: %s", b.name, body)
	assert.Contains(t, string(body), "slept 700 ms", "%s: %s", b.name, body)

	// Which replica ran the call, and which resumed it.
	var call, resume logLine
	waitUntil(t, b.name+" logs the call and the resumption", 5*time.Second, func() bool {
		call, resume = logLine{replica: -1}, logLine{replica: -1}
		for _, l := range b.lines(t, from) {
			switch l.uri {
			case "/mcp?step=call":
				call = l
			case "/mcp?step=resume":
				resume = l
			}
		}
		return call.replica >= 0 && resume.replica >= 0
	})
	assert.NotEqual(t, call.replica, resume.replica, "%s: resumed on another replica", b.name)
	t.Logf("%s: call on replica %d, resumed with Last-Event-ID %s on replica %d", b.name, call.replica, lastID, resume.replica)
}
