package mcphttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnswerOnAnotherReplicaIsDropped: without a relay, server-to-client
// requests are not routed between replicas. A tool on replica A elicits;
// the client's answer posted to replica B is dropped (and logged) but
// answered 202, since an error status makes a client such as the official
// Go SDK close its connection for good; the same answer posted to A
// completes the call.
func TestAnswerOnAnotherReplicaIsDropped(t *testing.T) {
	t.Parallel()
	a, b, s, answer := startElicit(t, nil)

	status, msgs := b.post(answer)
	assert.Equal(t, http.StatusAccepted, status)
	assert.Empty(t, msgs)

	status, _ = a.post(answer)
	require.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, "accept", elicitResult(t, s))
}

// TestAnswerRelayedToTheAskingReplica: with Options.Relay (in memory and
// on Redis pub/sub), the client's answer posted to replica B reaches the
// tool waiting on replica A.
func TestAnswerRelayedToTheAskingReplica(t *testing.T) {
	t.Parallel()
	relays := map[string]func(t *testing.T) session.Relay{
		"memory": func(*testing.T) session.Relay { return session.NewMemoryRelay() },
		"redis": func(t *testing.T) session.Relay {
			c := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { _ = c.Close() })
			return redisstore.NewRelay(c, "")
		},
	}
	for name, newRelay := range relays {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, b, s, answer := startElicit(t, newRelay(t))
			status, body := b.post(answer)
			require.Equal(t, http.StatusAccepted, status, "%v", body)
			assert.Equal(t, "accept", elicitResult(t, s))
		})
	}
}

// elicitResult reads the elicit call's stream to its response and returns
// the tool's text.
func elicitResult(t *testing.T, s *sseStream) string {
	t.Helper()
	for {
		ev := s.mustNext()
		if m := ev.msg(t); m.IsResponse() {
			assert.Equal(t, "7", string(m.ID))
			return wiretest.ToolResult(t, m).Text()
		}
	}
}

// startElicit runs two replicas sharing a store (and relay, if not nil),
// opens a session on A, calls a tool on A that elicits, and returns the
// clients, the call's stream, and the client's answer to the elicitation.
func startElicit(t *testing.T, relay session.Relay) (a, b *httpClient, s *sseStream, answer string) {
	t.Helper()
	newSrv := func() *mcp.Server {
		srv := quietServerWithTools(mcp.Options{})
		mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			res, err := elicit.Create(ctx, c, &elicit.Params{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object"}})
			if err != nil {
				return "", err
			}
			return res.Action, nil
		})
		return srv
	}
	store, events := session.NewMemoryStore(), session.NewMemoryEventStore(time.Minute)
	opts := &mcphttp.Options{Sessions: store, Events: events, Relay: relay}
	a, _ = newHTTP(t, newSrv(), opts)
	b, _ = newHTTP(t, newSrv(), opts)
	a.initWith(`{"elicitation":{}}`, "asker")
	b.sid, b.version = a.sid, a.version

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	s = a.open(ctx, http.MethodPost, toolCall(7, "ask", `{}`))
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	answer = `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept","content":{}}}`
	return a, b, s, answer
}
