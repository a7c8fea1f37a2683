package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// EmbedOptions configure [Embed].
type EmbedOptions struct {
	// SessionAuth is the caller's auth data, for a server without
	// authentication: tools see it as Context.Session, and CanAccess
	// checks decide with it. Embed refuses it (with
	// [ErrSessionAuthWithAuth]) when the server has Options.Authenticate
	// or Options.Auth, whose check must run; give the caller's
	// credentials in Header instead.
	SessionAuth any
	// Header is added to every request of the session: the caller's
	// credentials for the server's Authenticate hook (an Authorization
	// header, an API key), or what your middleware reads (a tenant).
	Header http.Header
	// Middleware wraps the engine, as on the other transports, inside the
	// server's authentication.
	Middleware []func(http.Handler) http.Handler
	// Handler configures the engine.
	Handler *Options
	// ClientInfo is sent in initialize (in every request's _meta at
	// 2026-07-28). Default {Name: "embedded"}.
	ClientInfo mcp.Implementation
	// ProtocolVersion is the revision the session speaks. Empty or a
	// 2025-era revision: initialize (with Version20251125 when empty) and a
	// session, as a Streamable HTTP client has. [Version20260728]
	// (2026-07-28): no initialize and no session; Embed sends
	// server/discover, and every request carries the revision's _meta
	// (protocolVersion, clientInfo, clientCapabilities {}) and is served
	// as a 2026-07-28 request is over HTTP, minus the HTTP routing headers.
	ProtocolVersion mcp.Version
	// OnNotification, when set, receives every notification the server
	// sends (progress, log messages, streamed content, list changes).
	OnNotification func(method string, params json.RawMessage)
	// Client answers the server's sampling, elicitation and roots
	// requests; the session declares a capability for each handler set.
	// Without one, a tool that asks gets mcp.ErrCapability.
	Client ClientHandlers
	// Extensions are the extensions the session declares in its client
	// capabilities, each with its settings: {mcp.AppsExtension:
	// {"mimeTypes": [mcp.AppMIMEType]}} makes it a host of MCP Apps.
	Extensions map[string]any
}

// EmbeddedSession is an in-process MCP session: every call goes through
// the same handler chain as HTTP and stdio requests (so authentication,
// CanAccess, timeouts and middleware apply), without a network or pipes.
// It is safe for concurrent use.
type EmbeddedSession struct {
	h      *Handler
	sess   *inproc.Client
	opts   EmbedOptions
	nextID atomic.Int64
	cancel context.CancelFunc
	done   chan struct{}
}

// Embed starts an in-process session of srv. Close it when done.
//
// The server's authentication runs on every call, with opts.Header as the
// request's headers: when it refuses the caller, Embed (or the call)
// returns an *mcp.Error whose message says why ("Unauthorized: …").
func Embed(ctx context.Context, srv *mcp.Server, opts *EmbedOptions) (*EmbeddedSession, error) {
	var o EmbedOptions
	if opts != nil {
		o = *opts
	}
	if err := checkSessionAuth(srv, o.SessionAuth, "EmbedOptions"); err != nil {
		return nil, err
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "embedded", Version: "1.0.0"}
	}
	h := New(srv, o.Handler)
	chain := localChain(h, o.SessionAuth, o.Middleware)
	e := &EmbeddedSession{h: h, sess: inproc.New(chain.Then(h), o.Header), opts: o, done: make(chan struct{})}
	e.sess.Transport = inproc.TransportEmbedded
	if o.ProtocolVersion == mcp.Version20260728 {
		if err := e.Request(ctx, "server/discover", nil, nil); err != nil {
			_ = h.Close()
			return nil, err
		}
		e.cancel = func() {}
		close(e.done)
		return e, nil
	}
	version := o.ProtocolVersion
	if version == "" {
		version = mcp.Version20251125
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	err := e.Request(ctx, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    o.Client.capabilities(o.Extensions),
		"clientInfo":      o.ClientInfo,
	}, &res)
	if err != nil {
		_ = h.Close()
		return nil, err
	}
	e.sess.Post(ctx, jsonrpc.AppendNotification(nil, "notifications/initialized", nil), nil, "notifications/initialized", e.onMessage)
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
		e.reply(m) // EmbedOptions.Client's handlers, or -32601
	}
}

// Request sends any request and decodes its result into result (which
// may be nil). A JSON-RPC error is returned as an *mcp.Error.
func (e *EmbeddedSession) Request(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcphttp: encoding %s params: %w", method, err)
	}
	return e.request(ctx, method, p, result)
}

// request sends a request whose params are already encoded (nil or
// "null": none).
func (e *EmbeddedSession) request(ctx context.Context, method string, p []byte, result any) error {
	if string(p) == "null" {
		p = nil // no params: JSON-RPC forbids "params": null
	}
	if e.opts.ProtocolVersion != mcp.Version20260728 {
		return e.roundTrip(ctx, method, p, result)
	}
	p, err := e.withModernMeta(p)
	if err != nil {
		return fmt.Errorf("mcphttp: %s: %w", method, err)
	}
	// A 2026-07-28 call whose handler asks the client something ends its
	// round with an input-required result: answer and send it again.
	for range maxInputRounds {
		var raw json.RawMessage
		if err := e.roundTrip(ctx, method, p, &raw); err != nil {
			return err
		}
		var ir inputRequired
		if json.Unmarshal(raw, &ir) != nil || ir.ResultType != "input_required" {
			if result == nil {
				return nil
			}
			return json.Unmarshal(raw, result)
		}
		if p, err = e.withAnswers(ctx, method, p, &ir); err != nil {
			return err
		}
	}
	return fmt.Errorf("mcphttp: %s: still asking for input after %d rounds", method, maxInputRounds)
}

