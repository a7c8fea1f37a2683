package mcphttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/session"
)

// errCancelled is the cause of a request's context when the client sent
// notifications/cancelled for it.
var errCancelled = errors.New("mcp: the client cancelled the request")

// call is what a method handler needs to know about a request.
type call struct {
	h    *Handler
	c    *conn
	r    *http.Request
	msg  *jsonrpc.Message
	rs   *responder
	auth any
	// round is a 2026-07-28 request's round of questions (mrtr.go); nil
	// for the 2025 revisions.
	round *inputRound
	// peer is the request's way back to the client (requestInfo.Peer),
	// kept here so that it is not an allocation of its own.
	peer requestPeer
	// ctx is the context of a session's request (handleRequest), here
	// for the same reason.
	ctx requestContext
}

type methodFunc func(h *Handler, ctx context.Context, k *call) (any, error)

var methods map[string]methodFunc

func init() {
	methods = map[string]methodFunc{
		"initialize":               (*Handler).doInitialize,
		"ping":                     func(*Handler, context.Context, *call) (any, error) { return struct{}{}, nil },
		"tools/list":               listMethod("tools", hook.listToolsJSON),
		"tools/call":               (*Handler).doToolsCall,
		"resources/list":           listMethod("resources", (*mcp.Server).ListResources),
		"resources/templates/list": listMethod("resourceTemplates", (*mcp.Server).ListResourceTemplates),
		"resources/read":           (*Handler).doResourcesRead,
		"resources/subscribe":      (*Handler).doSubscribe,
		"resources/unsubscribe":    (*Handler).doUnsubscribe,
		"prompts/list":             listMethod("prompts", (*mcp.Server).ListPrompts),
		"prompts/get":              (*Handler).doPromptsGet,
		"completion/complete":      (*Handler).doComplete,
		"logging/setLevel":         (*Handler).doSetLevel,
	}
}

// handleRequest runs one request and replies on rs. It is the engine's one
// place of panic recovery (doc.go): every request passes here, also those
// run on goroutines of their own (batches, resumable streams) where no
// HTTP middleware could catch a panic. A panic is logged with its stack
// and answered with a -32603 error.
func (h *Handler) handleRequest(r *http.Request, c *conn, msg *jsonrpc.Message, rs *responder) {
	ctx := r.Context()
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("mcp: panic in a request handler", "method", msg.Method, "panic", v, "stack", string(debug.Stack()))
			rs.reply(jsonrpc.AppendError(nil, msg.ID, mcp.CodeInternalError, "Internal error (see the server log)", nil))
		}
	}()
	k := &call{h: h, c: c, r: r, msg: msg, rs: rs, auth: mcp.AuthFromContext(r.Context())}
	// A request of a session can be cancelled by the client's
	// notifications/cancelled, so it runs under a context of its own that
	// the session tracks: k.ctx, a child of the HTTP request's context
	// made real only when needed (requestContext), inside k so that it is
	// no allocation of its own. The lone request of a throw-away session
	// (a stateless POST, a 2026-07-28 request) cannot be cancelled so: a
	// notification comes in another POST, with a throw-away session of
	// its own, and nothing else cancels the request before it returns.
	// Its HTTP request's context (the client going away, the server's
	// shutdown) is all it needs, which saves a stateless call the context
	// and the tracking (issue 10). A batch's requests share their session
	// with the batch's notifications, so they keep it.
	var rc *requestContext
	if !c.ephemeral || rs.batch {
		rc = &k.ctx
		rc.init(ctx)
		ctx = rc
		defer rc.end()
		key := msg.IDKey()
		if c.track(key, rc) {
			defer c.untrack(key)
		}
	}
	fn := methods[msg.Method]
	if c.modern {
		fn = modernMethod(msg.Method)
	}
	var (
		res any
		err error
	)
	if ic := hook.interceptorFrom(ctx); ic != nil {
		res, err = h.intercept(ctx, ic, fn, k)
	} else {
		res, err = h.exec(ctx, fn, k)
	}
	if rc != nil && rc.cancelledBy(errCancelled) {
		return // the client cancelled: no response (spec: cancellation)
	}
	if err != nil {
		h.replyError(c, msg, rs, err)
		return
	}
	h.replyResult(c, k, msg, rs, res)
}

