package stdio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/stdio"
)

// Every worker waits for the client's answer to a sampling request, and
// more requests arrive: the read loop must keep reading, or the answers
// that would free the workers are never seen (a hang). Requests beyond the
// queue get an immediate "server busy" error.
func TestWorkersWaitingOnTheClientDoNotStallTheReader(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "sampler", Version: "1.0.0", Logger: discard()})
	mcp.AddTool(srv, mcp.Tool{Name: "ask", Description: "sample"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := c.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}})
		if err != nil {
			return "", err
		}
		return res.Content.(mcp.TextContent).Text, nil
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const workers, queued, total = 4, 2, 10
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(ctx, h, inR, outW, &stdio.Options{MaxConcurrent: workers, MaxQueued: queued})
		outW.Close()
	}()
	lines := make(chan map[string]json.RawMessage, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	send := func(s string) { _, err := io.WriteString(inW, s+"\n"); require.NoError(t, err) }
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range total {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask"}}`, i))
	}
	// Collect: sampling requests (answer them only once all calls are in),
	// busy errors, and finally the results.
	var samplingIDs []json.RawMessage
	results, busy := 0, 0
	answered := false
	deadline := time.After(15 * time.Second)
	for results+busy < total {
		select {
		case m, ok := <-lines:
			require.True(t, ok, "stdout closed early")
			switch {
			case string(m["method"]) == `"sampling/createMessage"`:
				samplingIDs = append(samplingIDs, m["id"])
				if answered {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}`, m["id"]))
				}
			case m["error"] != nil && string(m["id"]) != `"init"`:
				require.Contains(t, string(m["error"]), "Server busy")
				busy++
			case m["result"] != nil && strings.Contains(string(m["result"]), `"text":"yes"`):
				results++
			}
			if !answered && len(samplingIDs) == workers && busy == total-workers-queued {
				answered = true // every worker is blocked and the queue is full: now answer
				for _, id := range samplingIDs {
					send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"yes"},"model":"m"}}`, id))
				}
			}
		case <-deadline:
			t.Fatalf("hang: %d results, %d busy errors, %d sampling requests seen", results, busy, len(samplingIDs))
		}
	}
	require.Equal(t, workers+queued, results)
	require.Equal(t, total-workers-queued, busy)
	inW.Close()
	require.NoError(t, <-done)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
