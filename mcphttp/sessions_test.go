package mcphttp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookLog records what the session hooks were told.
type hookLog struct {
	mu     sync.Mutex
	starts []mcphttp.SessionInfo
	ends   []endEvent
	roots  []rootsEvent
}

type endEvent struct {
	info   mcphttp.SessionInfo
	reason mcphttp.EndReason
}

type rootsEvent struct {
	info  mcphttp.SessionInfo
	roots []mcp.Root
}

func (l *hookLog) hooks() *mcphttp.SessionHooks {
	return &mcphttp.SessionHooks{
		OnStart: func(s mcphttp.SessionInfo) { l.mu.Lock(); l.starts = append(l.starts, s); l.mu.Unlock() },
		OnEnd: func(s mcphttp.SessionInfo, r mcphttp.EndReason) {
			l.mu.Lock()
			l.ends = append(l.ends, endEvent{s, r})
			l.mu.Unlock()
		},
		OnRootsChanged: func(s mcphttp.SessionInfo, roots []mcp.Root) {
			l.mu.Lock()
			l.roots = append(l.roots, rootsEvent{s, roots})
			l.mu.Unlock()
		},
	}
}

func (l *hookLog) snapshot() ([]mcphttp.SessionInfo, []endEvent, []rootsEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]mcphttp.SessionInfo(nil), l.starts...), append([]endEvent(nil), l.ends...), append([]rootsEvent(nil), l.roots...)
}

// waitStart waits for the first OnStart call and returns its session.
func (l *hookLog) waitStart(t *testing.T) mcphttp.SessionInfo {
	t.Helper()
	require.Eventually(t, func() bool { starts, _, _ := l.snapshot(); return len(starts) > 0 }, 5*time.Second, 5*time.Millisecond, "OnStart was not called")
	starts, _, _ := l.snapshot()
	return starts[0]
}

// waitEnd waits for the one OnEnd call and returns it.
func (l *hookLog) waitEnd(t *testing.T) endEvent {
	t.Helper()
	require.Eventually(t, func() bool { _, ends, _ := l.snapshot(); return len(ends) > 0 }, 5*time.Second, 5*time.Millisecond)
	_, ends, _ := l.snapshot()
	require.Len(t, ends, 1, "OnEnd is called once per session")
	return ends[0]
}

func quietServer(o mcp.Options) *mcp.Server {
	o.Name, o.Version, o.Logger = "sessions-test", "1.0.0", discardLogger()
	return mcp.NewServer(o)
}

func TestSessionStartListAndDeleteHooks(t *testing.T) {
	t.Parallel()
	var log hookLog
	c, h := newHTTP(t, quietServer(mcp.Options{}), &mcphttp.Options{Hooks: log.hooks()})
	c.initWith(`{}`, "first-client")
	other := &httpClient{t: t, url: c.url, hc: c.hc}
	other.initWith(`{"roots":{}}`, "second-client")

	starts, ends, _ := log.snapshot()
	require.Len(t, starts, 2)
	assert.Equal(t, c.sid, starts[0].ID)
	assert.Equal(t, "first-client", starts[0].Client.Name)
	assert.Equal(t, "2.0.0", starts[0].Client.Version)
	assert.Equal(t, mcp.Version20251125, starts[0].ProtocolVersion)
	assert.Empty(t, ends)

	live := h.Sessions()
	require.Len(t, live, 2, "both sessions are listed")
	assert.Equal(t, []string{c.sid, other.sid}, []string{live[0].ID, live[1].ID}, "oldest first")
	assert.Equal(t, "second-client", live[1].Client.Name)
	assert.NotNil(t, live[1].Capabilities.Roots)
	assert.False(t, live[0].Created.IsZero())
	assert.False(t, live[0].LastSeen.Before(live[0].Created))

	resp, _ := c.do(http.MethodDelete, "")
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndDeleted, end.reason)
	assert.Equal(t, c.sid, end.info.ID)
	assert.Equal(t, "first-client", end.info.Client.Name)
	live = h.Sessions()
	require.Len(t, live, 1)
	assert.Equal(t, other.sid, live[0].ID)

	// Ending it again (a second DELETE, then Close) tells no one twice.
	resp, _ = c.do(http.MethodDelete, "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.NoError(t, h.Close())
	_, ends, _ = log.snapshot()
	require.Len(t, ends, 2)
	assert.Equal(t, endEvent{ends[1].info, mcphttp.EndServer}, ends[1], "Close ends the rest as the server's doing")
	assert.Equal(t, other.sid, ends[1].info.ID)
	assert.Empty(t, h.Sessions())
}

