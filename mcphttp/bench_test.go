package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/mcpchain/mcp/stdio"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// The hot paths, run by `make bench` (with -benchmem). Every
// benchmark goes through Handler.ServeHTTP, the chain included; the HTTP
// ones call it directly with an in-memory ResponseWriter (the engine, not
// the network stack), stdio runs stdio.Serve over pipes (the whole
// transport: line reader, the in-process client, the line writer), and
// embedded a client.Client over client.InProcess (the in-process
// transport, which the engine names "embedded").

// memWriter is an http.ResponseWriter that keeps everything in memory and
// can be reset between requests, so the benchmark measures the engine, not
// the recorder.
type memWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

func (w *memWriter) Flush() {}

func (w *memWriter) reset() {
	clear(w.header)
	w.status = 0
	w.body.Reset()
}

// rewindBody is a request body that can be read again.
type rewindBody struct{ bytes.Reader }

func (*rewindBody) Close() error { return nil }

// echoArgs is the argument of the echo tool, for the argument-size rows.
type echoArgs struct {
	S string `json:"s"`
}

// newBenchServer has add (the harness's tool), addSSE (add that streams a
// notification first, so its answer is an SSE stream), echo (returns the
// length of its string argument) and extra tools named t0… for the list
// rows.
func newBenchServer(tb testing.TB, extraTools int) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "bench", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
			return strconv.Itoa(in.A + in.B), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "addSSE", Description: "Add two integers, streaming the sum first"},
		func(ctx context.Context, c *mcp.Context, in addArgs) (string, error) {
			s := strconv.Itoa(in.A + in.B)
			if err := c.StreamContent(ctx, mcp.TextContent{Text: s}); err != nil {
				return "", err
			}
			return s, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "The length of s"},
		func(_ context.Context, _ *mcp.Context, in echoArgs) (string, error) {
			return strconv.Itoa(len(in.S)), nil
		})
	for i := range extraTools {
		mcp.AddTool(srv, mcp.Tool{Name: "t" + strconv.Itoa(i), Description: "Tool number " + strconv.Itoa(i) + " of the list benchmark"},
			func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) { return "", nil })
	}
	return srv
}

const (
	benchVersion = "2025-06-18"
	benchInit    = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`
	benchCall    = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	benchCallSSE = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"addSSE","arguments":{"a":1,"b":2}}}`
	benchList    = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
)

// engine sends requests to a Handler the way an HTTP client would, with
// one reusable request and writer.
type engine struct {
	tb  testing.TB
	h   *mcphttp.Handler
	w   *memWriter
	r   *http.Request
	rb  *rewindBody
	sid string
}

