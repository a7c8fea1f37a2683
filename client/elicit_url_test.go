package client

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
)

// hostileURLs are URLs a server must not get the client to hand to the
// application's "open this link" handler.
var hostileURLs = map[string]string{
	"javascript": "javascript:alert(document.cookie)",
	"data":       "data:text/html,<script>alert(1)</script>",
	"file":       "file:///etc/passwd",
	"userinfo":   "https://bank.example@evil.example/login",
	"http":       "http://example.com/login",
}

// rawServer is the server end of a stdio connection, written by hand: a
// server that sends what it likes.
type rawServer struct {
	t   *testing.T
	in  *bufio.Scanner // what the client sends
	out io.Writer
}

func (s *rawServer) read() map[string]json.RawMessage {
	s.t.Helper()
	require.True(s.t, s.in.Scan(), "the client sent a message")
	var m map[string]json.RawMessage
	require.NoError(s.t, json.Unmarshal(s.in.Bytes(), &m))
	return m
}

func (s *rawServer) send(v any) {
	s.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(s.t, err)
	_, err = s.out.Write(append(b, '\n'))
	require.NoError(s.t, err)
}

// TestClientChecksElicitationURLs: a server's
// URL-mode elicitation/create whose URL is hostile is answered with an
// invalid-params error naming what is wrong, and the application's
// ElicitURL handler never sees it; an https URL reaches it.
func TestClientChecksElicitationURLs(t *testing.T) {
	t.Parallel()
	sr, sw := io.Pipe() // server → client
	cr, cw := io.Pipe() // client → server
	var mu sync.Mutex
	var handed []string
	done := make(chan *Client, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := Connect(ctx, Stdio(rw{sr, cw}), &Options{Logger: slog.New(slog.DiscardHandler),
			ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
				mu.Lock()
				handed = append(handed, p.URL)
				mu.Unlock()
				return &elicit.Result{Action: elicit.ActionAccept}, nil
			}})
		if err != nil {
			t.Error(err)
		}
		done <- c
	}()
	s := &rawServer{t: t, in: bufio.NewScanner(cr), out: sw}
	init := s.read()
	s.send(map[string]any{"jsonrpc": "2.0", "id": init["id"], "result": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "raw", "version": "1.0.0"}}})
	require.JSONEq(t, `"notifications/initialized"`, string(s.read()["method"]))
	c := <-done
	require.NotNil(t, c)
	defer func() {
		_ = sw.Close()
		_ = c.Close()
		_ = cr.Close()
	}()

	ask := func(id, u string) map[string]json.RawMessage {
		s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": map[string]any{
			"mode": "url", "elicitationId": "e-" + id, "url": u, "message": "Open it"}})
		return s.read()
	}
	for name, u := range hostileURLs {
		reply := ask(name, u)
		require.JSONEq(t, `"`+name+`"`, string(reply["id"]))
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		require.NoError(t, json.Unmarshal(reply["error"], &e), "%s: an error, not %s", name, reply["result"])
		assert.Equal(t, -32602, e.Code, name)
		assert.Contains(t, e.Message, "elicitation URL", name)
	}
	mu.Lock()
	assert.Empty(t, handed, "no hostile URL reached the application")
	mu.Unlock()

	reply := ask("ok", "https://example.com/connect")
	assert.JSONEq(t, `{"action":"accept"}`, string(reply["result"]))
	mu.Lock()
	assert.Equal(t, []string{"https://example.com/connect"}, handed)
	mu.Unlock()
}

// TestClientChecksInputRequestURLs: at 2026-07-28 the
// same check applies to a URL elicitation asked in an input-required
// result: the request fails naming the question, and the handler never
// sees the URL.
func TestClientChecksInputRequestURLs(t *testing.T) {
	t.Parallel()
	var handed []string
	c := &Client{opts: Options{ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
		handed = append(handed, p.URL)
		return &elicit.Result{Action: elicit.ActionAccept}, nil
	}}}
	for name, u := range hostileURLs {
		params, err := json.Marshal(map[string]any{"mode": "url", "url": u, "message": "Open it"})
		require.NoError(t, err)
		_, err = c.answerInputs(context.Background(), "tools/call",
			map[string]inputRequest{"elicitation-1": {Method: "elicitation/create", Params: params}})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "elicitation URL", name)
	}
	assert.Empty(t, handed)
}

// TestClientChecksURLElicitationRequired: a
// -32042 error (URL elicitation required) whose data names a hostile URL
// reaches the application as -32603 without its data, saying why; one
// whose URLs are https keeps its code and data, for the application to
// open.
func TestClientChecksURLElicitationRequired(t *testing.T) {
	t.Parallel()
	sr, sw := io.Pipe() // server → client
	cr, cw := io.Pipe() // client → server
	done := make(chan *Client, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := Connect(ctx, Stdio(rw{sr, cw}), &Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Error(err)
		}
		done <- c
	}()
	s := &rawServer{t: t, in: bufio.NewScanner(cr), out: sw}
	init := s.read()
	s.send(map[string]any{"jsonrpc": "2.0", "id": init["id"], "result": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
		"serverInfo": map[string]any{"name": "raw", "version": "1.0.0"}}})
	require.JSONEq(t, `"notifications/initialized"`, string(s.read()["method"]))
	c := <-done
	require.NotNil(t, c)
	defer func() {
		_ = sw.Close()
		_ = c.Close()
		_ = cr.Close()
	}()

	call := func(u string) error {
		errc := make(chan error, 1)
		go func() {
			_, err := c.CallTool(context.Background(), "pay", nil, nil)
			errc <- err
		}()
		req := s.read()
		s.send(map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{
			"code": -32042, "message": "This request requires more information.",
			"data": map[string]any{"elicitations": []any{map[string]any{
				"mode": "url", "elicitationId": "e1", "url": u, "message": "Authorize"}}}}})
		return <-errc
	}
	for name, u := range hostileURLs {
		var re *mcp.Error
		require.ErrorAs(t, call(u), &re, name)
		assert.Equal(t, int64(-32603), re.Code, name)
		assert.Nil(t, re.Data, "%s: the URL does not reach the application", name)
		assert.Contains(t, re.Message, "elicitation URL", name)
	}
	var re *mcp.Error
	require.ErrorAs(t, call("https://example.com/authorize"), &re)
	assert.Equal(t, int64(-32042), re.Code)
	assert.Contains(t, string(errorData(re)), "https://example.com/authorize")
}
