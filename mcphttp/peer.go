package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/tracemeta"
)

// streamPeer sends on the session's GET stream; used for requests that
// belong to no client request (roots/list after initialization).
type streamPeer struct{ c *sessionState }

func (p streamPeer) Notify(ctx context.Context, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	b = tracemeta.Inject(b, tracemeta.Of(ctx, nil))
	p.c.enqueue(jsonrpc.AppendNotification(nil, method, b))
	return nil
}

func (p streamPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	params, err := traced(params, tracemeta.Of(ctx, nil))
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	return p.c.call(ctx, func(b []byte) error { p.c.enqueue(b); return nil }, method, params)
}

// requestPeer is the way back to the client of one request: its stream.
type requestPeer struct {
	c  *sessionState
	rs *responder
	// meta is the request's params._meta, whose trace context what is
	// sent for the request carries (tracemeta); nil when it had none.
	meta map[string]json.RawMessage
}

// trace is the trace context of what is sent for the request on behalf
// of ctx.
func (p *requestPeer) trace(ctx context.Context) tracemeta.Fields {
	return tracemeta.Of(ctx, p.meta)
}

func (p *requestPeer) Notify(ctx context.Context, method string, params any) error {
	if p.rs.noLogs && method == "notifications/message" {
		return nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	b = tracemeta.Inject(b, p.trace(ctx))
	return p.rs.event(jsonrpc.AppendNotification(make([]byte, 0, len(b)+64), method, b))
}

func (p *requestPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if p.c.ephemeral {
		return nil, mcp.ErrNoPeer
	}
	params, err := traced(params, p.trace(ctx))
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding %s params: %w", method, err)
	}
	return p.c.call(ctx, p.rs.event, method, params)
}

// traced returns params with the trace context f in its _meta, encoded;
// params as they are when f has none.
func traced(params any, f tracemeta.Fields) (any, error) {
	if f.Traceparent == "" {
		return params, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(tracemeta.Inject(b, f)), nil
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

// withTrace returns reqs with the trace context f in the _meta of each
// question's params (encoded), or reqs itself when f has none.
func withTrace(reqs map[string]mcp.InputRequest, f tracemeta.Fields) (map[string]mcp.InputRequest, error) {
	if f.Traceparent == "" {
		return reqs, nil
	}
	out := make(map[string]mcp.InputRequest, len(reqs))
	for k, r := range reqs {
		params := r.Params
		if params == nil {
			params = struct{}{}
		}
		p, err := traced(params, f)
		if err != nil {
			return nil, fmt.Errorf("mcphttp: encoding the params of input request %q: %w", k, err)
		}
		out[k] = mcp.InputRequest{Method: r.Method, Params: p}
	}
	return out, nil
}
