package mcp_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
)

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
			srv := mcp.NewServer(mcp.Options{Name: "logs", Version: "1.0.0", Logger: quietLogger()})
			mcp.AddTool(srv, mcp.Tool{Name: "log"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
				c.Log.Info("m", tt.data...)
				return "ok", nil
			})
			s := mcptest.NewSession(t, srv, nil)
			s.Call("tools/call", map[string]any{"name": "log"}, nil)
			n := s.WaitNotification("notifications/message", 5*time.Second)
			assert.Equal(t, `{"level":"info","logger":"log","data":`+tt.want+`}`, string(n.Params))
		})
	}
}
