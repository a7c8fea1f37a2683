package client_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// TestCallAfterNotifications: with CallOptions.AfterNotifications the
// call returns only once the callback of the log message the tool sent
// before its answer has run, however slow the callback, over every
// transport.
func TestCallAfterNotifications(t *testing.T) {
	transports(t, func(t *testing.T, _ *mcp.Server, tr client.Transport) {
		var logged atomic.Int32
		c, err := client.Connect(context.Background(), tr, &client.Options{Logger: slog.New(slog.DiscardHandler),
			OnLog: func(m mcp.LogMessage) {
				time.Sleep(50 * time.Millisecond) // a slow callback: the answer is read meanwhile
				logged.Add(1)
			}})
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, c.SetLogLevel(context.Background(), mcp.LevelInfo))
		for range 3 {
			before := logged.Load()
			res, err := c.CallTool(context.Background(), "count", map[string]int{"n": 1}, &client.CallOptions{AfterNotifications: true, Progress: func(mcp.Progress) {}})
			require.NoError(t, err)
			assert.Equal(t, "done", res.Text())
			assert.Equal(t, before+1, logged.Load(), "the call's log message was handled before the call returned")
		}
	})
}
