package proxy_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// TestGatewayLateCallClosesItsUpstreamSession: a downstream call that
// reaches the upstream after its downstream session ended opens an
// upstream session (it may be a session that moved to another replica
// and comes back, which is not refused), and that upstream session is
// closed once the call is done, not left open until Gateway.Close. The
// package's TestMain checks for leaked goroutines.
func TestGatewayLateCallClosesItsUpstreamSession(t *testing.T) {
	f := newFixture(t)
	g, h := gateway(t, f, proxy.Options{})
	entered, proceed, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	hold := func(next mcp.CallHandler) mcp.CallHandler {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Method == "tools/call" {
				close(entered)
				<-proceed
				defer close(finished) // the forwarded call is done
				// The end of the session cancels its requests; a call
				// past that point (its cancellation not yet seen) runs
				// on: so does this one.
				ctx = context.WithoutCancel(ctx)
			}
			return next(ctx, c)
		}
	}
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), hold)))
	})
	down := connect(t, held, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = down.CallTool(ctx, "whoami", nil, nil) // its answer has no session to go to
	}()
	<-entered
	require.Len(t, h.Sessions(), 1)
	h.EndSession(h.Sessions()[0].ID) // returns after the session-end hooks ran
	require.Zero(t, g.Sessions())
	close(proceed)
	<-finished
	cancel()
	<-done
	require.Eventually(t, func() bool { return g.Sessions() == 0 && f.h.SessionCount() == 1 }, 5*time.Second, 10*time.Millisecond,
		"the upstream session the late call opened is closed once it is done (only the shared connection stays)")

	// A live session keeps its upstream session between calls.
	live := connect(t, h, nil)
	assert.Equal(t, whoami(t, live), whoami(t, live))
	assert.Equal(t, 1, g.Sessions())
}

// TestUnmountClosesTheGatewaysUpstreamSessions: after Mounted.Unmount the
// ends of the former parent's sessions no longer reach the gateway, so
// the unmount itself closes the upstream sessions it opened for them.
func TestUnmountClosesTheGatewaysUpstreamSessions(t *testing.T) {
	f := newFixture(t)
	g, err := proxy.New(context.Background(), proxy.Options{
		Upstream: func(*mcp.Context) client.Transport { return client.InProcess(f, nil) },
		Server:   mcp.Options{Logger: quiet},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	// The gateway mounted in a middle server, itself mounted in the
	// parent: unmounting the middle one reaches the gateway below it.
	other := mcp.NewServer(mcp.Options{Name: "other", Version: "1.0.0", Logger: quiet})
	other.Mount("up", g.Server(), nil)
	hOther := mcpHandler(t, other)
	middle := mcp.NewServer(mcp.Options{Name: "middle", Version: "1.0.0", Logger: quiet})
	middle.Mount("gw", g.Server(), nil)
	parent := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0", Logger: quiet})
	m := parent.Mount("mid", middle, nil)
	h := mcpHandler(t, parent)

	a, b := connect(t, h, nil), connect(t, h, nil)
	keep := connect(t, hOther, nil)
	callText(t, a, "mid_gw_whoami", nil)
	callText(t, b, "mid_gw_whoami", nil)
	upKeep := callText(t, keep, "up_whoami", nil)
	require.Equal(t, 3, g.Sessions())

	m.Unmount()
	require.Eventually(t, func() bool { return g.Sessions() == 1 && f.h.SessionCount() == 2 }, 5*time.Second, 10*time.Millisecond,
		"the upstream sessions of the former parent's sessions are closed; another parent's stays")
	assert.Equal(t, upKeep, callText(t, keep, "up_whoami", nil), "the other parent's session keeps its upstream session")
}

// mcpHandler serves srv over Streamable HTTP until the test ends.
func mcpHandler(t *testing.T, srv *mcp.Server) *mcphttp.Handler {
	t.Helper()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	return h
}
