package inproc_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/mcphttp"
)

const rev20260728Meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// newRev20260728Handler serves add, and wait, which blocks until cancelled and
// reports that it was.
func newRev20260728Handler(t *testing.T, cancelled chan<- struct{}) *mcphttp.Handler {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "inproc-rev20260728", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.Context, in struct {
		A int `json:"a"`
	}) (int, error) {
		return in.A + 1, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			return "not cancelled", nil
		}
	})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

type collected struct {
	mu   sync.Mutex
	msgs []string
}

func (c *collected) emit(b []byte) { c.mu.Lock(); c.msgs = append(c.msgs, string(b)); c.mu.Unlock() }
func (c *collected) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

func TestRev20260728RequestWithoutSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, msg, want string
	}{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + rev20260728Meta + `}}`, `"supportedVersions":["2026-07-28"`},
		{"call without headers", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1},` + rev20260728Meta + `}}`, `"resultType":"complete"`},
		{"removed method", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{` + rev20260728Meta + `}}`, `"code":-32601`},
		{"version from _meta checked", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}}`, `"code":-32022`},
		{"missing capabilities", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, `"code":-32602`},
	}
	c := inproc.New(newRev20260728Handler(t, make(chan struct{}, 1)), nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got collected
			c.Send(context.Background(), []byte(tt.msg), got.emit)
			msgs := got.all()
			require.Len(t, msgs, 1, "%q", msgs)
			assert.Contains(t, msgs[0], tt.want)
		})
	}
	assert.Empty(t, c.ID(), "no session at 2026-07-28")
}

func TestRev20260728CancelledNotification(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{}, 1)
	c := inproc.New(newRev20260728Handler(t, cancelled), nil)
	var got collected
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait","arguments":{},`+rev20260728Meta+`}}`), got.emit)
	}()
	// Until the request is tracked, the notification names nothing; retry.
	deadline := time.After(5 * time.Second)
	for stop := false; !stop; {
		c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1"}}`), got.emit)
		select {
		case <-cancelled:
			stop = true
		case <-deadline:
			t.Fatal("notifications/cancelled did not cancel the 2026-07-28 request")
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled request did not return")
	}
	for _, m := range got.all() {
		assert.False(t, strings.Contains(m, `"id":"w1"`), "a cancelled request is not answered: %s", m)
	}
}
