package mcphttp_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
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
	// returns when the kernel completed the handshake, and a connection still
	// in the listen backlog when the listener closes is reset, which is not
	// what this test is about.
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
