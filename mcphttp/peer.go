package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// streamPeer sends on the session's GET stream; used for requests that
// belong to no client request (roots/list after initialization).
type streamPeer struct{ c *sessionState }

func (p streamPeer) Notify(_ context.Context, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	p.c.enqueue(jsonrpc.AppendNotification(nil, method, b))
	return nil
}

func (p streamPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return p.c.call(ctx, func(b []byte) error { p.c.enqueue(b); return nil }, method, params)
}

// requestPeer is the way back to the client of one request: its stream.
type requestPeer struct {
	c  *sessionState
	rs *responder
}

func (p *requestPeer) Notify(_ context.Context, method string, params any) error {
	if p.rs.noLogs && method == "notifications/message" {
		return nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	return p.rs.event(jsonrpc.AppendNotification(make([]byte, 0, len(b)+64), method, b))
}

func (p *requestPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if p.c.ephemeral {
		return nil, mcp.ErrNoPeer
	}
	return p.c.call(ctx, p.rs.event, method, params)
}

// call sends a server-to-client request through send and waits for the
// client's answer. Every server-to-client request passes here, so this is
// where the roots policy is enforced.
func (c *sessionState) call(ctx context.Context, send func([]byte) error, method string, params any) (json.RawMessage, error) {
	if method == "roots/list" && c.h.rootsDisabled() {
		return nil, errRootsDisabled
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	ch := make(chan *jsonrpc.Message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("mcp: %s: the session has ended", method)
	}
	if c.pending == nil {
		c.pending = map[string]chan *jsonrpc.Message{}
	}
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	if err := send(jsonrpc.AppendRequest(nil, id, method, p)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			var e mcp.Error
			if err := json.Unmarshal(m.Error, &e); err != nil {
				return nil, fmt.Errorf("mcp: %s: malformed error from the client: %s", method, m.Error)
			}
			return nil, &e
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-c.doneCh():
		return nil, fmt.Errorf("mcp: %s: the session ended before the client answered", method)
	}
}