func newEngine(tb testing.TB, srv *mcp.Server, opts *mcphttp.Options) *engine {
	h := mcphttp.New(srv, opts)
	tb.Cleanup(func() { _ = h.Close() })
	e := &engine{tb: tb, h: h, w: &memWriter{header: http.Header{}}, rb: &rewindBody{}}
	r, err := http.NewRequest(http.MethodPost, "/mcp", e.rb)
	if err != nil {
		tb.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	e.r = r
	return e
}

// initialize opens a session (not for a stateless handler).
func (e *engine) initialize() {
	e.r.Header.Del("Mcp-Session-Id")
	e.r.Header.Del("MCP-Protocol-Version")
	e.post(benchInit)
	e.sid = e.w.Header().Get("Mcp-Session-Id")
	if e.w.status != http.StatusOK || e.sid == "" {
		e.tb.Fatalf("initialize: %d %s", e.w.status, e.w.body.String())
	}
	e.r.Header.Set("Mcp-Session-Id", e.sid)
	e.r.Header.Set("MCP-Protocol-Version", benchVersion)
	e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// post sends body; its answer is in e.w.
func (e *engine) post(body string) {
	e.w.reset()
	e.rb.Reset([]byte(body))
	e.r.ContentLength = int64(len(body))
	e.h.ServeHTTP(e.w, e.r)
}

// postOK is post that fails the benchmark unless the answer is 200 and
// contains want.
func (e *engine) postOK(body, want string) {
	e.post(body)
	if e.w.status != http.StatusOK || !bytes.Contains(e.w.body.Bytes(), []byte(want)) {
		e.tb.Fatalf("%d %s", e.w.status, e.w.body.String())
	}
}

// stdioPipe runs stdio.Serve over pipes for a benchmark.
type stdioPipe struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func newStdio(tb testing.TB, srv *mcp.Server) *stdioPipe {
	h := mcphttp.New(srv, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = stdio.Serve(context.Background(), h, inR, outW, nil)
		_ = outW.Close()
	}()
	p := &stdioPipe{in: inW, out: bufio.NewReaderSize(outR, 64<<10)}
	tb.Cleanup(func() {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		<-done
		_ = h.Close()
	})
	p.send(benchInit)
	if line := p.recv(); !strings.Contains(line, `"protocolVersion"`) {
		tb.Fatalf("initialize: %s", line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *stdioPipe) send(line string) { _, _ = io.WriteString(p.in, line+"\n") }

func (p *stdioPipe) recv() string {
	line, err := p.out.ReadString('\n')
	if err != nil {
		panic(err)
	}
	return line
}

// BenchmarkToolsCall is one tools/call of the add tool per operation, on
// each transport.
func BenchmarkToolsCall(b *testing.B) {
	b.Run("http-json", func(b *testing.B) {
		e := newEngine(b, newBenchServer(b, 0), nil)
		e.initialize()
		b.ReportAllocs()
		for b.Loop() {
			e.post(benchCall)
		}
		e.postOK(benchCall, `"text":"3"`)
	})
	b.Run("http-sse", func(b *testing.B) {
		e := newEngine(b, newBenchServer(b, 0), nil)
		e.initialize()
		b.ReportAllocs()
		for b.Loop() {
			e.post(benchCallSSE)
		}
		e.postOK(benchCallSSE, "event: message")
	})
	b.Run("stateless", func(b *testing.B) {
		e := newEngine(b, newBenchServer(b, 0), &mcphttp.Options{Stateless: true})
		b.ReportAllocs()
		for b.Loop() {
			e.post(benchCall)
		}
		e.postOK(benchCall, `"text":"3"`)
	})
	b.Run("stdio", func(b *testing.B) {
		p := newStdio(b, newBenchServer(b, 0))
		var line string
		b.ReportAllocs()
		for b.Loop() {
			p.send(benchCall)
			line = p.recv()
		}
		if !strings.Contains(line, `"text":"3"`) {
			b.Fatalf("unexpected answer %s", line)
		}
	})
	b.Run("stdio-pipelined", func(b *testing.B) {
		p := newStdio(b, newBenchServer(b, 0))
		b.ReportAllocs()
		b.ResetTimer()
		go func() {
			for range b.N {
				p.send(benchCall)
			}
		}()
		for range b.N {
			if line := p.recv(); !strings.Contains(line, `"text":"3"`) {
				panic(line)
			}
		}
	})
	b.Run("embedded", func(b *testing.B) {
		ctx := context.Background()
		h := mcphttp.New(newBenchServer(b, 0), nil)
		defer h.Close()
		e, err := client.Connect(ctx, client.InProcess(h, nil), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		args := addArgs{A: 1, B: 2}
		var res *mcp.ContentResult
		b.ReportAllocs()
		for b.Loop() {
			res, err = e.CallTool(ctx, "add", args, nil)
			if err != nil {
				b.Fatal(err)
			}
		}
		if res.Text() != "3" {
			b.Fatalf("unexpected answer %+v", res)
		}
	})
}

// BenchmarkToolsCallArgs is tools/call over HTTP with one string argument
// of 100 B, 10 KB and 1 MB (the growth table's argument-size row).
func BenchmarkToolsCallArgs(b *testing.B) {
	for _, size := range []int{100, 10_000, 1_000_000} {
		b.Run(byteSize(size), func(b *testing.B) {
			e := newEngine(b, newBenchServer(b, 0), nil)
			e.initialize()
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` +
				strings.Repeat("x", size) + `"}}}`
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				e.post(body)
			}
			e.postOK(body, `"text":"`+strconv.Itoa(size)+`"`)
		})
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1_000_000:
		return strconv.Itoa(n/1_000_000) + "MB"
	case n >= 1000:
		return strconv.Itoa(n/1000) + "KB"
	}
	return strconv.Itoa(n) + "B"
}

// BenchmarkInitialize is initialize and notifications/initialized: a new
// session each operation (ended with DELETE, so they do not pile up).
func BenchmarkInitialize(b *testing.B) { benchSessions(b, false) }

// BenchmarkToolsList is tools/list over HTTP with 10, 1,000 and 10,000
// tools, one page (the growth table's tool-count row).
func BenchmarkToolsList(b *testing.B) {
	for _, n := range []int{10, 1000, 10_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			e := newEngine(b, newBenchServer(b, n-3), &mcphttp.Options{PageSize: n})
			e.initialize()
			e.postOK(benchList, `"name":"t`+strconv.Itoa(n-4)+`"`)
			if strings.Contains(e.w.body.String(), "nextCursor") {
				b.Fatalf("more than one page")
			}
			b.SetBytes(int64(e.w.body.Len()))
			b.ReportAllocs()
			for b.Loop() {
				e.post(benchList)
			}
		})
	}
}

// BenchmarkIdleSessions opens N sessions (initialize and
// notifications/initialized, in-process through the handler) and reports
// the heap each holds once idle, in B/session (the growth table's
// session row). Run it with -benchtime=1x: an operation is all N.
func BenchmarkIdleSessions(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var perSession float64
			for range b.N {
				perSession = idleSessionBytes(b, n)
			}
			b.ReportMetric(perSession, "B/session")
		})
	}
}

