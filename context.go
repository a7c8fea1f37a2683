package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcpchain/mcp/internal/engine"
)

// requestInfo is what a transport knows about a request; see
// engine.RequestInfo.
type requestInfo = engine.RequestInfo[Implementation, ClientCapabilities, LogLevel, Root]

// Context is what a tool, resource loader or prompt loader knows about the
// request it serves and the way back to its client. It is valid only for
// the duration of the call.
type Context struct {
	// Session is the caller's auth data: what Authenticate or the auth
	// provider returned, or the fixed caller of a local transport
	// (mcphttp.StartOptions.SessionAuth, mcphttp.Local). A type
	// assertion gets it typed: c.Session.(*MyUser).
	Session any
	// SessionID identifies the client's session: the Mcp-Session-Id over
	// HTTP, and the session id the stdio transport and embedded sessions
	// assign to their one session (both set it). It is empty only on
	// stateless HTTP, where there is no session.
	SessionID string
	// RequestID is the JSON-RPC id of the request, as text.
	RequestID string
	// Client is the clientInfo the client sent in initialize.
	Client Implementation
	// ClientCapabilities are the capabilities the client declared.
	ClientCapabilities ClientCapabilities
	// ProtocolVersion is the negotiated MCP revision.
	ProtocolVersion Version
	// Log sends log messages to the client (notifications/message),
	// filtered by the level the client set with logging/setLevel.
	Log Logger

	ctx      context.Context
	req      requestRest
	toolName string
	// guardTop is the server whose tools/call this is: its guards run
	// for the tools of the servers mounted in it too (toolguard.go).
	guardTop *Server

	// keyMu guards keySeq, the per-kind counters of inputKey (input.go).
	keyMu  sync.Mutex
	keySeq map[string]int
	// keyParent, when set, counts the keys instead: the Context of the
	// request whose sampling loop runs this one's tool (sampling.go).
	keyParent *Context
}

type ctxKey struct{}

// requestRest is what a Context keeps of the transport's requestInfo
// besides its exported fields: a Context is made for every call, and
// keeping the whole requestInfo beside the fields copied from it made it
// twice as large.
type requestRest struct {
	progressToken any
	meta          map[string]json.RawMessage
	logLevel      LogLevel
	peer          engine.Peer
	roots         func(ctx context.Context) ([]Root, error)
	capsUnknown   bool
}

// newContext returns the Context for one request; ctx is the request's own
// context (engineView.NewContext).
func newContext(ctx context.Context, info requestInfo) *Context {
	c := &Context{
		Session: info.Session, SessionID: info.SessionID, RequestID: info.RequestID,
		Client: info.Client, ClientCapabilities: info.ClientCapabilities,
		ProtocolVersion: Version(info.ProtocolVersion), ctx: ctx,
		req: requestRest{progressToken: info.ProgressToken, meta: info.Meta, logLevel: info.LogLevel,
			peer: info.Peer, roots: info.Roots, capsUnknown: info.CapabilitiesUnknown},
	}
	c.Log = Logger{c: c}
	return c
}

// contextInfo returns the requestInfo c was made from, for a Context
// derived from it (a task's, with a peer of the task's; a sampling tool
// loop's tools').
func contextInfo(c *Context) requestInfo {
	return requestInfo{Session: c.Session, SessionID: c.SessionID, RequestID: c.RequestID, Client: c.Client,
		ClientCapabilities: c.ClientCapabilities, ProtocolVersion: string(c.ProtocolVersion),
		ProgressToken: c.req.progressToken, Meta: c.req.meta, LogLevel: c.req.logLevel, Peer: c.req.peer,
		Roots: c.req.roots, CapabilitiesUnknown: c.req.capsUnknown}
}

