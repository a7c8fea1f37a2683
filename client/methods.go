package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// maxPages bounds the pages a List method follows: a server whose cursor
// never ends does not keep the client in a loop.
const maxPages = 1000

// list follows a paginated list method's cursors and appends the items of
// member of every page.
func list[T any](ctx context.Context, c *Client, method, member string) ([]T, error) {
	var all []T
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var page map[string]json.RawMessage
		if err := c.cachedCall(ctx, method, cursor, params, &page); err != nil {
			return nil, err
		}
		var items []T
		if raw, ok := page[member]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("mcp client: the %s of %s from %s do not decode: %w", member, method, c.serverName(), err)
			}
		}
		all = append(all, items...)
		var next string
		if raw, ok := page["nextCursor"]; ok {
			_ = json.Unmarshal(raw, &next)
		}
		if next == "" {
			return all, nil
		}
		if next == cursor {
			return nil, fmt.Errorf("mcp client: %s from %s returned the same cursor twice", method, c.serverName())
		}
		cursor = next
	}
	return nil, fmt.Errorf("mcp client: %s from %s had more than %d pages", method, c.serverName(), maxPages)
}

// ListTools returns every tool of the server, following pagination.
// At revision 2026-07-28 a tool whose x-mcp-header annotations are
// invalid is left out (it could not be called as the revision requires),
// and the others' annotations are kept for CallTool's headers.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	tools, err := list[mcp.Tool](ctx, c, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	return c.keepTools(tools), nil
}

// CallOptions are the optional parts of a tools/call.
type CallOptions struct {
	// Progress, set, asks the server for progress reports and is called
	// with each. It runs on the client's reader: it must not block nor
	// call the client.
	Progress func(mcp.Progress)
	// Meta is sent as the request's _meta (a trace context, say). At
	// revision 2026-07-28 the client adds the members the revision
	// requires (protocolVersion, clientInfo, clientCapabilities, and
	// logLevel after SetLogLevel) unless Meta sets them.
	Meta map[string]any
	// AfterNotifications makes the call return only once the callbacks
	// of the notifications the server sent before its answer (log
	// messages, list changes) have run: a gateway passes a call's log
	// messages on before it answers the call.
	AfterNotifications bool
}

// CallTool calls a tool with args (any value that encodes as a JSON
// object, or nil) and returns its result. A tool that failed is a result
// with IsError set, not an error; an error is a failure of the call
// itself (an unknown tool, invalid arguments: the server's *mcp.Error). opts may be
// nil.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts *CallOptions) (*mcp.ContentResult, error) {
	var params any
	if opts == nil || opts.Meta == nil {
		// The common call, encoded as it goes (no map to build and sort).
		p, err := toolParams(name, args)
		if err != nil {
			return nil, fmt.Errorf("mcp client: encoding tools/call: %w", err)
		}
		params = toolCall{name: name, raw: p}
	} else {
		m := map[string]any{"name": name, "_meta": opts.Meta}
		if args != nil {
			m["arguments"] = args
		}
		params = m
	}
	var progress func(mcp.Progress)
	if opts != nil {
		progress = opts.Progress
		if opts.AfterNotifications {
			ctx = context.WithValue(ctx, afterNotesKey{}, true)
		}
	}
	var res mcp.ContentResult
	if err := c.callProgress(ctx, "tools/call", params, &res, progress); err != nil {
		return nil, err
	}
	return &res, nil
}