// replyError answers a request with the error its handler returned. It
// and replyResult are kept out of handleRequest (go:noinline) so that the
// stack frame every request carries down to the tool stays small: a
// request whose stack outgrows the goroutine's first 8 KB pays a stack
// copy after every garbage collection, and the user's middleware and
// interceptors add their frames on top of ours.
//
//go:noinline
func (h *Handler) replyError(c *conn, msg *jsonrpc.Message, rs *responder, err error) {
	var je *mcp.Error
	if !errors.As(err, &je) {
		h.log.Error("mcp: request failed", "method", msg.Method, "error", err)
		je = &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: " + err.Error()}
	}
	if c.modern {
		rs.setStatus(modernStatus(je.Code))
	}
	var se mcp.HTTPStatusError
	if errors.As(err, &se) {
		rs.setHTTPError(se.HTTPStatus(), se.HTTPHeader())
	}
	rs.reply(jsonrpc.AppendError(nil, msg.ID, je.Code, je.Message, je.Data))
}

// replyResult answers a request with its result, encoded.
//
//go:noinline
func (h *Handler) replyResult(c *conn, k *call, msg *jsonrpc.Message, rs *responder, res any) {
	var (
		out []byte
		err error
	)
	if r, ok := res.(*mcp.ContentResult); ok && !c.modern {
		// A tool's result, the hot path: encoded straight into the
		// response's buffer.
		out, err = appendToolResult(jsonrpc.AppendResultHead(make([]byte, 0, toolResultSize(r)+len(msg.ID)+32), msg.ID), r)
		out = append(out, '}')
	} else {
		var b []byte
		b, err = marshalResult(res)
		if err == nil && c.modern {
			b, err = h.modernResult(msg.Method, k.auth, b)
		}
		out = jsonrpc.AppendResult(make([]byte, 0, len(b)+len(msg.ID)+32), msg.ID, b)
	}
	if err != nil {
		h.log.Error("mcp: encoding a result failed", "method", msg.Method, "error", err)
		rs.reply(jsonrpc.AppendError(nil, msg.ID, mcp.CodeInternalError, "Internal error: encoding the result failed", nil))
		return
	}
	rs.reply(out)
}

// exec runs a request's method: an unknown one is -32601, and a
// 2026-07-28 request runs as one round of a multi round-trip request.
func (h *Handler) exec(ctx context.Context, fn methodFunc, k *call) (any, error) {
	switch {
	case fn == nil:
		return nil, methodNotFound(k.msg.Method)
	case k.c.modern:
		return h.runRound(ctx, k, fn)
	}
	return fn(h, ctx, k)
}

func methodNotFound(method string) error {
	return &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: " + strictjson.Quote(method)}
}

// intercept runs a request through the interceptors of its context
// (mcp.WithInterceptor: telemetry.Recorder, ratelimit.New). The
// session's ID and version are read again once the handler returned, so
// that interceptors see what initialize negotiated.
func (h *Handler) intercept(ctx context.Context, ic mcp.Interceptor, fn methodFunc, k *call) (any, error) {
	sess := k.c.sess
	mc := &mcp.Call{Method: k.msg.Method, ID: k.msg.ID, Params: k.msg.Params, Auth: k.auth, ProtocolVersion: sess.ProtocolVersion(), Request: k.r, Logger: h.log}
	if !k.c.ephemeral {
		mc.SessionID = sess.ID
	}
	return ic(func(ctx context.Context, mc *mcp.Call) (any, error) {
		res, err := h.exec(ctx, fn, k)
		mc.ProtocolVersion = sess.ProtocolVersion()
		if !k.c.ephemeral {
			mc.SessionID = sess.ID
		}
		return res, err
	})(ctx, mc)
}

func marshalResult(v any) ([]byte, error) {
	switch r := v.(type) {
	case *mcp.ContentResult:
		return appendToolResult(make([]byte, 0, toolResultSize(r)), r)
	case json.RawMessage:
		return r, nil
	case compactResult:
		return r.MarshalJSON() // compact JSON already: no second pass through encoding/json
	}
	return json.Marshal(v)
}

// compactResult is a result of the engine's own whose MarshalJSON writes
// compact, valid JSON (a list page), so marshalResult calls it directly
// rather than through json.Marshal, which would scan and copy it again.
type compactResult interface {
	json.Marshaler
	compact()
}