// BenchmarkSessionChurn is the harness's churn operation through the
// Handler: initialize, notifications/initialized, one tools/call of add
// and DELETE, on a fresh session each time. What a session costs to set
// up and tear down (its ID, its store record, the engine's bookkeeping)
// shows here; BenchmarkToolsCall holds the call alone.
func BenchmarkSessionChurn(b *testing.B) { benchSessions(b, true) }

// benchSessions opens a session per operation, calls add in it when
// call is set, and ends it with DELETE.
func benchSessions(b *testing.B, call bool) {
	e := newEngine(b, newBenchServer(b, 0), nil)
	del, err := http.NewRequest(http.MethodDelete, "/mcp", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.initialize()
		if call {
			e.postOK(benchCall, `"text":"3"`)
		}
		del.Header = http.Header{"Mcp-Session-Id": {e.sid}, "Mcp-Protocol-Version": {benchVersion}}
		e.w.reset()
		e.h.ServeHTTP(e.w, del)
		if e.w.status != http.StatusNoContent {
			b.Fatalf("DELETE: %d %s", e.w.status, e.w.body.String())
		}
	}
	if n := e.h.SessionCount(); n != 0 {
		b.Fatalf("%d sessions left", n)
	}
}

// roundTrips counts what a Redis client sends: one round trip per command
// or pipeline (a MULTI/EXEC transaction is one pipeline).
type roundTrips struct {
	mu    sync.Mutex
	trips []string
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(cmd.Name())
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.Name()
		}
		h.add(strings.Join(names, "+"))
		return next(ctx, cmds)
	}
}

func (h *roundTrips) add(s string) { h.mu.Lock(); h.trips = append(h.trips, s); h.mu.Unlock() }

func (h *roundTrips) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.trips
	h.trips = nil
	return t
}

