package mcphttp_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdleHereButBusyElsewhere: replica A made a session that the client
// then uses only on replica B, for longer than the idle timeout. A's
// reaper must drop only its own copy (the stored record lives, touched by
// B), never end the session: B keeps serving it.
func TestIdleHereButBusyElsewhere(t *testing.T) {
	t.Parallel()
	const idle = 400 * time.Millisecond
	store := session.NewMemoryStore()
	var endsA atomic.Int32
	hooksA := &mcphttp.SessionHooks{OnEnd: func(mcphttp.SessionInfo, mcphttp.EndReason) { endsA.Add(1) }}
	opts := func(h *mcphttp.SessionHooks) *mcphttp.Options {
		return &mcphttp.Options{Sessions: store, Events: session.NewMemoryEventStore(time.Minute),
			SessionIdleTimeout: idle, Hooks: h}
	}
	a, ha := newHTTP(t, quietServerWithTools(mcp.Options{}), opts(hooksA))
	b, _ := newHTTP(t, quietServerWithTools(mcp.Options{}), opts(nil))
	a.initialize("2025-11-25")
	b.sid, b.version = a.sid, a.version
	// B keeps the session in use (a request every 50 ms, far inside the
	// idle timeout) until A, which sees none of it, drops its idle copy.
	deadline := time.Now().Add(10 * time.Second)
	for i := 1; ha.SessionCount() != 0; i++ {
		require.True(t, time.Now().Before(deadline), "A never dropped its idle copy")
		res, _ := b.call(i, "tools/list", "")
		require.Nil(t, res.Error, "request %d", i)
		time.Sleep(50 * time.Millisecond) // pacing B's use, not synchronisation
	}
	assert.Zero(t, endsA.Load(), "A dropped its copy without ending the session")
	_, err := store.Get(context.Background(), a.sid)
	require.NoError(t, err, "the record lives on")
	res, _ := a.call(99, "tools/list", "")
	require.Nil(t, res.Error, "A adopts it again")

	// Unused everywhere, it expires (store.Get does not touch it), and the
	// next request gets 404.
	require.Eventually(t, func() bool {
		_, err := store.Get(context.Background(), a.sid)
		return errors.Is(err, session.ErrNotFound)
	}, 10*time.Second, 20*time.Millisecond, "the unused session never expired")
	status, _ := b.post(`{"jsonrpc":"2.0","id":100,"method":"tools/list"}`)
	assert.Equal(t, http.StatusNotFound, status)
}