// handleNotification acts on a client notification, through the
// interceptors of its context when there are any (mcp.Call.ID is nil; an
// interceptor's error drops the notification, which has no answer to
// carry it).
func (h *Handler) handleNotification(r *http.Request, c *conn, msg *jsonrpc.Message) {
	ic := hook.interceptorFrom(r.Context())
	if ic == nil {
		h.notification(r.Context(), c, msg)
		return
	}
	sess := c.sess
	mc := &mcp.Call{Method: msg.Method, Params: msg.Params, Auth: mcp.AuthFromContext(r.Context()), ProtocolVersion: sess.ProtocolVersion(), Request: r, Logger: h.log}
	if !c.ephemeral {
		mc.SessionID = sess.ID
	}
	_, err := ic(func(ctx context.Context, _ *mcp.Call) (any, error) {
		h.notification(ctx, c, msg)
		return nil, nil
	})(r.Context(), mc)
	if err != nil {
		h.log.Debug("mcp: an interceptor dropped a notification", "method", msg.Method, "error", err)
	}
}

func (h *Handler) notification(ctx context.Context, c *conn, msg *jsonrpc.Message) {
	switch msg.Method {
	case "notifications/initialized":
		c.sess.SetInitialized()
		// A failure is logged by save; the notification has no answer.
		_ = h.save(ctx, c, "notifications/initialized", func(rec *session.Record) { rec.Initialized = true })
		h.fetchRoots(c, false)
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if err := json.Unmarshal(msg.Params, &p); err != nil || p.RequestID == nil {
			h.log.Warn("mcp: malformed notifications/cancelled ignored", "params", strictjson.ForLogBytes(msg.Params))
			return
		}
		c.cancel(string(p.RequestID))
	case "notifications/roots/list_changed":
		c.invalidateRoots()
		if !h.fetchRoots(c, true) && !c.ephemeral {
			h.rootsChanged(c, nil)
		}
	}
}

