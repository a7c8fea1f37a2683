package proxy

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

type subject struct{ id string }

func (s subject) Subject() string { return s.id }

type opaque struct{ token string }

// TestSessionUpstreamServesOnlyItsCaller: a downstream session's
// upstream connection was opened with the session's caller and serves no
// other: a request naming the session with another caller's auth data
// (by the identity rule) is refused before it reaches the upstream,
// whatever let it through downstream.
func TestSessionUpstreamServesOnlyItsCaller(t *testing.T) {
	t.Parallel()
	up := mcp.NewServer(mcp.Options{Name: "up", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	uh := mcphttp.New(up, nil)
	t.Cleanup(func() { _ = uh.Close() })
	g, err := New(context.Background(), Options{Upstream: func(*mcp.Context) client.Transport { return client.InProcess(uh, nil) },
		Server: mcp.Options{Logger: slog.New(slog.DiscardHandler)}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })

	tests := []struct {
		name   string
		opener any
		next   any
		same   bool
	}{
		{"same subject, another value", subject{"ada"}, &subject{"ada"}, true},
		{"another subject", subject{"ada"}, subject{"bob"}, false},
		{"anonymous after a subject", subject{"ada"}, nil, false},
		{"opaque after a subject", subject{"ada"}, opaque{"ada"}, false},
		{"subject after anonymous", nil, subject{"ada"}, false},
		{"anonymous after anonymous", nil, nil, true},
		{"equal opaque", opaque{"t1"}, opaque{"t1"}, true},
		{"other opaque", opaque{"t1"}, opaque{"t2"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := "session-" + tt.name
			// The first request is still in flight (a session not live
			// here closes its upstream session after its last call).
			u, release, err := g.upstreamFor(context.Background(), &mcp.Context{SessionID: sid, Session: tt.opener})
			require.NoError(t, err)
			require.Equal(t, sessionConn, u.kind)
			defer release()
			u2, release2, err := g.upstreamFor(context.Background(), &mcp.Context{SessionID: sid, Session: tt.next})
			if !tt.same {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "belongs to another caller")
				return
			}
			require.NoError(t, err)
			assert.True(t, u == u2, "the session's upstream serves it")
			release2()
		})
	}
}

// TestUpstreamForFollowsTheIdentityRule: without a session, the
// anonymous caller uses the gateway's own connection, a caller with a
// subject its pooled one (the same for every request of that subject),
// and an opaque caller one of its own for each request.
func TestUpstreamForFollowsTheIdentityRule(t *testing.T) {
	t.Parallel()
	up := mcp.NewServer(mcp.Options{Name: "up", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	uh := mcphttp.New(up, nil)
	t.Cleanup(func() { _ = uh.Close() })
	g, err := New(context.Background(), Options{Upstream: func(*mcp.Context) client.Transport { return client.InProcess(uh, nil) },
		Server: mcp.Options{Logger: slog.New(slog.DiscardHandler)}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	ctx := context.Background()
	get := func(auth any) *upstream {
		u, release, err := g.upstreamFor(ctx, &mcp.Context{Session: auth})
		require.NoError(t, err)
		release()
		return u
	}
	// Pointers are compared with ==: the upstreams' fields are not to be
	// printed while their goroutines run.
	assert.True(t, g.shared == get(nil), "the anonymous caller uses the gateway's own")
	ada := get(subject{"ada"})
	assert.Equal(t, callerConn, ada.kind)
	assert.Equal(t, "sub:ada", ada.key)
	assert.True(t, ada == get(&subject{"ada"}), "one pooled connection per subject")
	assert.True(t, ada != get(subject{"bob"}))
	o1, o2 := get(opaque{"t"}), get(opaque{"t"})
	assert.Equal(t, requestConn, o1.kind)
	assert.True(t, o1 != o2, "an opaque caller shares nothing, even with itself")
	assert.Equal(t, requestConn, get(subject{""}).kind, "an empty subject is opaque")
}