func TestSessionIdleExpiryHook(t *testing.T) {
	t.Parallel()
	var log hookLog
	c, h := newHTTP(t, quietServer(mcp.Options{}), &mcphttp.Options{Hooks: log.hooks(), SessionIdleTimeout: 40 * time.Millisecond})
	c.initWith(`{}`, "idler")
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndIdle, end.reason)
	assert.Equal(t, c.sid, end.info.ID)
	assert.Empty(t, h.Sessions())
	status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	assert.Equal(t, http.StatusNotFound, status)
	require.Len(t, msgs, 1)
}

// TestBareEnginePingsAndEndsLostClients: mcphttp.New served as is (no
// Start, no NewMux) pings the client of an open GET stream as
// mcphttp.Options.Ping says, keeps a client that answers, and ends the
// session of one that leaves MaxFailures pings unanswered, with EndLost.
func TestBareEnginePingsAndEndsLostClients(t *testing.T) {
	t.Parallel()
	var log hookLog
	srv := quietServer(mcp.Options{})
	c, h := newHTTP(t, srv, &mcphttp.Options{Hooks: log.hooks(), Ping: &middleware.PingOptions{Interval: 20 * time.Millisecond, MaxFailures: 2}})
	c.initWith(`{}`, "pinged")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream := c.getStream(ctx)

	for range 4 { // answered pings keep the session
		m := nextRequest(t, stream)
		require.Equal(t, "ping", m.Method)
		c.answer(m.ID, `{}`)
	}
	_, ends, _ := log.snapshot()
	assert.Empty(t, ends)
	require.Len(t, h.Sessions(), 1)

	// Now the client stops answering: two misses (MaxFailures) end its
	// session.
	end := log.waitEnd(t)
	assert.Equal(t, mcphttp.EndLost, end.reason)
	assert.Equal(t, c.sid, end.info.ID)
	assert.Empty(t, h.Sessions())
	unanswered := stream.all()
	assert.Len(t, unanswered, 2, "MaxFailures unanswered pings end the session")
	for _, ev := range unanswered { // the unanswered pings, then the end
		assert.Equal(t, "ping", ev.msg(t).Method)
	}
	assert.NoError(t, ctx.Err(), "the ended session's stream closes")
}

func TestPingDisabled(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{})
	c, h := newHTTP(t, srv, &mcphttp.Options{Ping: &middleware.PingOptions{Disabled: true, Interval: 10 * time.Millisecond}})
	c.initWith(`{}`, "unpinged")
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	stream := c.getStream(ctx)
	ev, ok := stream.next()
	assert.False(t, ok, "no ping is sent when Options.Ping.Disabled: got %+v", ev)
	assert.Len(t, h.Sessions(), 1)
}