// roundTrip sends one request and decodes its result into result.
func (e *EmbeddedSession) roundTrip(ctx context.Context, method string, p []byte, result any) error {
	n := e.nextID.Add(1)
	id := strconv.AppendInt(make([]byte, 0, 20), n, 10)
	var resp *jsonrpc.Message
	e.sess.Post(ctx, jsonrpc.AppendRequest(make([]byte, 0, len(method)+len(p)+64), n, method, p), id, method, func(msg []byte) {
		// The answer is the response with this id; notifications and
		// server requests go to onMessage.
		m, err := jsonrpc.Decode(msg)
		if err == nil && m.IsResponse() && string(m.ID) == string(id) {
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

// withModernMeta adds to params the _meta members revision 2026-07-28
// requires of every request (members the caller set are kept).
func (e *EmbeddedSession) withModernMeta(params json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil || m == nil {
			return nil, fmt.Errorf("params must be a JSON object at protocol revision %s", mcp.Version20260728)
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
			return nil, fmt.Errorf("params._meta must be a JSON object")
		}
	}
	info, err := json.Marshal(e.opts.ClientInfo)
	if err != nil {
		return nil, err
	}
	caps, err := json.Marshal(e.opts.Client.capabilities(e.opts.Extensions))
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]json.RawMessage{
		metaProtocolVersion: json.RawMessage(`"` + string(mcp.Version20260728) + `"`),
		metaClientInfo:      info,
		metaClientCaps:      caps,
	} {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	m["_meta"] = appendObject(nil, meta)
	return appendObject(nil, m), nil
}

// toolParams encodes the params of tools/call (and prompts/get): name and
// arguments, without the map encoding/json would sort.
func toolParams(name string, args any) ([]byte, error) {
	a, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(name)+len(a)+32)
	b = append(b, `{"name":`...)
	b = jsonrpc.AppendString(b, name)
	b = append(b, `,"arguments":`...)
	b = append(b, a...)
	return append(b, '}'), nil
}

// callTool sends tools/call with args and decodes the result into result.
func (e *EmbeddedSession) callTool(ctx context.Context, name string, args any, result any) error {
	p, err := toolParams(name, args)
	if err != nil {
		return fmt.Errorf("mcphttp: encoding tools/call params: %w", err)
	}
	return e.request(ctx, "tools/call", p, result)
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
	if err := e.callTool(ctx, name, args, &res); err != nil {
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

// Complete asks for completions of one argument of a prompt (ref.Type
// "ref/prompt") or resource template ("ref/resource"): value is what the
// user typed so far, args the arguments already chosen (may be nil).
func (e *EmbeddedSession) Complete(ctx context.Context, ref mcp.CompletionRef, arg, value string, args map[string]string) (*mcp.CompletionResult, error) {
	params := map[string]any{"ref": ref, "argument": map[string]string{"name": arg, "value": value}}
	if len(args) > 0 {
		params["context"] = map[string]any{"arguments": args}
	}
	var res struct {
		Completion *mcp.CompletionResult `json:"completion"`
	}
	if err := e.Request(ctx, "completion/complete", params, &res); err != nil {
		return nil, err
	}
	if res.Completion == nil {
		return nil, fmt.Errorf("mcphttp: completion/complete: the result has no completion member")
	}
	return res.Completion, nil
}

// ErrToolFailed is returned (wrapped) by [CallToolAs] when the tool's
// result has IsError set; the result is returned too.
var ErrToolFailed = errors.New("mcphttp: the tool failed")

// ErrNoStructuredContent is returned (wrapped) by [CallToolAs] when the
// tool's result carries no structuredContent to decode.
var ErrNoStructuredContent = errors.New("mcphttp: the tool result has no structured content")

// CallToolAs calls a tool and decodes its structured output
// (structuredContent, as declared by the tool's output schema) into Out.
// The full result is returned too, its StructuredContent replaced by the
// decoded Out. A result with IsError set is an error wrapping
// [ErrToolFailed] (with the tool's text), one without structured content
// an error wrapping [ErrNoStructuredContent]; a JSON-RPC error is an
// *mcp.Error, as from CallTool.
func CallToolAs[Out any](ctx context.Context, e *EmbeddedSession, name string, args any) (Out, *mcp.ContentResult, error) {
	var out Out
	var raw json.RawMessage
	if err := e.callTool(ctx, name, args, &raw); err != nil {
		return out, nil, err
	}
	var res mcp.ContentResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return out, nil, fmt.Errorf("mcphttp: tools/call %q: %w", name, err)
	}
	if res.IsError {
		return out, &res, fmt.Errorf("%w: %q: %s", ErrToolFailed, name, res.Text())
	}
	var sc struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &sc); err != nil || len(sc.StructuredContent) == 0 || string(sc.StructuredContent) == "null" {
		return out, &res, fmt.Errorf("%w: %q", ErrNoStructuredContent, name)
	}
	if err := json.Unmarshal(sc.StructuredContent, &out); err != nil {
		return out, &res, fmt.Errorf("mcphttp: tools/call %q: decoding structured content into %T: %w", name, out, err)
	}
	res.StructuredContent = out
	return out, &res, nil
}
