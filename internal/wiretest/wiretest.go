// Package wiretest holds the test helpers that speak the MCP wire format
// by hand, shared by the tests of the module's packages, its examples and
// e2e: the JSON-RPC messages a server sends, read back from a JSON body, a
// JSON array or an event stream; a request with the headers a Streamable
// HTTP client sends; a client that sends one message at a time over
// Streamable HTTP or stdio (RPCClient), for the tests of a middleware that
// must behave the same on both; a log sink safe for a server's
// goroutines; and the server of the caching hints' tests (CacheServer),
// whose scope rules the root package tests and whose wire forms mcphttp
// tests.
//
// Tests that drive a server as a user would use the public package
// mcptest; these helpers are for tests of the wire itself.
package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// Msg is one JSON-RPC message a server sent.
type Msg struct {
	// ID is the message's id; nil for a notification.
	ID json.RawMessage `json:"id"`
	// Method is the method of a request or notification; "" in a response.
	Method string `json:"method"`
	// Params are the params of a request or notification.
	Params json.RawMessage `json:"params"`
	// Result is the result of a success response.
	Result json.RawMessage `json:"result"`
	// Error is the error of an error response.
	Error *RPCError `json:"error"`
}

// RPCError is the error member of a JSON-RPC error response.
type RPCError struct {
	// Code is the JSON-RPC error code.
	Code int64 `json:"code"`
	// Message is the error's text.
	Message string `json:"message"`
	// Data is the error's data, when any.
	Data json.RawMessage `json:"data"`
}

// IsResponse reports whether m is a response (it has no method).
func (m Msg) IsResponse() bool { return m.Method == "" }

// ParseMessages returns the messages of a response body: an event stream
// (when contentType says so), a JSON array or one JSON object. An empty
// body has none. A message that is not JSON fails the test.
func ParseMessages(t testing.TB, contentType string, body []byte) []Msg {
	t.Helper()
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil
	}
	var out []Msg
	switch {
	case strings.HasPrefix(contentType, "text/event-stream"):
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m Msg
				require.NoError(t, json.Unmarshal([]byte(data), &m), data)
				out = append(out, m)
			}
		}
	case body[0] == '[':
		require.NoError(t, json.Unmarshal(body, &out), "%s", body)
	default:
		var m Msg
		require.NoError(t, json.Unmarshal(body, &m), "%s", body)
		out = append(out, m)
	}
	return out
}

// ToolResult decodes the result of a tools/call response; an error
// response fails the test.
func ToolResult(t testing.TB, m Msg) *mcp.ContentResult {
	t.Helper()
	require.Nil(t, m.Error, "error response: %+v", m.Error)
	var r mcp.ContentResult
	require.NoError(t, json.Unmarshal(m.Result, &r))
	return &r
}

// NewRequest returns an HTTP request to an MCP endpoint with the headers
// a Streamable HTTP client sends (Accept listing both JSON and event
// streams, and Content-Type with a body),
// then the extra headers given in name, value pairs: an empty value
// deletes the header, and "Host" sets the request's Host. It panics on a
// malformed URL, which is a bug of the test.
func NewRequest(ctx context.Context, method, url, body string, header ...string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		panic("wiretest: " + err.Error())
	}
	r.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		switch name, value := header[i], header[i+1]; {
		case name == "Host":
			r.Host = value
		case value == "":
			r.Header.Del(name)
		default:
			r.Header.Set(name, value)
		}
	}
	return r
}

// Do sends r with c and returns the response with its body read (and the
// body closed).
func Do(c *http.Client, r *http.Request) (*http.Response, []byte, error) {
	resp, err := c.Do(r)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// SyncBuffer is a bytes.Buffer that a server's goroutines (or a child
// process) may write while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
