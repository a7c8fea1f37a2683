package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
)

// goListenReplica is a stateless replica with a server of its own sharing
// relay, which counts the subscriptions/listen requests it gets.
type goListenReplica struct {
	srv     *mcp.Server
	h       *mcphttp.Handler
	ts      *httptest.Server
	listens atomic.Int32
	stopped atomic.Bool
}

func startGoListenReplica(t *testing.T, relay session.Relay) *goListenReplica {
	t.Helper()
	r := &goListenReplica{srv: mcp.NewServer(mcp.Options{Name: "listen-go", Version: "1.0.0", Logger: quiet()})}
	mcp.AddTool(r.srv, mcp.Tool{Name: "hello"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "hello", nil })
	r.h = mcphttp.New(r.srv, &mcphttp.Options{Stateless: true, Relay: relay, Logger: quiet()})
	r.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Mcp-Method") == "subscriptions/listen" {
			r.listens.Add(1)
		}
		r.h.ServeHTTP(w, req)
	}))
	t.Cleanup(r.stop)
	return r
}

// stop ends the replica as a process that goes away does: its streams
// end, its connections close, its port stops answering.
func (r *goListenReplica) stop() {
	if r.stopped.Swap(true) {
		return
	}
	_ = r.h.Close()
	r.ts.CloseClientConnections()
	r.ts.Close()
}

// TestListenReconnectsGoClient: the mcpchain Go client at 2026-07-28,
// behind a round-robin balancer in front of two stateless replicas
// sharing one Redis relay, holds its subscriptions/listen stream on
// replica B; a tool added on replica A reaches its OnToolsChanged through
// the relay. Then B stops: the stream ends, the client opens it again,
// the balancer sends it to A, the client calls OnToolsChanged once for
// the gap, and a tool added on A afterwards is heard again. The delay
// from B's stop to that callback is the reconnection delay, logged.
func TestListenReconnectsGoClient(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	ca, cb := redis.NewClient(&redis.Options{Addr: addr}), redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = ca.Close(); _ = cb.Close() })
	prefix := "mcp:relay:listen-go-" + session.NewID()[:8] + ":"
	a := startGoListenReplica(t, redisstore.NewRelay(ca, prefix))
	b := startGoListenReplica(t, redisstore.NewRelay(cb, prefix))
	// The balancer's requests go A, B, A, …: server/discover to A, the
	// listen stream to B.
	front := httptest.NewServer(newRoundRobin(t, a.ts.URL, b.ts.URL))
	t.Cleanup(front.Close)

	changed := make(chan time.Time, 16)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Connect(ctx, client.HTTP(front.URL, nil), &client.Options{ProtocolVersion: mcp.Version20260728,
		OnToolsChanged: func() { changed <- time.Now() }})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, mcp.Version20260728, c.ProtocolVersion())
	require.Equal(t, int32(1), b.listens.Load(), "the listen stream is on B")
	require.Zero(t, a.listens.Load())

	await := func(what string) time.Time {
		t.Helper()
		select {
		case at := <-changed:
			return at
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
			return time.Time{}
		}
	}
	addTool := func(srv *mcp.Server, name string) time.Time {
		start := time.Now()
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) { return name, nil })
		return start
	}

	start := addTool(a.srv, "grown_1")
	heard := await("the tool added on A, heard on B")
	t.Logf("a tool added on A reached the client's callback through B in %v", heard.Sub(start))

	stopped := time.Now()
	b.stop()
	back := await("the callback after the reconnection")
	t.Logf("reconnection delay: B stopped, the client's new stream (on A) acknowledged and OnToolsChanged called in %v", back.Sub(stopped))
	assert.Equal(t, int32(1), a.listens.Load(), "the new stream is on A")
	assert.Equal(t, int32(1), b.listens.Load())

	start = addTool(a.srv, "grown_2")
	heard = await("the tool added on A after the reconnection")
	t.Logf("a tool added on A after the reconnection reached the callback in %v", heard.Sub(start))
	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	assert.Len(t, tools, 3)
	select {
	case at := <-changed:
		t.Fatalf("an extra OnToolsChanged at %v", at)
	default:
	}
}
