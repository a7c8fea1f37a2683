package wiretest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// RPCClient sends one JSON-RPC message to a server and returns the answer
// to it (nil for a notification), over Streamable HTTP or stdio: for the
// tests of a middleware, which must behave the same on both.
type RPCClient interface {
	Send(t testing.TB, msg string) json.RawMessage
	SessionID() string
}

// StartHTTP serves srv over Streamable HTTP (JSON answers) behind
// NewMux with mw, on a httptest server closed when t ends. The client
// also has a URL() string method.
func StartHTTP(t testing.TB, srv *mcp.Server, mw ...func(http.Handler) http.Handler) RPCClient {
	h := mcphttp.New(srv, &mcphttp.Options{JSONResponse: true})
	ts := httptest.NewServer(mcphttp.NewMux(h, &mcphttp.MuxOptions{Middleware: mw}))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return &httpClient{url: ts.URL + "/mcp"}
}

type httpClient struct {
	url string
	sid string
}

func (c *httpClient) SessionID() string { return c.sid }

// URL is the endpoint's URL, for a test that sends its own requests.
func (c *httpClient) URL() string { return c.url }

func (c *httpClient) Send(t testing.TB, msg string) json.RawMessage {
	t.Helper()
	r := NewRequest(context.Background(), http.MethodPost, c.url, msg, "Mcp-Session-Id", c.sid, "MCP-Protocol-Version", "2025-11-25")
	if c.sid == "" {
		r.Header.Del("MCP-Protocol-Version")
	}
	resp, body, err := Do(http.DefaultClient, r)
	require.NoError(t, err)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.sid = id
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil
	}
	return body
}

// StartStdio serves srv over stdio (mcphttp.Start on pipes) with mw,
// stopped when t ends.
func StartStdio(t testing.TB, srv *mcp.Server, mw ...func(http.Handler) http.Handler) RPCClient {
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

type stdioClient struct {
	in    *io.PipeWriter
	lines chan []byte
	sid   string
}

func (c *stdioClient) SessionID() string { return c.sid }

// Send writes msg as a line and waits up to 5 s for the response with its
// id, skipping what the server sends meanwhile.
func (c *stdioClient) Send(t testing.TB, msg string) json.RawMessage {
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

// Initialize opens the session of c at 2025-11-25.
func Initialize(t testing.TB, c RPCClient) {
	t.Helper()
	c.Send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.Send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
