package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/sampling"
)

// serve answers one request from the server with the handler of Options,
// or with -32601 when there is none. The handler's context ends with
// Close, and when the server cancels the request.
func (c *Client) serve(ctx context.Context, m *message) {
	result, err := c.answer(ctx, m)
	c.reply(m, result, err)
}

// answer runs the handler of Options for a request of the server: on a
// session (serve), or in an input-required result of 2026-07-28.
func (c *Client) answer(ctx context.Context, m *message) (any, error) {
	switch m.Method {
	case "ping":
		return struct{}{}, nil
	case "sampling/createMessage":
		if c.opts.Sample == nil {
			return nil, errNoHandler
		}
		var p sampling.Request
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params: " + err.Error()}
		}
		return c.opts.Sample(ctx, &p)
	case "elicitation/create":
		var p elicit.Params
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params: " + err.Error()}
		}
		handle := c.opts.Elicit
		if p.Mode == "url" {
			handle = c.opts.ElicitURL
		}
		if handle == nil {
			return nil, errNoHandler
		}
		if p.Mode == "url" {
			// The application opens what it is handed: a script, a local
			// file or a disguised host never gets that far.
			if err := eliciturl.Check(p.URL); err != nil {
				return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params: " + err.Error() + "; it was not shown to the user"}
			}
		}
		return handle(ctx, &p)
	case "roots/list":
		if c.opts.Roots == nil {
			return nil, errNoHandler
		}
		roots, err := c.opts.Roots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []mcp.Root{}
		}
		return map[string]any{"roots": roots}, nil
	}
	return nil, errNoHandler
}

var errNoHandler = errors.New("no handler")

// reply sends the answer to the server's request m.
func (c *Client) reply(m *message, result any, err error) {
	var b []byte
	if err == nil {
		res, merr := json.Marshal(result)
		if merr == nil {
			b = jsonrpc.AppendResult(nil, m.ID, res)
		} else {
			err = fmt.Errorf("the client's answer does not encode: %w", merr)
		}
	}
	if re := asRPCError(err); re != nil {
		b = jsonrpc.AppendError(nil, m.ID, re.Code, re.Message, re.Data)
	} else if errors.Is(err, errNoHandler) {
		b = jsonrpc.AppendError(nil, m.ID, mcp.CodeMethodNotFound, "method not found: the client does not handle "+m.Method, nil)
	} else if err != nil {
		b = jsonrpc.AppendError(nil, m.ID, mcp.CodeInternalError, err.Error(), nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	defer cancel()
	if err := c.conn.Send(ctx, b); err != nil {
		c.log.Warn("mcp client: answering the server's request failed", "method", m.Method, "error", err)
	}
}

// runCallbacks runs the callbacks of the notifications read, in order,
// until the reader ends.
func (c *Client) runCallbacks() {
	defer close(c.notesDone)
	defer c.noted.finish()
	for {
		select {
		case m, ok := <-c.notes:
			if !ok {
				return
			}
			c.notification(m)
			c.noted.done()
		case <-c.resyncs:
			c.resyncMu.Lock()
			ms := c.resynced
			c.resynced = nil
			c.resyncMu.Unlock()
			for _, m := range ms {
				c.notification(m) // not counted: the reader did not queue it
			}
		}
	}
}

// cancelled cancels the handler of the server's request that
// notifications/cancelled names.
func (c *Client) cancelled(m *message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	if id, ok := idOf(p.RequestID); ok && c.listenCancelled(id) {
		return
	}
	c.mu.Lock()
	cancel := c.serving[string(p.RequestID)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// progressed calls the progress callback of the call the notification's
// token names. It runs on the reader, so that every report of a call
// comes before the call returns.
func (c *Client) progressed(m *message) {
	var p struct {
		Token json.RawMessage `json:"progressToken"`
		mcp.Progress
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	var fn func(mcp.Progress)
	if key, ok := idOf(p.Token); ok {
		c.mu.Lock()
		fn = c.progress[key]
		c.mu.Unlock()
	}
	if fn != nil {
		fn(p.Progress)
	}
	if c.opts.OnNotification != nil {
		c.queue(m)
	}
}

// notification passes a notification from the server to the callbacks.
func (c *Client) notification(m *message) {
	o := &c.opts
	switch m.Method {
	case "notifications/tools/list_changed":
		call(o.OnToolsChanged)
	case "notifications/resources/list_changed":
		call(o.OnResourcesChanged)
	case "notifications/prompts/list_changed":
		call(o.OnPromptsChanged)
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(m.Params, &p) == nil && o.OnResourceUpdated != nil {
			o.OnResourceUpdated(p.URI)
		}
	case "notifications/message":
		var p mcp.LogMessage
		if json.Unmarshal(m.Params, &p) == nil && o.OnLog != nil {
			o.OnLog(p)
		}
	case "notifications/tasks/status":
		c.taskStatusNoted(m.Params) // tasks.go
	}
	if o.OnNotification != nil && !m.local {
		o.OnNotification(m.Method, m.Params)
	}
}

func call(fn func()) {
	if fn != nil {
		fn()
	}
}
