package mcphttp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
)

type notes struct {
	mu  sync.Mutex
	got []string
}

func (n *notes) add(method string, params json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, method+" "+string(params))
}

// list returns what was noted so far.
func (n *notes) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.got)
}

func (n *notes) has(s string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, g := range n.got {
		if g == s {
			return true
		}
	}
	return false
}

func TestSubscriptionsAndListChanges(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "notify", Version: "1.0.0", Logger: discardLogger()})
	load := func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "x"}}, nil
	}
	srv.AddResource(mcp.Resource{URI: "file:///a", Name: "a", Load: load})
	srv.AddResource(mcp.Resource{URI: "file:///b", Name: "b", Load: load})
	ctx := context.Background()
	var subscribed, other notes
	s1 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: subscribed.add}}).Client()
	s2 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: other.add}}).Client()

	require.NoError(t, s1.Call(ctx, "resources/subscribe", map[string]string{"uri": "file:///a"}, nil))
	srv.ResourceUpdated("file:///a")
	srv.ResourceUpdated("file:///b")
	updatedA := `notifications/resources/updated {"uri":"file:///a"}`
	require.Eventually(t, func() bool { return subscribed.has(updatedA) }, 5*time.Second, 10*time.Millisecond)

	// A change after start reaches every session.
	mcp.AddTool(srv, mcp.Tool{Name: "late", Description: "added after start"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "late", nil
	})
	srv.Registry().Remove(mcp.KindPrompt, "none")
	srv.Registry().Remove(mcp.KindResource, "file:///b")
	for _, n := range []*notes{&subscribed, &other} {
		require.Eventually(t, func() bool {
			return n.has("notifications/tools/list_changed ") && n.has("notifications/prompts/list_changed ") &&
				n.has("notifications/resources/list_changed ")
		}, 5*time.Second, 10*time.Millisecond)
	}
	tools, err := s2.ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, tools, 1)

	// Only subscribers get updates, and only for what they subscribed to.
	require.False(t, other.has(updatedA), "a session that did not subscribe got an update")
	require.False(t, subscribed.has(`notifications/resources/updated {"uri":"file:///b"}`))
	require.NoError(t, s1.Call(ctx, "resources/unsubscribe", map[string]string{"uri": "file:///a"}, nil))
	srv.ResourceUpdated("file:///a")
	srv.ResourceUpdated("file:///a")
	time.Sleep(100 * time.Millisecond)
	subscribed.mu.Lock()
	n := 0
	for _, g := range subscribed.got {
		if g == updatedA {
			n++
		}
	}
	subscribed.mu.Unlock()
	require.Equal(t, 1, n, "updates arrived after unsubscribe")
}

func TestLogToClientsHonoursEachSessionsLevel(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "logs", Version: "1.0.0", Logger: discardLogger()})
	ctx := context.Background()
	var quiet, chatty notes
	s1 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: quiet.add}}).Client()
	s2 := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: chatty.add}}).Client()
	require.NoError(t, s1.Call(ctx, "logging/setLevel", map[string]string{"level": "error"}, nil))
	require.NoError(t, s2.Call(ctx, "logging/setLevel", map[string]string{"level": "debug"}, nil))

	srv.LogToClients(mcp.LevelInfo, "cache warmed", map[string]int{"entries": 3})
	srv.LogToClients(mcp.LevelError, "upstream down", nil)
	info := `notifications/message {"level":"info","logger":"logs","data":{"context":{"entries":3},"message":"cache warmed"}}`
	errLine := `notifications/message {"level":"error","logger":"logs","data":{"message":"upstream down"}}`
	require.Eventually(t, func() bool { return chatty.has(info) && chatty.has(errLine) && quiet.has(errLine) },
		5*time.Second, 10*time.Millisecond)
	require.False(t, quiet.has(info), "an info message passed a session whose level is error")
}

// TestToolLogData: Context.Log takes what log/slog takes. Key/value pairs,
// slog.Attr values and groups become one object in the message's
// context; a lone value is sent as it is.
func TestToolLogData(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		data []any
		want string // the message's data, as JSON
	}{
		{"no data", nil, `{"message":"m"}`},
		{"key/value pairs", []any{"user", "alice", "items", 3}, `{"context":{"items":3,"user":"alice"},"message":"m"}`},
		{"a lone object", []any{map[string]int{"entries": 3}}, `{"context":{"entries":3},"message":"m"}`},
		{"a lone string", []any{"just this"}, `{"context":"just this","message":"m"}`},
		{"an attr", []any{slog.Int("n", 7)}, `{"context":{"n":7},"message":"m"}`},
		{"a group", []any{"a", 1, slog.Group("req", "id", "r1", slog.Bool("ok", true))}, `{"context":{"a":1,"req":{"id":"r1","ok":true}},"message":"m"}`},
		{"a key without value", []any{"a", 1, "dangling"}, `{"context":{"!BADKEY":"dangling","a":1},"message":"m"}`},
		{"a duration", []any{"took", 1500 * time.Millisecond}, `{"context":{"took":1500000000},"message":"m"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcp.NewServer(mcp.Options{Name: "logs", Version: "1.0.0", Logger: discardLogger()})
			mcp.AddTool(srv, mcp.Tool{Name: "log"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
				c.Log.Info("m", tt.data...)
				return "ok", nil
			})
			var got notes
			s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{OnNotification: got.add}}).Client()
			require.NoError(t, s.Call(context.Background(), "tools/call", map[string]any{"name": "log"}, nil))
			want := `notifications/message {"level":"info","logger":"log","data":` + tt.want + `}`
			require.Eventually(t, func() bool { return got.has(want) }, 5*time.Second, 10*time.Millisecond,
				"want %s; got %v", want, got.list())
		})
	}
}
