package mcphttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
)

// TestResumedStreamOfAStoppedReplica: a replica following, from the shared
// event store, a stream another replica runs tells a running request from
// one whose replica stopped by the heartbeats the running replica stores.
// A request held for 6 s is followed to its response, with heartbeats on
// the way; a stream nobody stores events for any more (its replica was
// killed) is answered with -32603 and the request's ID after 5 s, instead
// of being followed until the client gives up.
func TestResumedStreamOfAStoppedReplica(t *testing.T) {
	t.Parallel()
	newPair := func(t *testing.T) (a, b *resumeEnv, events session.EventStore) {
		events = session.NewMemoryEventStore(time.Minute)
		opts := &mcphttp.Options{Resumable: true, Sessions: session.NewMemoryStore(), Events: events}
		a, b = newResumeEnv(t, opts, nil), newResumeEnv(t, opts, nil)
		a.c.initialize("2025-11-25")
		b.c.sid, b.c.version = a.c.sid, a.c.version
		return a, b, events
	}

	t.Run("running", func(t *testing.T) {
		t.Parallel()
		a, b, _ := newPair(t)
		ctx, drop := context.WithTimeout(context.Background(), 20*time.Second)
		defer drop()
		s := a.c.open(ctx, http.MethodPost, toolCall(2, "chatty", `{"tag":"H"}`), "X-Test-Tag", "H")
		require.Equal(t, http.StatusOK, s.resp.StatusCode)
		require.True(t, s.mustNext().isPriming())
		first := s.mustNext()
		drop()
		a.waitServed("H")

		gctx, gcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer gcancel()
		g := b.c.open(gctx, http.MethodGet, "", "Last-Event-ID", first.ID)
		require.Equal(t, http.StatusOK, g.resp.StatusCode)
		time.AfterFunc(6*time.Second, func() { close(a.p.gate) }) // longer than the 5 s without events
		evs := g.all()
		require.NotEmpty(t, evs)
		heartbeats := 0
		for _, ev := range evs[:len(evs)-1] {
			if ev.isPriming() {
				heartbeats++
			}
		}
		assert.GreaterOrEqual(t, heartbeats, 2, "a heartbeat every 2 s while the call was held: %+v", evs)
		res := evs[len(evs)-1].msg(t)
		require.True(t, res.IsResponse(), "%+v", evs)
		assert.Equal(t, "H done", wiretest.ToolResult(t, res).Text())
		require.NoError(t, a.waitFinished())
	})

	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		_, b, events := newPair(t)
		// What a replica killed mid-call leaves in the store: the priming
		// event with the request's ID, a notification, then nothing.
		ctx := context.Background()
		require.NoError(t, events.Append(ctx, b.c.sid, "deadreplica00001", session.Event{N: 0, Data: []byte(`7`)}))
		require.NoError(t, events.Append(ctx, b.c.sid, "deadreplica00001", session.Event{N: 1,
			Data: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)}))

		gctx, gcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer gcancel()
		start := time.Now()
		g := b.c.open(gctx, http.MethodGet, "", "Last-Event-ID", "deadreplica00001_1")
		require.Equal(t, http.StatusOK, g.resp.StatusCode)
		evs := g.all()
		took := time.Since(start)
		require.Len(t, evs, 1, "%+v", evs)
		m := evs[0].msg(t)
		require.True(t, m.IsResponse(), "%+v", evs)
		assert.Equal(t, "7", string(m.ID))
		require.NotNil(t, m.Error, "%+v", m)
		assert.Equal(t, int64(-32603), m.Error.Code)
		assert.Contains(t, m.Error.Message, "replica running this request stopped")
		assert.GreaterOrEqual(t, took, 5*time.Second)
		assert.Less(t, took, 8*time.Second)
	})
}