// fetchRoots asks a client that declared roots for them, on the GET
// stream, and caches the answer; changed says the client reported a
// change, which the OnRootsChanged hook hears of once the answer is in.
// It reports whether it asked (not when the session is stateless, the
// client declared no roots, or the server's roots are disabled).
func (h *Handler) fetchRoots(c *conn, changed bool) bool {
	if c.ephemeral || c.sess.Capabilities().Roots == nil || h.rootsDisabled() {
		return false
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		go func() {
			select {
			case <-c.doneCh():
				cancel()
			case <-h.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		roots, err := hook.listRoots(ctx, streamPeer{c})
		if err != nil {
			h.log.Debug("mcp: roots/list failed", "session", c.sess.ID, "error", err)
		} else {
			c.setRoots(roots)
		}
		if changed {
			h.rootsChanged(c, roots)
		}
	}()
	return true
}

// onChange turns registry changes into notifications on every initialized
// session's GET stream.
func (h *Handler) onChange(ch change) {
	h.publishModern(ch)
	var method string
	switch ch.Kind {
	case changeTools:
		method = "notifications/tools/list_changed"
	case changeResources:
		method = "notifications/resources/list_changed"
	case changePrompts:
		method = "notifications/prompts/list_changed"
	case changeResourceUpdated:
		method = "notifications/resources/updated"
	case changeLog:
		method = "notifications/message"
	default:
		return
	}
	var msg []byte
	switch ch.Kind {
	case changeResourceUpdated:
		p, _ := json.Marshal(map[string]string{"uri": ch.URI})
		msg = jsonrpc.AppendNotification(nil, method, p)
	case changeLog:
		p, err := json.Marshal(ch.Log)
		if err != nil {
			h.log.Error("mcp: a log message for the clients does not encode as JSON", "error", err)
			return
		}
		msg = jsonrpc.AppendNotification(nil, method, p)
	default:
		msg = jsonrpc.AppendNotification(nil, method, nil)
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, c := range h.conns {
		if !c.sess.Initialized() {
			continue
		}
		if ch.Kind == changeResourceUpdated && !c.sess.Subscribed(ch.URI) {
			continue
		}
		if ch.Kind == changeLog && !ch.Log.Level.Enabled(c.sess.LogLevel()) {
			continue
		}
		c.enqueue(msg)
	}
}

// decodeParams decodes a request's params into v strictly: a member whose
// name matches a field of v only when case is ignored ({"Name": …} next
// to, or instead of, "name") is -32602 naming it, so that what a gateway
// reads as params.name is what runs. Syntax, depth and duplicate members
// were refused when the message was decoded (jsonrpc.Decode ran
// strictjson.Check over all of it), so this is the one decode of params.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := strictjson.Unmarshal(raw, v); err != nil {
		// encoding/json's messages may quote the client's input (a map
		// key in a field path): cap them.
		return &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: " + strictjson.Clip(err.Error(), 4*strictjson.MaxQuoted)}
	}
	return nil
}

func (h *Handler) doInitialize(ctx context.Context, k *call) (any, error) {
	p, err := decodeInitialize(k.msg.Params)
	if err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: initialize needs "protocolVersion"`}
	}
	version := p.ProtocolVersion
	if !slices.Contains(supportedVersions, version) {
		version = Version20251125
	}
	k.c.sess.Init(version, p.ClientInfo, p.Capabilities, k.auth)
	if !k.c.ephemeral {
		if err := h.register(ctx, k.c); err != nil {
			return nil, err
		}
	}
	// A stateless handler has no stream to send list changes and resource
	// updates on: it does not promise them (docs/deploy.md).
	return h.initResult(version, !k.c.ephemeral)
}

// newInitializeResult is the result of initialize for version; streams
// says the session has streams for list changes and resource updates.
func (h *Handler) newInitializeResult(version string, streams bool) initializeResult {
	o := h.srv.Options()
	return initializeResult{
		ProtocolVersion: version,
		Capabilities: serverCapabilities{
			Tools:       listChanged{streams},
			Resources:   resourcesCap{Subscribe: streams, ListChanged: streams},
			Prompts:     listChanged{streams},
			Logging:     struct{}{},
			Completions: struct{}{},
		},
		ServerInfo:   mcp.Implementation{Name: o.Name, Title: o.Title, Version: o.Version},
		Instructions: o.Instructions,
	}
}

type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    serverCapabilities `json:"capabilities"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

type serverCapabilities struct {
	Tools       listChanged  `json:"tools"`
	Resources   resourcesCap `json:"resources"`
	Prompts     listChanged  `json:"prompts"`
	Logging     struct{}     `json:"logging"`
	Completions struct{}     `json:"completions"`
}

type listChanged struct {
	ListChanged bool `json:"listChanged"`
}

type resourcesCap struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

// paginate returns one page of items after the cursor.
func paginate[T any](items []T, cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 || n > len(items) {
			return nil, "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("Invalid params: cursor %s is not one this server issued", strictjson.Quote(cursor))}
		}
		start = n
	}
	end := min(start+size, len(items))
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return items[start:end], next, nil
}

type listParams struct {
	Cursor string `json:"cursor"`
}

// listMethod is the handler of a list method (tools/list and the like):
// the items visible to the caller, one page after params.cursor, under
// key.
func listMethod[T any](key string, list func(*mcp.Server, context.Context, any) []T) methodFunc {
	return func(h *Handler, _ context.Context, k *call) (any, error) {
		var p listParams
		if err := decodeParams(k.msg.Params, &p); err != nil {
			return nil, err
		}
		page, next, err := paginate(list(h.srv, k.r.Context(), k.auth), p.Cursor, h.opts.PageSize)
		if err != nil {
			return nil, err
		}
		return listPage[T]{key: key, items: page, next: next}, nil
	}
}

// listPage is one page of a list result: {key: [items], "nextCursor": …}.
type listPage[T any] struct {
	key   string
	items []T
	next  string
}

func (listPage[T]) compact() {}

// MarshalJSON implements json.Marshaler.
func (p listPage[T]) MarshalJSON() ([]byte, error) {
	items := p.items
	if items == nil {
		items = []T{} // an empty list is [], never null
	}
	var ib []byte
	if raw, ok := any(items).([]json.RawMessage); ok {
		ib = appendRawList(make([]byte, 0, rawLen(raw)), raw) // encoded once (tools)
	} else {
		var err error
		if ib, err = json.Marshal(items); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, len(ib)+len(p.key)+len(p.next)+32)
	b = jsonrpc.AppendString(append(b, '{'), p.key)
	b = append(append(b, ':'), ib...)
	if p.next != "" {
		b = jsonrpc.AppendString(append(b, `,"nextCursor":`...), p.next)
	}
	return append(b, '}'), nil
}

// appendRawList appends items as a JSON array.
func appendRawList(b []byte, items []json.RawMessage) []byte {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

func rawLen(items []json.RawMessage) int {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	return n
}

type requestMeta struct {
	ProgressToken json.RawMessage `json:"progressToken"`
}

// context builds the tool's mcp.Context for a request.
func (h *Handler) context(ctx context.Context, k *call, meta *requestMeta) *mcp.Context {
	sess := k.c.sess
	info := requestInfo{
		Session:            k.auth,
		SessionID:          sess.ID,
		RequestID:          idText(k.msg.ID),
		Client:             sess.Client(),
		ClientCapabilities: sess.Capabilities(),
		ProtocolVersion:    sess.ProtocolVersion(),
		LogLevel:           sess.LogLevel(),
	}
	if info.Session == nil {
		info.Session = sess.Auth()
	}
	if meta != nil && len(meta.ProgressToken) > 0 && string(meta.ProgressToken) != "null" {
		info.ProgressToken = meta.ProgressToken
	}
	k.peer = requestPeer{c: k.c, rs: k.rs}
	peer := &k.peer
	info.Peer = peer
	if k.round != nil {
		info.Peer = &inputPeer{requestPeer: peer, round: k.round}
	}
	if !k.c.ephemeral {
		info.Roots = func(ctx context.Context) ([]mcp.Root, error) { return k.c.cachedRoots(ctx, peer) }
	}
	return hook.newContext(ctx, info)
}

func idText(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return s
		}
	}
	return string(id)
}

