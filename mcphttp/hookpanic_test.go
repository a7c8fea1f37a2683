package mcphttp_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

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
	select {
	case r := <-p.ends:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("OnEnd was not called")
		return ""
	}
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
