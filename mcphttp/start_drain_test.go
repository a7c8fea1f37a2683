package mcphttp_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// TestShutdownAnswersRequestsOfAcceptedConnections: a request that
// arrives on a connection the server accepted before its shutdown began is
// answered, not dropped. A balancer that opens a connection per request
// (nginx's default, HAProxy with http-reuse never) sends its request right
// after the connect; when the replica gets SIGTERM in between, net/http's
// Server.Shutdown closes such a connection without an answer (it drops
// every request it reads once Shutdown has begun), the balancer cannot
// tell that from a crash and answers 502, and a rolling restart loses
// calls. Here the connection is open and half its request sent when the
// shutdown begins (a new connection is then refused: the listener is
// closed), and the rest comes after: the request is served.
func TestShutdownAnswersRequestsOfAcceptedConnections(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "drain", Version: "1.0.0", Logger: discardLogger()})
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1, ShutdownTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = inst.Close() })

	conn, err := net.Dial("tcp", inst.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"late","version":"1"}}}`
	head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	_, err = io.WriteString(conn, head)
	require.NoError(t, err)
	// The connection is the server's once its accept loop took it: Dial
	// returns when the kernel completed the handshake (a connection still in
	// the accept queue when the shutdown begins is the next test's case).
	require.Eventually(t, func() bool { return mcphttp.AcceptedUnread(inst) == 1 },
		10*time.Second, time.Millisecond, "the server accepts the connection")

	stopped := make(chan error, 1)
	go func() { stopped <- inst.Close() }()
	// The shutdown has begun once the listener refuses connections.
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", inst.Addr(), time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	}, 5*time.Second, 5*time.Millisecond, "the listener closes")

	_, err = io.WriteString(conn, "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	require.NoError(t, err, "the request sent on a connection accepted before the shutdown is answered")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	assert.Contains(t, string(b), `"protocolVersion":"2025-11-25"`)
	_, err = rd.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the server closes the connection after the answer")
	select {
	case err := <-stopped:
		require.NoError(t, err, "a clean stop")
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

// TestShutdownServesTheAcceptQueue: a connection the kernel completed but
// the server had not accepted yet when its shutdown began (one in the
// listener's accept queue) is served, not reset. A balancer may have sent
// its request on it already; behind HAProxy the reset lost that request
// without an answer or a log line when the client's connection was kept
// alive, and under load the accept loop lags enough to meet it in a
// rolling restart. Here nothing accepts until the listener is closed, so
// every connection is still queued then.
func TestShutdownServesTheAcceptQueue(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dl := mcphttp.NewDrainListener(ln)
	const n = 3
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", ln.Addr().String()) // the kernel completes it; nothing accepts it yet
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		_, err = io.WriteString(c, "GET /queued HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		require.NoError(t, err)
		conns[i] = c
	}
	require.NoError(t, dl.Close())
	c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	if err == nil {
		_ = c.Close()
	}
	require.Error(t, err, "a new connection is refused once the listener is closed")

	var counted atomic.Int32
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "served") }),
		ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
			counted.Add(1)
			return ctx
		},
	}
	t.Cleanup(func() { _ = srv.Close() })
	served := make(chan error, 1)
	go func() { served <- srv.Serve(dl) }()
	mcphttp.WaitHanded(context.Background(), dl)
	assert.Equal(t, int32(n), counted.Load(), "the server has every queued connection once WaitHanded returns")
	for i, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err, "connection %d, queued when the listener closed, is answered", i)
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, "served", string(b))
	}
	require.ErrorIs(t, <-served, http.ErrServerClosed)
}

// TestShutdownClosesQueuedConnectionsNobodyTakes: when the server does not
// take the connections found queued (it is not accepting any more), the
// shutdown closes them after its grace rather than leaving them open.
func TestShutdownClosesQueuedConnectionsNobodyTakes(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dl := mcphttp.NewDrainListener(ln)
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, dl.Close())
	start := time.Now()
	mcphttp.WaitHanded(context.Background(), dl) // nothing serves dl
	assert.Less(t, time.Since(start), 3*time.Second, "the wait is bounded")
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the queued connection is closed, not left open")
}
