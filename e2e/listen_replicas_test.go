package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
)

// listenUser is the auth data of "Authorization: Bearer <name>": a caller
// with a subject.
type listenUser struct{ name string }

func (u listenUser) Subject() string { return u.name }

// listenRun is what node/listen-replicas-client.mjs printed.
type listenRun struct {
	ProtocolVersion       string          `json:"protocolVersion"`
	Honored               json.RawMessage `json:"honored"`
	AliceTools            int             `json:"aliceTools"`
	AlicePrompts          int             `json:"alicePrompts"`
	BobTools              int             `json:"bobTools"`
	BobPrompts            int             `json:"bobPrompts"`
	BobToolsBeforePrompts *int            `json:"bobToolsBeforePrompts"`
	UpgradeMs             float64         `json:"upgradeMs"`
	GrowMs                float64         `json:"growMs"`
	Error                 *string         `json:"error"`
}

// listenReplica serves a server of its own (a replica's registry is its
// process's) on a port of its own, sharing relay: its tools change what
// the clients listening anywhere hear.
func listenReplica(t *testing.T, relay session.Relay) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "listen-replicas", Version: "1.0.0", Logger: quiet(),
		Authenticate: func(r *http.Request) (any, error) {
			name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || name == "" {
				return nil, mcp.ErrUnauthorized
			}
			return listenUser{name}, nil
		}})
	var grown atomic.Int32
	mcp.AddTool(srv, mcp.Tool{Name: "upgrade", Description: "The caller's tool list changed"},
		func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "upgraded", srv.ListChangedFor(c.Session, access.KindTool)
		})
	mcp.AddTool(srv, mcp.Tool{Name: "touch", Description: "Prompts changed, for everyone"},
		func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "touched", srv.Registry().Remove(access.KindPrompt, "none")
		})
	mcp.AddTool(srv, mcp.Tool{Name: "grow", Description: "Add a tool"},
		func(context.Context, *mcp.Context, struct{}) (string, error) {
			name := fmt.Sprintf("grown_%d", grown.Add(1))
			mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) { return name, nil })
			return name, nil
		})
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: true, Relay: relay})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL
}

// TestListenAcrossReplicasTSClient: the official TypeScript SDK v2 client
// (2026-07-28, no session) holds subscriptions/listen streams on replica B
// of two stateless replicas sharing one Redis (standalone, then a
// three-master Cluster) through redisstore.NewRelay, while a client of it
// on replica A changes things there: alice's own tool list
// (Server.ListChangedFor) reaches alice's stream on B and not bob's; a
// prompt change and a tool added on A reach both.
func TestListenAcrossReplicasTSClient(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		clients func(t *testing.T) (a, b redis.UniversalClient) // two clients of one Redis
	}{
		{"redis", func(t *testing.T) (redis.UniversalClient, redis.UniversalClient) {
			addr := redistest.Start(t)
			return redis.NewClient(&redis.Options{Addr: addr}), redis.NewClient(&redis.Options{Addr: addr})
		}},
		{"cluster", func(t *testing.T) (redis.UniversalClient, redis.UniversalClient) {
			addrs := clusterAddrs(t)
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs}), redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ca, cb := tt.clients(t)
			t.Cleanup(func() { _ = ca.Close(); _ = cb.Close() })
			// A prefix of its own: the shared cluster carries other tests'
			// relays, whose changes these listeners must not hear.
			prefix := "mcp:relay:listen-" + session.NewID()[:8] + ":"
			urlA := listenReplica(t, redisstore.NewRelay(ca, prefix))
			urlB := listenReplica(t, redisstore.NewRelay(cb, prefix))

			r := runNode(t, 60*time.Second, "listen-replicas-client.mjs", urlA, urlB)
			require.Equal(t, 0, r.exitCode, "listen-replicas-client.mjs: %s", r.stderr.String())
			var v listenRun
			require.NoError(t, json.Unmarshal(r.stdout, &v), string(r.stdout))
			require.Nil(t, v.Error, "listen-replicas-client.mjs: %s\n%s", r.stdout, r.stderr.String())
			assert.Equal(t, "2026-07-28", v.ProtocolVersion)
			assert.JSONEq(t, `{"toolsListChanged":true,"promptsListChanged":true}`, string(v.Honored))
			require.NotNil(t, v.BobToolsBeforePrompts)
			assert.Zero(t, *v.BobToolsBeforePrompts, "bob heard of alice's own tool list")
			assert.Equal(t, 2, v.AliceTools, "alice: her own change, then the tool added")
			assert.Equal(t, 1, v.AlicePrompts)
			assert.Equal(t, 1, v.BobTools, "bob: the tool added")
			assert.Equal(t, 1, v.BobPrompts)
			t.Logf("%s: from the call on A to the TypeScript client's handler on B: ListChangedFor %.1f ms, a tool added %.1f ms",
				tt.name, v.UpgradeMs, v.GrowMs)
		})
	}
}