// TestRedisRoundTrips records the Redis round trips of each step of a
// session whose record is in Redis (redisstore), the figure the
// Redis-backed path's cost comes from. Without the store's cache a
// stateful tools/call is one (GETEX: read the record and renew its
// expiry), and the churn operation of the benchmarks (initialize,
// notifications/initialized, tools/call, DELETE) is eight. With the cache
// (redisstore.Options.Cache) a call within the lease is none, and the
// churn operation three: the record written by initialize is the cached
// copy, and an update is one compare-and-set script. A change that adds a
// round trip to a step fails here and must say why; one that removes some
// updates the figures (and BENCHMARKS.md).
func TestRedisRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cache *redisstore.CacheOptions
		steps [5][]string
		total int
	}{
		{"no cache", nil, [5][]string{
			{"set"},
			{"getex", "watch", "get", "multi+set+publish+exec"},
			{"getex"},
			{"getex"},
			{"getex", "evalsha"},
		}, 8},
		{"cache", &redisstore.CacheOptions{MaxStale: time.Minute}, [5][]string{
			{"set"},
			{"evalsha"},
			nil,
			nil,
			{"evalsha"},
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			require.NoError(t, c.Ping(context.Background()).Err()) // the connection's handshake is not a step's
			store := redisstore.New(c, &redisstore.Options{Cache: tc.cache})
			t.Cleanup(func() { require.NoError(t, store.Close()) })
			// The scripts are loaded once per Redis, not per step.
			require.NoError(t, c.ScriptFlush(context.Background()).Err())
			h := &roundTrips{}
			c.AddHook(h)
			e := newEngine(t, newBenchServer(t, 0), &mcphttp.Options{Sessions: store})
			// Warm up: the scripts get loaded (EVALSHA's first NOSCRIPT
			// and EVAL are not a step's cost), and the cache serves once
			// its subscription is confirmed, which New does not wait for.
			require.Eventually(t, func() bool {
				trips := countTrips(t, e, h)
				return tc.cache == nil || len(trips[2]) == 0
			}, 5*time.Second, 10*time.Millisecond)
			n := 0
			for i, got := range countTrips(t, e, h) {
				t.Logf("%-26s %d round trips: %v", stepNames[i], len(got), got)
				require.Equal(t, tc.steps[i], got, "the Redis round trips of %s", stepNames[i])
				if i != 3 { // the second call is not part of the operation
					n += len(got)
				}
			}
			require.Equal(t, tc.total, n, "round trips of one churn operation")
		})
	}
}

// stepNames name the steps of countTrips.
var stepNames = [5]string{"initialize", "notifications/initialized", "tools/call", "tools/call again", "DELETE"}

// countTrips runs the steps of one churn operation, and a second call,
// and returns the round trips of each step.
func countTrips(t *testing.T, e *engine, h *roundTrips) (trips [5][]string) {
	t.Helper()
	del, err := http.NewRequest(http.MethodDelete, "/mcp", nil)
	require.NoError(t, err)
	steps := [5]func(){
		func() {
			e.r.Header.Del("Mcp-Session-Id")
			e.r.Header.Del("MCP-Protocol-Version")
			e.post(benchInit)
			require.Equal(t, http.StatusOK, e.w.status, e.w.body.String())
			e.sid = e.w.Header().Get("Mcp-Session-Id")
			e.r.Header.Set("Mcp-Session-Id", e.sid)
			e.r.Header.Set("MCP-Protocol-Version", benchVersion)
		},
		func() {
			e.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			require.Equal(t, http.StatusAccepted, e.w.status, e.w.body.String())
		},
		func() { e.postOK(benchCall, `"text":"3"`) },
		func() { e.postOK(benchCall, `"text":"3"`) },
		func() {
			del.Header.Set("Mcp-Session-Id", e.sid)
			e.w.reset()
			e.h.ServeHTTP(e.w, del)
			require.Less(t, e.w.status, 300, e.w.body.String())
		},
	}
	for i, do := range steps {
		h.take()
		do()
		trips[i] = h.take()
	}
	return trips
}

// BenchmarkRedisSessionMemory is what an idle session costs on Redis: n
// sessions opened through the handler on redisstore.New, then
// MEMORY USAGE of each session key (the record as Redis holds it) and
// the growth of used_memory (the same plus the keyspace's own tables and
// the TTLs), each per session. docs/deploy.md projects them to millions
// of sessions.
func BenchmarkRedisSessionMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(b)})
			b.Cleanup(func() { _ = c.Close() })
			var keyBytes, usedBytes float64
			for range b.N {
				require.NoError(b, c.FlushAll(ctx).Err())
				before := redistest.UsedMemory(b, c)
				srv := mcp.NewServer(mcp.Options{Name: "mem", Version: "1.0.0", Logger: discardLogger()})
				h := mcphttp.New(srv, &mcphttp.Options{MaxSessions: -1, Sessions: redisstore.New(c, nil)})
				ids := openIdleSessions(b, h, n)
				used := redistest.UsedMemory(b, c) - before
				var sum int64
				for _, id := range ids {
					v, err := c.MemoryUsage(ctx, "mcp:sess:{"+id+"}").Result()
					require.NoError(b, err)
					sum += v
				}
				require.NoError(b, h.Close())
				keyBytes, usedBytes = float64(sum)/float64(n), float64(used)/float64(n)
			}
			b.ReportMetric(keyBytes, "B/key")
			b.ReportMetric(usedBytes, "B/session")
		})
	}
}