// TestEmbeddedSessionIsNotPinged: an in-process session has no network
// connection, so the engine does not ping it (its client answers no
// requests and would be ended as lost); its Close ends it as deleted.
// The session runs in a synctest bubble, so its ping intervals pass on a
// fake clock and the test waits on none.
func TestEmbeddedSessionIsNotPinged(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var log hookLog
		srv := quietServerWithTools(mcp.Options{})
		e := mcptest.NewSession(t, srv, &mcptest.Options{Handler: &mcphttp.Options{Hooks: log.hooks(), Ping: &middleware.PingOptions{Interval: 5 * time.Millisecond}}}).Client()
		starts, _, _ := log.snapshot()
		require.Len(t, starts, 1)
		assert.Equal(t, "mcptest", starts[0].Client.Name)
		time.Sleep(100 * time.Millisecond) // twenty ping intervals, on the bubble's clock
		res, err := e.CallTool(t.Context(), "add", map[string]int{"a": 2, "b": 3}, nil)
		require.NoError(t, err)
		assert.Equal(t, "5", res.Content[0].(mcp.TextContent).Text)
		_, ends, _ := log.snapshot()
		assert.Empty(t, ends, "the embedded session was not ended by pings")
		require.NoError(t, e.Close())
		end := log.waitEnd(t)
		assert.Equal(t, mcphttp.EndDeleted, end.reason)
	})
}

// quietServerWithTools returns a server with options o and two tools: add,
// and roots (which reports what Context.Roots returned).
func quietServerWithTools(o mcp.Options) *mcp.Server {
	srv := quietServer(o)
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in addArgs) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "roots"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		roots, err := c.Roots(ctx)
		if err != nil {
			return fmt.Sprintf("capability=%t: %v", errors.Is(err, mcp.ErrCapability), err), nil
		}
		uris := make([]string, len(roots))
		for i, r := range roots {
			uris[i] = r.URI
		}
		return strings.Join(uris, ","), nil
	})
	return srv
}

// TestStdioSessionHooks: under Start's stdio transport the session starts
// with initialize, is listed, and ends as deleted at the end of input.
func TestStdioSessionHooks(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var log hookLog
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		srv := quietServerWithTools(mcp.Options{})
		inst, err := mcphttp.Start(t.Context(), srv, &mcphttp.StartOptions{Stdin: inR, Stdout: outW,
			Handler: &mcphttp.Options{Hooks: log.hooks(), Ping: &middleware.PingOptions{Interval: 5 * time.Millisecond}}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = inst.Close() })
		lines := bufio.NewScanner(outR)
		go func() {
			_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-client","version":"3.0.0"}}}`+"\n")
		}()
		require.True(t, lines.Scan())
		assert.Contains(t, lines.Text(), `"id":1`)
		go func() {
			_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		}()
		live := inst.Handler().Sessions()
		require.Len(t, live, 1)
		assert.Equal(t, "stdio-client", live[0].Client.Name)
		time.Sleep(60 * time.Millisecond) // twelve ping intervals on the bubble's clock: stdio is not pinged
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		require.NoError(t, inW.Close())
		require.NoError(t, inst.Wait())
		starts, _, _ := log.snapshot()
		require.Len(t, starts, 1)
		end := log.waitEnd(t)
		assert.Equal(t, mcphttp.EndDeleted, end.reason)
		assert.Equal(t, live[0].ID, end.info.ID)
		assert.Empty(t, inst.Handler().Sessions())
		require.NoError(t, outW.Close())
	})
}

func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// panickingHooks are session hooks that record their call, then panic;
// their handler logs to logs.
type panickingHooks struct {
	logs  wiretest.SyncBuffer
	ends  chan mcphttp.EndReason
	roots chan []mcp.Root
}

func newPanickingHooks() *panickingHooks {
	return &panickingHooks{ends: make(chan mcphttp.EndReason, 8), roots: make(chan []mcp.Root, 8)}
}

func (p *panickingHooks) options(o mcphttp.Options) *mcphttp.Options {
	o.Logger = slog.New(slog.NewTextHandler(&p.logs, &slog.HandlerOptions{Level: slog.LevelError}))
	o.Hooks = &mcphttp.SessionHooks{
		OnEnd: func(_ mcphttp.SessionInfo, r mcphttp.EndReason) {
			p.ends <- r
			panic("a bug in OnEnd")
		},
		OnRootsChanged: func(_ mcphttp.SessionInfo, roots []mcp.Root) {
			p.roots <- roots
			panic("a bug in OnRootsChanged")
		},
	}
	return &o
}

