package ratelimit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/examples/everything/tools"
	"github.com/mcpchain/mcp/mcphttp"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testServer is the everything example's tools on a fresh server.
func testServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "ratelimit", Version: "1.0.0"})
	tools.Register(srv, nil)
	return srv
}

// rpcClient sends one JSON-RPC message and returns the answer to it (nil
// for a notification).
type rpcClient interface {
	send(t *testing.T, msg string) json.RawMessage
	sessionID() string
}

type stdioClient struct {
	in    *io.PipeWriter
	lines chan []byte
	sid   string
}

func (c *stdioClient) sessionID() string { return c.sid }

func (c *stdioClient) send(t *testing.T, msg string) json.RawMessage {
	t.Helper()
	_, err := io.WriteString(c.in, msg+"\n")
	require.NoError(t, err)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	require.NoError(t, json.Unmarshal([]byte(msg), &m))
	if m.ID == nil {
		return nil
	}
	for {
		select {
		case line := <-c.lines:
			var got struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			require.NoError(t, json.Unmarshal(line, &got))
			if got.Method == "" && string(got.ID) == string(m.ID) {
				return line
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no answer to %s", msg)
		}
	}
}

func startStdio(t *testing.T, srv *mcp.Server, mw ...func(http.Handler) http.Handler) rpcClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{Stdin: inR, Stdout: outW, Middleware: mw})
	require.NoError(t, err)
	c := &stdioClient{in: inW, lines: make(chan []byte, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = inst.Close()
		_ = outW.Close()
		<-done
	})
	return c
}

func initialize(t *testing.T, c rpcClient) {
	t.Helper()
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
