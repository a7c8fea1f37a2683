package client

import (
	"context"
	"errors"
)

// A Transport opens connections to one MCP server: [Command] spawns a
// server and speaks to it over stdio, [Stdio] uses any byte stream, and
// [HTTP] speaks Streamable HTTP.
type Transport interface {
	// Connect opens a connection; ctx bounds the opening only.
	Connect(ctx context.Context) (Conn, error)
}

// A Conn carries JSON-RPC messages between a client and one server. Each
// message is one JSON value (an object; never a batch from the client).
// A Conn is used by one Client: Send may be called concurrently, Recv
// from one goroutine.
type Conn interface {
	// Send delivers one message to the server. Over HTTP the answer to a
	// request, and what the server sends with it, arrive through Recv.
	Send(ctx context.Context, msg []byte) error
	// Recv returns the next message from the server, or an error wrapping
	// ErrClosed once the connection has ended.
	Recv(ctx context.Context) ([]byte, error)
	// Close ends the connection (over HTTP, the session too).
	Close() error
}

// ErrClosed is returned by calls on a connection or client that has
// ended, closed by the client or by the server.
var ErrClosed = errors.New("mcp client: connection closed")

// versioned is implemented by a Conn whose requests carry the negotiated
// protocol revision (Streamable HTTP's MCP-Protocol-Version header): the
// client tells it the revision once initialize has answered.
type versioned interface {
	setProtocolVersion(v string)
}

// awaiter is implemented by a Conn that must know whether the client
// still waits for a request's response (Streamable HTTP: a resumed stream
// that ends empty is over once its request is): the client gives it its
// own pending requests before the first Send.
type awaiter interface {
	setAwaited(func(id int64) bool)
}

// listener is implemented by a Conn that opens a stream of its own for
// what the server sends outside any request (Streamable HTTP's GET): the
// client starts it once the session is initialized.
type listener interface {
	listen()
}

// maxMessage bounds one message from the server (a line of stdio, an HTTP
// body, an SSE event): a server that sends more gets the connection
// closed, not the client's memory.
const maxMessage = 32 << 20
