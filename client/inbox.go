package client

import (
	"context"
	"fmt"
)

// inbox carries what an HTTP connection's readers (the answers to POSTs,
// the streams) hand the client, in order, until done is closed.
type inbox struct {
	in   chan []byte
	done chan struct{}
}

func newInbox() inbox { return inbox{in: make(chan []byte, 64), done: make(chan struct{})} }

// deliver passes msg on, or drops it once the connection has ended.
func (b inbox) deliver(msg []byte) {
	select {
	case b.in <- msg:
	case <-b.done:
	}
}

// recv is Conn.Recv: the next message, the ones delivered before the end
// included, then an error wrapping ErrClosed with why's reason (nil: none).
func (b inbox) recv(ctx context.Context, why func() error) ([]byte, error) {
	select {
	case m := <-b.in:
		return m, nil
	case <-b.done:
		select {
		case m := <-b.in:
			return m, nil
		default:
		}
		if err := why(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrClosed, err)
		}
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errorStatus is the outcome of a POST answered with an error status
// whose body (at most maxErrorBody bytes) is body: when the body is the
// JSON-RPC error answering the request (as revision 2026-07-28 sends its
// errors), it answers it, and the caller gets the *mcp.Error; else an
// *HTTPError with the body's start.
func (b inbox) errorStatus(status int, body []byte) error {
	if isErrorResponse(body) {
		b.deliver(body)
		return nil
	}
	if len(body) > 1024 {
		body = body[:1024]
	}
	return &HTTPError{Status: status, Body: string(body)}
}