// ended waits for the OnEnd call and gives its reason.
func (p *panickingHooks) ended(t *testing.T) mcphttp.EndReason {
	t.Helper()
	return receive(t, p.ends, 10*time.Second, "OnEnd was not called")
}

// logged waits for the error line of the hook's recovered panic and
// checks that it carries the stack.
func (p *panickingHooks) logged(t *testing.T, hook string) {
	t.Helper()
	require.Eventually(t, func() bool {
		logs := p.logs.String()
		return strings.Contains(logs, "mcp: the session hook "+hook+" panicked") &&
			strings.Contains(logs, "a bug in "+hook) && strings.Contains(logs, "stack=") && strings.Contains(logs, "goroutine ")
	}, 10*time.Second, 5*time.Millisecond, "the panic is logged with its stack: %s", p.logs.String())
}

// stillServes checks the handler serves a new session after the panic.
func stillServes(t *testing.T, c *httpClient) {
	t.Helper()
	fresh := &httpClient{t: t, url: c.url, hc: c.hc}
	fresh.initWith(`{}`, "after-the-panic")
	status, msgs := fresh.post(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, msgs, 1)
	assert.Nil(t, msgs[0].Error)
}

// TestHookPanicOnReaper: OnEnd panicking on the reaper's goroutine (idle
// expiry) is recovered and logged; the session is gone and the reaper
// goes on serving the handler.
func TestHookPanicOnReaper(t *testing.T) {
	t.Parallel()
	p := newPanickingHooks()
	c, h := newHTTP(t, quietServerWithTools(mcp.Options{}), p.options(mcphttp.Options{SessionIdleTimeout: 40 * time.Millisecond}))
	c.initWith(`{}`, "idler")
	assert.Equal(t, mcphttp.EndIdle, p.ended(t))
	p.logged(t, "OnEnd")
	assert.Empty(t, h.Sessions())
	stillServes(t, c)
	assert.Equal(t, mcphttp.EndIdle, p.ended(t), "the reaper still runs: the next idle session expires too")
}

// TestHookPanicOnPingEnd: OnEnd panicking on a ping loop's goroutine (a
// client lost to pings) is recovered and logged; the session ends and
// its stream closes.
func TestHookPanicOnPingEnd(t *testing.T) {
	t.Parallel()
	p := newPanickingHooks()
	srv := quietServerWithTools(mcp.Options{})
	c, h := newHTTP(t, srv, p.options(mcphttp.Options{Ping: &middleware.PingOptions{Interval: 10 * time.Millisecond, MaxFailures: 1}}))
	c.initWith(`{}`, "silent")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream := c.getStream(ctx)
	assert.Equal(t, mcphttp.EndLost, p.ended(t))
	p.logged(t, "OnEnd")
	assert.Empty(t, h.Sessions())
	for _, ev := range stream.all() { // returns once the stream closed
		assert.Equal(t, "ping", ev.msg(t).Method)
	}
	require.NoError(t, ctx.Err(), "the ended session's stream closed")
	stillServes(t, c)
}

