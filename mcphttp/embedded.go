package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/stdio"
)

// EmbedOptions configure [Embed].
type EmbedOptions struct {
	// SessionAuth is the caller's auth data: tools see it as
	// Context.Session, and CanAccess checks decide with it.
	SessionAuth any
	// Middleware wraps the engine, as on the other transports.
	Middleware []alice.Constructor
	// Handler configures the engine.
	Handler *Options
	// ClientInfo is sent in initialize. Default {Name: "embedded"}.
	ClientInfo mcp.Implementation
	// OnNotification, when set, receives every notification the server
	// sends (progress, log messages, streamed content, list changes).
	OnNotification func(method string, params json.RawMessage)
}

// EmbeddedSession is an in-process MCP session: every call goes through
// the same handler chain as HTTP and stdio requests (so CanAccess,
// timeouts and middleware apply), without a network or pipes. It is safe
// for concurrent use.
type EmbeddedSession struct {
	h      *Handler
	sess   *stdio.Session
	opts   EmbedOptions
	nextID atomic.Int64
	cancel context.CancelFunc
	done   chan struct{}
}

// Embed starts an in-process session of srv. Close it when done.
func Embed(ctx context.Context, srv *mcp.Server, opts *EmbedOptions) (*EmbeddedSession, error) {
	var o EmbedOptions
	if opts != nil {
		o = *opts
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "embedded", Version: "1.0.0"}
	}
	h := New(srv, o.Handler)
	chain := alice.New(middleware.Recover(srv.Logger()), middleware.WithAuth(o.SessionAuth)).Append(o.Middleware...)
	e := &EmbeddedSession{h: h, sess: stdio.NewSession(chain.Then(h), nil), opts: o, done: make(chan struct{})}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	err := e.Request(ctx, "initialize", map[string]any{
		"protocolVersion": LatestVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      o.ClientInfo,
	}, &res)
	if err != nil {
		_ = h.Close()
		return nil, err
	}
	e.sess.Send(ctx, jsonrpc.AppendNotification(nil, "notifications/initialized", nil), e.onMessage)
	lctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() {
		defer close(e.done)
		e.sess.Listen(lctx, e.onMessage)
	}()
	return e, nil
}

// Close ends the session.
func (e *EmbeddedSession) Close() error {
	e.sess.Close(context.Background())
	e.cancel()
	<-e.done
	return e.h.Close()
}

// onMessage handles what the server sends outside a response.
func (e *EmbeddedSession) onMessage(msg []byte) {
	m, err := jsonrpc.Decode(msg)
	if err != nil {
		return
	}
	switch {
	case m.IsNotification():
		if e.opts.OnNotification != nil {
			e.opts.OnNotification(m.Method, append(json.RawMessage(nil), m.Params...))
		}
	case m.IsRequest():
		// An embedded caller has no model, user or roots to offer.
		reply := jsonrpc.AppendError(nil, append([]byte(nil), m.ID...), mcp.CodeMethodNotFound,
			fmt.Sprintf("Method not found: the embedded session does not handle %q", m.Method), nil)
		go e.sess.Send(context.Background(), reply, func([]byte) {})
	}
}

// Request sends any request and decodes its result into result (which
// may be nil). A JSON-RPC error is returned as an *mcp.Error.
func (e *EmbeddedSession) Request(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcphttp: encoding %s params: %w", method, err)
	}
	if string(p) == "null" {
		p = nil // no params: JSON-RPC forbids "params": null
	}
	id := e.nextID.Add(1)
	var resp *jsonrpc.Message
	e.sess.Send(ctx, jsonrpc.AppendRequest(nil, id, method, p), func(msg []byte) {
		m, err := jsonrpc.Decode(msg)
		if err == nil && m.IsResponse() && string(m.ID) == fmt.Sprint(id) {
			resp = m
			return
		}
		e.onMessage(msg)
	})
	if err := ctx.Err(); err != nil {
		return err // the caller gave up: whatever the server sent is moot
	}
	if resp == nil {
		return fmt.Errorf("mcphttp: %s: no response", method)
	}
	if resp.Error != nil {
		var je mcp.Error
		if err := json.Unmarshal(resp.Error, &je); err != nil {
			return fmt.Errorf("mcphttp: %s: malformed error %s", method, resp.Error)
		}
		return &je
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(resp.Result, result)
}

// listAll follows nextCursor until the list ends.
func listAll[T any](ctx context.Context, e *EmbeddedSession, method, key string) ([]T, error) {
	var all []T
	cursor := ""
	for {
		var page map[string]json.RawMessage
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := e.Request(ctx, method, params, &page); err != nil {
			return nil, err
		}
		var items []T
		if err := json.Unmarshal(page[key], &items); err != nil {
			return nil, fmt.Errorf("mcphttp: %s: %w", method, err)
		}
		all = append(all, items...)
		cursor = ""
		if raw, ok := page["nextCursor"]; ok {
			_ = json.Unmarshal(raw, &cursor)
		}
		if cursor == "" {
			return all, nil
		}
	}
}

// ListTools lists the tools visible to the session.
func (e *EmbeddedSession) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	return listAll[mcp.Tool](ctx, e, "tools/list", "tools")
}

// CallTool calls a tool with args (any JSON-encodable value, usually a
// struct or map). A failing tool is a result with IsError set, not an error.
func (e *EmbeddedSession) CallTool(ctx context.Context, name string, args any) (*mcp.ContentResult, error) {
	var res mcp.ContentResult
	if err := e.Request(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListResources lists the static resources visible to the session.
func (e *EmbeddedSession) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	return listAll[mcp.Resource](ctx, e, "resources/list", "resources")
}

// ListResourceTemplates lists the resource templates visible to the session.
func (e *EmbeddedSession) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	return listAll[mcp.ResourceTemplate](ctx, e, "resources/templates/list", "resourceTemplates")
}

// ReadResource reads a resource by URI.
func (e *EmbeddedSession) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var res mcp.ReadResourceResult
	if err := e.Request(ctx, "resources/read", map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListPrompts lists the prompts visible to the session.
func (e *EmbeddedSession) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	return listAll[mcp.Prompt](ctx, e, "prompts/list", "prompts")
}

// GetPrompt builds a prompt.
func (e *EmbeddedSession) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.PromptResult, error) {
	var res mcp.PromptResult
	if err := e.Request(ctx, "prompts/get", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