// withContext returns a copy of ctx that carries c, for [FromContext].
func withContext(ctx context.Context, c *Context) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// FromContext returns the MCP Context of the request ctx belongs to, or
// nil: the transport stores it in the context it passes to tools, loaders
// and interceptors, so code that gets only a context.Context can reach it.
func FromContext(ctx context.Context) *Context {
	c, _ := ctx.Value(ctxKey{}).(*Context)
	return c
}

// Progress is one progress report.
type Progress struct {
	// Progress is how far the work has come; it must grow with every report.
	Progress float64 `json:"progress"`
	// Total is the value Progress reaches at the end, when known (0: unknown).
	Total float64 `json:"total,omitempty"`
	// Message describes the current step, for the user.
	Message string `json:"message,omitempty"`
}

// Meta returns the member key of the request's params._meta as the client
// sent it (raw JSON), and whether it was there: metadata of the client's own
// (a trace context, a tenant, an idempotency key) for the tool, resource,
// prompt or completion that handles the request. At revision 2026-07-28
// _meta also carries the revision's own members
// ("io.modelcontextprotocol/…"). See [MetaValue] for a typed value.
func (c *Context) Meta(key string) (json.RawMessage, bool) {
	v, ok := c.req.meta[key]
	return v, ok
}

// MetaValue decodes the member key of the request's params._meta into a
// T; ok is false when the member is absent or does not decode as a T.
func MetaValue[T any](c *Context, key string) (v T, ok bool) {
	raw, found := c.Meta(key)
	if !found || json.Unmarshal(raw, &v) != nil {
		var zero T
		return zero, false
	}
	return v, true
}

// ReportProgress sends notifications/progress for the request. When the
// client sent no progress token it does nothing and returns
// [ErrNoProgressToken], which callers may ignore.
func (c *Context) ReportProgress(ctx context.Context, p Progress) error {
	if c.req.progressToken == nil {
		return ErrNoProgressToken
	}
	if c.req.peer == nil {
		return ErrNoPeer
	}
	return c.req.peer.Notify(ctx, "notifications/progress", struct {
		ProgressToken any `json:"progressToken"`
		Progress
	}{c.req.progressToken, p})
}

// StreamContent sends partial content of a running tool to the client as
// the notification notifications/tool/streamContent with params
// {"toolName": name, "content": [...]}, the extension the TypeScript
// fastmcp defines. Clients that do not know it ignore it; the tool's
// result still carries everything the client needs.
func (c *Context) StreamContent(ctx context.Context, content ...Content) error {
	if c.req.peer == nil {
		return ErrNoPeer
	}
	if content == nil {
		content = []Content{}
	}
	return c.req.peer.Notify(ctx, "notifications/tool/streamContent", struct {
		Content  []Content `json:"content"`
		ToolName string    `json:"toolName"`
	}{content, c.toolName})
}

// Roots returns the client's roots. It fails with [ErrCapability] when the
// client did not declare the roots capability. Over an input peer
// (revision 2026-07-28) it is a question under the key "roots-N", see
// [Context.Ask].
func (c *Context) Roots(ctx context.Context) ([]Root, error) {
	if c.ClientCapabilities.Roots == nil {
		return nil, ErrCapability
	}
	if ip, ok := c.req.peer.(inputPeer); ok {
		var res struct {
			Roots []Root `json:"roots"`
		}
		if err := askInput(ctx, c, ip, "roots", "roots/list", struct{}{}, &res); err != nil {
			return nil, err
		}
		return res.Roots, nil
	}
	if c.req.roots != nil {
		return c.req.roots(ctx)
	}
	return listRoots(ctx, c.req.peer)
}

// listRoots asks the client for its roots with roots/list.
func listRoots(ctx context.Context, p engine.Peer) ([]Root, error) {
	res, err := callPeer[struct {
		Roots []Root `json:"roots"`
	}](ctx, p, "roots/list", struct{}{})
	if err != nil {
		return nil, err
	}
	return res.Roots, nil
}