// toolParams encodes the params of tools/call: the name, and the
// arguments unless args is nil.
func toolParams(name string, args any) (json.RawMessage, error) {
	b := make([]byte, 0, len(name)+64)
	b = append(b, `{"name":`...)
	b = jsonrpc.AppendString(b, name)
	if args != nil {
		a, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"arguments":`...)
		b = append(b, a...)
	}
	return append(b, '}'), nil
}

// ErrToolFailed is wrapped by the error of [CallToolAs] when the tool
// returned a result with IsError set; the error's text is the result's.
var ErrToolFailed = errors.New("mcp client: the tool failed")

// CallToolAs calls a tool and decodes its structuredContent into a T (or,
// when the tool sent none, the text of its one text item, as JSON). A
// result with IsError set is an error wrapping [ErrToolFailed].
func CallToolAs[T any](ctx context.Context, c *Client, name string, args any) (T, error) {
	var out T
	res, err := c.CallTool(ctx, name, args, nil)
	if err != nil {
		return out, err
	}
	if res.IsError {
		return out, fmt.Errorf("%w: %s: %s", ErrToolFailed, name, res.Text())
	}
	var raw []byte
	if res.StructuredContent != nil {
		raw, err = json.Marshal(res.StructuredContent)
		if err != nil {
			return out, err
		}
	} else {
		raw = []byte(res.Text())
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("mcp client: the result of %s does not decode as %T: %w", name, out, err)
	}
	return out, nil
}

// ListResources returns every resource of the server.
func (c *Client) ListResources(ctx context.Context) ([]mcp.Resource, error) {
	return list[mcp.Resource](ctx, c, "resources/list", "resources")
}

// ListResourceTemplates returns every resource template of the server.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	return list[mcp.ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates")
}

// ReadResource reads the resource at uri. When the server answers that
// no resource has that URI, the error matches [mcp.ErrResourceNotFound]
// (errors.Is); errors.As still finds the *mcp.Error, with the URI in its
// Data.
func (c *Client) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var res mcp.ReadResourceResult
	if err := c.cachedCall(ctx, "resources/read", uri, map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks to hear of changes of the resource at uri
// (Options.OnResourceUpdated). At revision 2026-07-28, which has no
// resources/subscribe, the client's subscriptions/listen stream is opened
// again with uri among its resourceSubscriptions, and Subscribe returns
// once the server acknowledged it; the URI stays subscribed across
// reconnections. There it fails without asking when the server does not
// announce capabilities.resources.subscribe.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.rev20260728() {
		return c.subscribe2026(ctx, uri, true)
	}
	return c.call(ctx, "resources/subscribe", map[string]string{"uri": uri}, nil)
}

// Unsubscribe ends a subscription. At revision 2026-07-28 the
// subscriptions/listen stream is opened again without uri (or closed,
// when nothing is left to listen to).
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if c.rev20260728() {
		return c.subscribe2026(ctx, uri, false)
	}
	return c.call(ctx, "resources/unsubscribe", map[string]string{"uri": uri}, nil)
}

// ErrNotInRevision is wrapped by the error of a method the negotiated
// revision does not have.
var ErrNotInRevision = errors.New("mcp client: the negotiated revision has no such method")

// ListPrompts returns every prompt of the server.
func (c *Client) ListPrompts(ctx context.Context) ([]mcp.Prompt, error) {
	return list[mcp.Prompt](ctx, c, "prompts/list", "prompts")
}

// GetPrompt renders a prompt with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.PromptResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res mcp.PromptResult
	if err := c.call(ctx, "prompts/get", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of argument arg, whose value so far is
// value, of a prompt or resource template (ref); context holds the values
// of the other arguments already chosen (nil for none).
func (c *Client) Complete(ctx context.Context, ref mcp.CompletionRef, arg, value string, context map[string]string) (*mcp.CompletionResult, error) {
	params := map[string]any{"ref": ref, "argument": map[string]string{"name": arg, "value": value}}
	if context != nil {
		params["context"] = map[string]any{"arguments": context}
	}
	var res struct {
		Completion mcp.CompletionResult `json:"completion"`
	}
	if err := c.call(ctx, "completion/complete", params, &res); err != nil {
		return nil, err
	}
	return &res.Completion, nil
}

// SetLogLevel asks the server to send log messages at level and above
// (at revision 2026-07-28, every later request carries the level).
func (c *Client) SetLogLevel(ctx context.Context, level mcp.LogLevel) error {
	if c.rev20260728() {
		c.state.mu.Lock()
		c.state.logLevel = level
		c.state.mu.Unlock()
		return nil
	}
	return c.call(ctx, "logging/setLevel", map[string]any{"level": level}, nil)
}

// Ping checks that the server answers (at revision 2026-07-28, which has
// no ping, with server/discover).
func (c *Client) Ping(ctx context.Context) error {
	if c.rev20260728() {
		return c.call(ctx, "server/discover", nil, nil)
	}
	return c.call(ctx, "ping", nil, nil)
}

// RootsChanged tells the server that the roots (Options.Roots) changed.
// At revision 2026-07-28 the server asks for roots in each request that
// needs them, so there is nothing to tell: it returns nil.
func (c *Client) RootsChanged(ctx context.Context) error {
	if c.rev20260728() {
		return nil
	}
	return c.Notify(ctx, "notifications/roots/list_changed", nil)
}
