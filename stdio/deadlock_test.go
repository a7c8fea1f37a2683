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
	"github.com/mcpchain/mcp/sampling"
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
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 5, Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("hi")}}})
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
	call := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask"}}`, i)
	}
	done := make(chan error, 1)
	go func() {
		// Room for exactly two waiting requests (ids 0-9 make lines of one length).
		done <- stdio.Serve(ctx, h, inR, outW, &stdio.Options{MaxConcurrent: workers, MaxQueuedBytes: queued * len(call(0))})
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
		send(call(i))
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

// A client that pipelines far more requests than there are workers is
// served in turn, without errors.
func TestPipelinedRequestsAreQueuedNotRefused(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "pipe", Version: "1.0.0", Logger: discard()})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, c *mcp.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return fmt.Sprint(in.N), nil
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	const n = 2000
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	for i := range n {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}`+"\n", i, i)
	}
	// Keep stdin open until every answer is in, as a real client does.
	inR, inW := io.Pipe()
	go func() { _, _ = io.WriteString(inW, in.String()) }()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(ctx, h, inR, outW, &stdio.Options{MaxConcurrent: 4})
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	seen := map[string]bool{}
	for len(seen) < n && sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		require.Nil(t, m.Error, sc.Text())
		if string(m.ID) == `"init"` {
			continue
		}
		require.Equal(t, string(m.ID), m.Result.Content[0].Text)
		seen[string(m.ID)] = true
	}
	require.Len(t, seen, n)
	inW.Close()
	require.NoError(t, <-done)
}
