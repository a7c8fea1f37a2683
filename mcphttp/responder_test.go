package mcphttp_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/mcphttp"
)

// A client that waits for each answer (concurrency 1) pays for every
// piece an answer is written in: each write is a segment the client
// acknowledges and a wakeup on both sides. These tests and the benchmark
// below run over real loopback TCP, so a change that splits an answer
// (a header flushed before the body, a body written in parts, a flush per
// event) or adds a round trip shows here and not only in the peer harness.

// countingListener counts the writes made on the connections it accepts.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// wireClient posts to a real loopback server over one kept-alive
// connection, as the harness's load generator does.
type wireClient struct {
	tb   testing.TB
	url  string
	http *http.Client
	sid  string
}

func newWireServer(tb testing.TB, opts *mcphttp.Options) (*wireClient, *countingListener) {
	h := mcphttp.New(newBenchServer(tb, 0), opts)
	ts := httptest.NewUnstartedServer(h)
	cl := &countingListener{Listener: ts.Listener}
	ts.Listener = cl
	ts.Start()
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
	tb.Cleanup(func() {
		tr.CloseIdleConnections()
		ts.Close()
		_ = h.Close()
	})
	return &wireClient{tb: tb, url: ts.URL, http: &http.Client{Transport: tr}}, cl
}

// post sends body and returns the status, the content type and the body
// of the answer, read to its end.
func (c *wireClient) post(body string) (int, string, string) {
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	require.NoError(c.tb, err)
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json, text/event-stream"}
	if c.sid != "" {
		req.Header["Mcp-Session-Id"] = []string{c.sid}
		req.Header["Mcp-Protocol-Version"] = []string{benchVersion}
	}
	resp, err := c.http.Do(req)
	require.NoError(c.tb, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.tb, err)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.sid = sid
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
}

func (c *wireClient) initialize() {
	status, _, body := c.post(benchInit)
	require.Equal(c.tb, http.StatusOK, status, body)
	require.NotEmpty(c.tb, c.sid, "initialize gave no session")
	status, _, body = c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(c.tb, http.StatusAccepted, status, body)
}

// TestWritesPerAnswer counts the writes on the server's connection for
// sequential tools/call requests: a JSON answer (stateful or stateless)
// is one write of header and body together, and an SSE answer carrying one
// notification and the result is at most three (header, the event the tool
// streamed, the result with the end of the chunked body).
func TestWritesPerAnswer(t *testing.T) {
	const calls = 50
	tests := []struct {
		name      string
		opts      *mcphttp.Options
		call      string
		wantType  string
		want      string
		maxWrites int64
	}{
		{"stateful json", nil, benchCall, "application/json", `"text":"3"`, 1},
		{"stateless json", &mcphttp.Options{Stateless: true}, benchCall, "application/json", `"text":"3"`, 1},
		{"stateful sse", nil, benchCallSSE, "text/event-stream", `"text":"3"`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, l := newWireServer(t, tt.opts)
			if tt.opts == nil || !tt.opts.Stateless {
				c.initialize()
			}
			before := l.writes.Load()
			for range calls {
				status, ctype, body := c.post(tt.call)
				require.Equal(t, http.StatusOK, status, body)
				require.True(t, strings.HasPrefix(ctype, tt.wantType), "content type %q", ctype)
				require.Contains(t, body, tt.want)
			}
			perCall := float64(l.writes.Load()-before) / calls
			t.Logf("%.2f writes per answer", perCall)
			assert.LessOrEqual(t, perCall, float64(tt.maxWrites), "writes per answer")
		})
	}
}

// BenchmarkSequentialHTTP is one tools/call per operation over loopback
// TCP with one client waiting for each answer: the harness's c=1 phase in
// a process. Stateful and stateless should take about the same time; a
// gap between them is a cost on the session path (a lookup, a store
// write, a goroutine handoff) that only a waiting client sees.
func BenchmarkSequentialHTTP(b *testing.B) {
	for _, tt := range []struct {
		name string
		opts *mcphttp.Options
	}{
		{"stateful", nil},
		{"stateless", &mcphttp.Options{Stateless: true}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			c, _ := newWireServer(b, tt.opts)
			if tt.opts == nil {
				c.initialize()
			}
			b.ReportAllocs()
			for b.Loop() {
				if status, _, body := c.post(benchCall); status != http.StatusOK {
					b.Fatalf("%d %s", status, body)
				}
			}
		})
	}
}