func (h *Handler) doToolsCall(ctx context.Context, k *call) (any, error) {
	if name, args, ok := scanToolsCall(k.msg.Params); ok && name != "" {
		mc := h.context(ctx, k, nil)
		return hook.callTool(h.srv, hook.withContext(ctx, mc), mc, name, args)
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      *requestMeta    `json:"_meta"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: tools/call needs "name"`}
	}
	if res, ok, err := h.callAsTask(ctx, k, p.Name, p.Arguments, p.Meta); ok {
		return res, err
	}
	mc := h.context(ctx, k, p.Meta)
	return hook.callTool(h.srv, hook.withContext(ctx, mc), mc, p.Name, p.Arguments)
}

func (h *Handler) doResourcesRead(ctx context.Context, k *call) (any, error) {
	var p struct {
		URI  string       `json:"uri"`
		Meta *requestMeta `json:"_meta"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: resources/read needs "uri"`}
	}
	mc := h.context(ctx, k, p.Meta)
	return hook.readResource(h.srv, hook.withContext(ctx, mc), mc, p.URI)
}

func (h *Handler) doSubscribe(ctx context.Context, k *call) (any, error) {
	return h.subscription(ctx, k, true)
}

func (h *Handler) doUnsubscribe(ctx context.Context, k *call) (any, error) {
	return h.subscription(ctx, k, false)
}

func (h *Handler) subscription(ctx context.Context, k *call, on bool) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: "uri" is required`}
	}
	if err := h.save(ctx, k.c, "the subscription", func(r *session.Record) {
		r.Subscriptions = slices.DeleteFunc(r.Subscriptions, func(u string) bool { return u == p.URI })
		if on {
			r.Subscriptions = append(r.Subscriptions, p.URI)
			slices.Sort(r.Subscriptions)
		}
	}); err != nil {
		return nil, err
	}
	if on {
		k.c.sess.Subscribe(p.URI)
	} else {
		k.c.sess.Unsubscribe(p.URI)
	}
	return struct{}{}, nil
}

func (h *Handler) doPromptsGet(ctx context.Context, k *call) (any, error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
		Meta      *requestMeta      `json:"_meta"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: prompts/get needs "name"`}
	}
	mc := h.context(ctx, k, p.Meta)
	return hook.getPrompt(h.srv, hook.withContext(ctx, mc), mc, p.Name, p.Arguments)
}

func (h *Handler) doComplete(ctx context.Context, k *call) (any, error) {
	var p struct {
		Ref      mcp.CompletionRef `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	mc := h.context(ctx, k, nil)
	res, err := hook.complete(h.srv, hook.withContext(ctx, mc), mc, p.Ref, p.Argument.Name, p.Argument.Value, p.Context.Arguments)
	if err != nil {
		return nil, err
	}
	return struct {
		Completion *mcp.CompletionResult `json:"completion"`
	}{res}, nil
}

func (h *Handler) doSetLevel(ctx context.Context, k *call) (any, error) {
	var p struct {
		Level mcp.LogLevel `json:"level"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if !p.Level.Valid() {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("Invalid params: %s is not a log level (want debug, info, notice, warning, error, critical, alert or emergency)", strictjson.Quote(string(p.Level)))}
	}
	if err := h.save(ctx, k.c, "the log level", func(r *session.Record) { r.LogLevel = p.Level }); err != nil {
		return nil, err
	}
	k.c.sess.SetLogLevel(p.Level)
	return struct{}{}, nil
}