// askClientInto sends a server-to-client request that needs a declared
// capability and decodes its result into res, a pointer; over an input
// peer it is a question under the next key of kind. An
// elicitation/create is checked first (checkElicitation).
func askClientInto(ctx context.Context, c *Context, declared bool, kind, method string, params, res any) error {
	if !declared {
		return ErrCapability
	}
	if method == "elicitation/create" {
		if err := c.checkElicitation(params); err != nil {
			return err
		}
	}
	if ip, ok := c.req.peer.(inputPeer); ok {
		if params == nil {
			params = struct{}{}
		}
		return askInput(ctx, c, ip, kind, method, params, res)
	}
	return callPeerInto(ctx, c.req.peer, method, params, res)
}

// callPeer sends a server-to-client request and decodes its result as an
// R; it fails with [ErrNoPeer] when there is no way back to the client.
func callPeer[R any](ctx context.Context, p engine.Peer, method string, params any) (*R, error) {
	var res R
	if err := callPeerInto(ctx, p, method, params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// callPeerInto is callPeer decoding into res, a pointer.
func callPeerInto(ctx context.Context, p engine.Peer, method string, params, res any) error {
	if p == nil {
		return ErrNoPeer
	}
	raw, err := p.Call(ctx, method, params)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, res); err != nil {
		return fmt.Errorf("mcp: %s result: %w", method, err)
	}
	return nil
}

// Logger sends log messages to the client as notifications/message. Each
// method takes a message and optional data; the wire params are
// {"level": …, "logger": …, "data": {"message": msg, "context": data}}.
// The data is what log/slog takes: key/value pairs and slog.Attr values
// (groups included) become one object, so
//
//	c.Log.Info("order placed", "user", name, "items", 3)
//
// sends "context": {"user": name, "items": 3} (a key without a value is
// named !BADKEY, as in slog). A single value that is not an slog.Attr is
// sent as it is: c.Log.Info("cache warmed", map[string]int{"entries": 3}).
// Messages below the level the client set are not sent.
type Logger struct{ c *Context }

// Debug sends a debug message.
func (l Logger) Debug(msg string, data ...any) { l.send(LevelDebug, msg, data) }

// Info sends an info message.
func (l Logger) Info(msg string, data ...any) { l.send(LevelInfo, msg, data) }

// Warn sends a warning message.
func (l Logger) Warn(msg string, data ...any) { l.send(LevelWarning, msg, data) }

// Error sends an error message.
func (l Logger) Error(msg string, data ...any) { l.send(LevelError, msg, data) }

// Log sends a message at any MCP level.
func (l Logger) Log(level LogLevel, msg string, data ...any) { l.send(level, msg, data) }

func (l Logger) send(level LogLevel, msg string, data []any) {
	c := l.c
	if c == nil || c.req.peer == nil || !level.Enabled(c.req.logLevel) {
		return
	}
	payload := map[string]any{"message": msg}
	if len(data) > 0 {
		payload["context"] = logData(data)
	}
	params := LogMessage{Level: level, Data: payload}
	if c.toolName != "" {
		params.Logger = c.toolName
	}
	_ = c.req.peer.Notify(c.ctx, "notifications/message", params)
}

// logData is the "context" of a log message with data (see [Logger]).
func logData(data []any) any {
	if _, attr := data[0].(slog.Attr); len(data) == 1 && !attr {
		return data[0]
	}
	var r slog.Record
	r.Add(data...)
	obj := make(map[string]any, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		addAttr(obj, a)
		return true
	})
	return obj
}

// addAttr puts a, resolved, in obj: a group as an object of its own (an
// empty group is left out and a group without a key inlined, as slog's
// JSON handler does).
func addAttr(obj map[string]any, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() != slog.KindGroup {
		obj[a.Key] = v.Any()
		return
	}
	attrs := v.Group()
	if len(attrs) == 0 {
		return
	}
	into := obj
	if a.Key != "" {
		into = make(map[string]any, len(attrs))
		obj[a.Key] = into
	}
	for _, g := range attrs {
		addAttr(into, g)
	}
}
