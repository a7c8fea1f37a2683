package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// TestServeStdioDrainsAtEndOfInput: a client that writes a tools/call
// and closes stdin at once gets the call's result before ServeStdio
// returns, not a cancelled call; with a negative DrainTimeout the end of
// the input still cancels it.
func TestServeStdioDrainsAtEndOfInput(t *testing.T) {
	up := mcp.NewServer(mcp.Options{Name: "slow", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(up, mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	uh := mcphttp.New(up, nil)
	t.Cleanup(func() { _ = uh.Close() })

	for _, tc := range []struct {
		name  string
		drain time.Duration
		want  string
	}{
		{"default drain", 0, "slept"},
		{"no drain", -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cin, sout := io.Pipe()
			sin, cout := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := proxy.ServeStdio(context.Background(), client.InProcess(uh, nil), cin, cout,
					&proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Logger: quiet}}, DrainTimeout: tc.drain})
				_ = cout.Close()
				done <- err
			}()
			lines := make(chan string, 8)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(sin)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			write := func(s string) { _, err := io.WriteString(sout, s+"\n"); require.NoError(t, err) }
			write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			require.Contains(t, <-lines, `"id":1`)
			write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
			require.NoError(t, sout.Close()) // end of input, the call in flight
			var answer string
			for l := range lines {
				var m struct {
					ID     int
					Result *mcp.ContentResult
				}
				if json.Unmarshal([]byte(l), &m) == nil && m.ID == 2 {
					answer = l
					if m.Result != nil && !m.Result.IsError {
						answer = m.Result.Text()
					}
				}
			}
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("ServeStdio did not return")
			}
			if tc.want != "" {
				assert.Equal(t, tc.want, answer, "the call in flight at the end of the input was answered")
			} else {
				assert.NotEqual(t, "slept", answer, "without a drain the end of the input cancels the call")
			}
		})
	}
}
