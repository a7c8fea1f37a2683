package proxy_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/proxy"
)

// count returns how many times each dial was recorded.
func count(dials []string) map[string]int {
	out := map[string]int{}
	for _, d := range dials {
		out[d]++
	}
	return out
}

// TestGatewayCallerPoolEvictsLeastRecentlyUsed: callers with a subject
// keep one upstream connection each, at most Options.MaxCallers; a new
// caller beyond it closes the least recently used one, which its caller
// opens again (with its own credential) at its next request.
func TestGatewayCallerPoolEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{MaxCallers: 2})
	alice, bob, carol := downstreamAs(t, h, "alice"), downstreamAs(t, h, "bob"), downstreamAs(t, h, "carol")

	assert.Equal(t, "alice", who(t, alice))
	assert.Equal(t, "bob", who(t, bob))
	assert.Equal(t, "alice", who(t, alice), "a second request reuses the caller's connection")
	assert.Equal(t, []string{"alice", "anonymous", "bob"}, w.open())

	assert.Equal(t, "carol", who(t, carol))
	require.Eventually(t, func() bool { return slices.Equal([]string{"alice", "anonymous", "carol"}, w.open()) },
		5*time.Second, 10*time.Millisecond, "bob's, the least recently used, is closed: %v", w.open())

	assert.Equal(t, "bob", who(t, bob))
	require.Eventually(t, func() bool { return slices.Equal([]string{"anonymous", "bob", "carol"}, w.open()) },
		5*time.Second, 10*time.Millisecond, "alice's is closed now: %v", w.open())
	assert.Equal(t, map[string]int{"gateway": 1, "alice": 1, "bob": 2, "carol": 1}, count(w.dialed()))
}

// TestGatewayCallerPoolEvictsAConnectionInUseAfterItsCall: a connection
// evicted while a call runs on it serves that call to its end, then
// closes.
func TestGatewayCallerPoolEvictsAConnectionInUseAfterItsCall(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{MaxCallers: 1})
	alice, bob := downstreamAs(t, h, "alice"), downstreamAs(t, h, "bob")

	held := make(chan string, 1)
	go func() {
		res, err := alice.CallTool(context.Background(), "hold", map[string]string{"gate": "a"}, nil)
		if err != nil {
			held <- err.Error()
			return
		}
		held <- res.Text()
	}()
	w.waitStarted(t, "a")
	assert.Equal(t, "bob", who(t, bob), "bob's connection evicts alice's")
	assert.Equal(t, []string{"alice", "anonymous", "bob"}, w.open(), "alice's call still runs on hers")
	w.openGate("a")
	assert.Equal(t, "alice", <-held)
	require.Eventually(t, func() bool { return slices.Equal([]string{"anonymous", "bob"}, w.open()) },
		5*time.Second, 10*time.Millisecond, "alice's closes once her call is done: %v", w.open())
}

// TestGatewayCallerConnectionExpiresWhenIdle: a caller's pooled
// connection that no request used for Options.CallerIdleTimeout is
// closed; the caller's next request opens another.
func TestGatewayCallerConnectionExpiresWhenIdle(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{CallerIdleTimeout: 50 * time.Millisecond})
	alice := downstreamAs(t, h, "alice")
	assert.Equal(t, "alice", who(t, alice))
	require.Eventually(t, func() bool { return slices.Equal([]string{"anonymous"}, w.open()) },
		5*time.Second, 10*time.Millisecond, "alice's idle connection is closed: %v", w.open())
	assert.Equal(t, "alice", who(t, alice))
	assert.Equal(t, 2, count(w.dialed())["alice"])
}

// TestGatewayOpaqueCallerSharesNothing: a caller whose auth data has no
// subject has no key, so nothing of its outlives its request: each
// request gets an upstream connection of its own, opened with it and
// closed after it.
func TestGatewayOpaqueCallerSharesNothing(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{})
	x, y := downstreamAs(t, h, "badge:x"), downstreamAs(t, h, "badge:y")
	for range 2 {
		assert.Equal(t, "badge-x", who(t, x))
		assert.Equal(t, "badge-y", who(t, y))
	}
	assert.Equal(t, map[string]int{"gateway": 1, "badge-x": 2, "badge-y": 2}, count(w.dialed()))
	require.Eventually(t, func() bool { return slices.Equal([]string{"anonymous"}, w.open()) },
		5*time.Second, 10*time.Millisecond, "each request's connection is closed after it: %v", w.open())
}

// TestGatewayOpaqueCallersAreBounded: at most Options.MaxCallers
// connections serve opaque callers' requests at once; a request beyond
// waits for one within ConnectTimeout, then fails naming the bound.
func TestGatewayOpaqueCallersAreBounded(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{MaxCallers: 1, ConnectTimeout: 200 * time.Millisecond})
	x, y := downstreamAs(t, h, "badge:x"), downstreamAs(t, h, "badge:y")
	held := make(chan string, 1)
	go func() {
		res, err := x.CallTool(context.Background(), "hold", map[string]string{"gate": "x"}, nil)
		if err != nil {
			held <- err.Error()
			return
		}
		held <- res.Text()
	}()
	w.waitStarted(t, "x")
	res, err := y.CallTool(context.Background(), "who", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "Options.MaxCallers")
	w.openGate("x")
	assert.Equal(t, "badge-x", <-held)
	assert.Equal(t, "badge-y", who(t, y), "a freed connection serves the next request")
}

// TestGatewayCloseClosesEveryCallersConnection: Close closes the pooled
// connections, one evicted while its call runs, and an opaque caller's
// in use, so that no upstream session outlives the gateway.
func TestGatewayCloseClosesEveryCallersConnection(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	g, h := statelessGateway(t, w, proxy.Options{MaxCallers: 1})
	alice, bob, x := downstreamAs(t, h, "alice"), downstreamAs(t, h, "bob"), downstreamAs(t, h, "badge:x")
	aliceHeld := holdAsync(alice, map[string]string{"gate": "a"})
	w.waitStarted(t, "a")
	assert.Equal(t, "bob", who(t, bob), "bob's connection evicts alice's, in use")
	xHeld := holdAsync(x, map[string]string{"gate": "x"})
	w.waitStarted(t, "x")
	assert.Equal(t, []string{"alice", "anonymous", "badge-x", "bob"}, w.open())
	require.NoError(t, g.Close())
	assert.Empty(t, w.open(), "every upstream session is closed")
	assert.Contains(t, within(t, aliceHeld), "unavailable")
	assert.Contains(t, within(t, xHeld), "unavailable")
}

// within returns what ch gets, failing the test after 10 s.
func within(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
		return ""
	}
}