// TestHookPanicOnRootsFetch: OnRootsChanged panicking on the goroutine
// that fetched the roots is recovered and logged; the session keeps its
// new roots and goes on.
func TestHookPanicOnRootsFetch(t *testing.T) {
	t.Parallel()
	p := newPanickingHooks()
	c, h := newHTTP(t, quietServerWithTools(mcp.Options{}), p.options(mcphttp.Options{}))
	c.initWith(`{"roots":{"listChanged":true}}`, "rooted")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream := c.getStream(ctx)
	m := nextRequest(t, stream) // the fetch after initialization: no change
	require.Equal(t, "roots/list", m.Method)
	c.answer(m.ID, `{"roots":[{"uri":"file:///a"}]}`)
	status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	require.Equal(t, http.StatusAccepted, status)
	m = nextRequest(t, stream)
	require.Equal(t, "roots/list", m.Method)
	c.answer(m.ID, `{"roots":[{"uri":"file:///b"}]}`)
	select {
	case roots := <-p.roots:
		assert.Equal(t, []mcp.Root{{URI: "file:///b"}}, roots)
	case <-time.After(10 * time.Second):
		t.Fatal("OnRootsChanged was not called")
	}
	p.logged(t, "OnRootsChanged")
	live := h.Sessions()
	require.Len(t, live, 1)
	assert.Equal(t, []mcp.Root{{URI: "file:///b"}}, live[0].Roots)
	msg, _ := c.call(2, "tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`)
	assert.Nil(t, msg.Error, "the session goes on")
}

// TestHookPanicAtStdioEnd: OnEnd panicking on Start's stdio goroutine
// (the end of input ends the session) is recovered and logged; Wait
// reports a clean stop.
func TestHookPanicAtStdioEnd(t *testing.T) {
	t.Parallel()
	p := newPanickingHooks()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := quietServerWithTools(mcp.Options{})
	inst, err := mcphttp.Start(t.Context(), srv, &mcphttp.StartOptions{Stdin: inR, Stdout: outW,
		Handler: p.options(mcphttp.Options{})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inst.Close(); _ = outW.Close() })
	lines := bufio.NewScanner(outR)
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-client","version":"3.0.0"}}}`+"\n")
	}()
	require.True(t, lines.Scan())
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	require.NoError(t, inW.Close())
	require.NoError(t, inst.Wait())
	assert.Equal(t, mcphttp.EndDeleted, p.ended(t))
	p.logged(t, "OnEnd")
	assert.Empty(t, inst.Handler().Sessions())
}

// TestHookPanicAtLegacyStreamEnd: OnEnd panicking when a legacy HTTP+SSE
// stream's close ends its session (on the stream's goroutine) is
// recovered and logged.
func TestHookPanicAtLegacyStreamEnd(t *testing.T) {
	t.Parallel()
	p := newPanickingHooks()
	ts, h := newLegacyServer(t, quietServerWithTools(mcp.Options{}), p.options(mcphttp.Options{}), "")
	lc := openLegacy(t, ts.Client(), ts.URL+"/sse")
	lc.initialize()
	require.Eventually(t, func() bool { return len(h.Sessions()) == 1 }, 10*time.Second, 5*time.Millisecond)
	lc.close()
	assert.Equal(t, mcphttp.EndDeleted, p.ended(t))
	p.logged(t, "OnEnd")
	assert.Empty(t, h.Sessions())
	c := &httpClient{t: t, url: ts.URL + "/mcp", hc: ts.Client()}
	stillServes(t, c)
}

// TestWriteBackFailureFailsTheRequest: logging/setLevel whose change
// cannot be saved is answered with an internal error naming it.
func TestWriteBackFailureFailsTheRequest(t *testing.T) {
	t.Parallel()
	store := &updateFails{MemoryStore: session.NewMemoryStore()}
	c, _ := newHTTP(t, quietServerWithTools(mcp.Options{}), &mcphttp.Options{Sessions: store})
	c.initialize("2025-11-25")
	store.broken.Store(true)
	res, _ := c.call(1, "logging/setLevel", `{"level":"error"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, int64(mcp.CodeInternalError), res.Error.Code)
	assert.Contains(t, res.Error.Message, "failed to save the log level")
}

// updateFails fails Update alone while broken.
type updateFails struct {
	*session.MemoryStore
	broken atomic.Bool
}

func (f *updateFails) Update(ctx context.Context, id string, ttl time.Duration, fn func(*session.Record) error) error {
	if f.broken.Load() {
		return errStoreDown
	}
	return f.MemoryStore.Update(ctx, id, ttl, fn)
}
