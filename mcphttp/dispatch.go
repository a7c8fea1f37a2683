package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"runtime/debug"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
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
	c    *sessionState
	r    *http.Request
	msg  *jsonrpc.Message
	rs   *responder
	auth any
	// round is a 2026-07-28 request's round of questions (rev20260728_mrtr.go); nil
	// for the 2025 revisions.
	round *inputRound
	// peer is the request's way back to the client (requestInfo.Peer),
	// kept here so that it is not an allocation of its own.
	peer requestPeer
	// ctx is the context of a session's request (handleRequest), here
	// for the same reason.
	ctx requestContext
	// cache is the caching hint a 2026-07-28 list, read or discover
	// decided (rev20260728Result sends it), here for the same reason.
	cache engine.Cache
}

// methodFunc runs one method of a request.
type methodFunc func(h *Handler, ctx context.Context, k *call) (any, error)

// methodSpec is one method the engine serves, with what sets it apart.
type methodSpec struct {
	// run is the handler.
	run methodFunc
	// eras are the revisions that have the method; in the others it is
	// unknown (-32601, and 404 at 2026-07-28).
	eras era
	// cached: at 2026-07-28 the result carries the caching fields ttlMs
	// and cacheScope (SEP-2549).
	cached bool
	// rounds: at 2026-07-28 a round of the request may end with an
	// input-required result (rev20260728_mrtr.go); other methods' rounds
	// refuse questions.
	rounds bool
	// named is the member of params a 2026-07-28 request's Mcp-Name
	// header must equal ("" when the method has none).
	named string
	// ext is the extension the method belongs to: unknown (-32601) on a
	// server that does not advertise it, so a client sees the methods
	// exactly when the capabilities declare the extension.
	ext string
}

// era is a set of protocol revisions.
type era uint8

const (
	era2025  era = 1 << iota // 2024-11-05 to 2025-11-25, in sessions
	era2026                  // 2026-07-28, per request
	bothEras = era2025 | era2026
)

// methodTable is every method of the protocol and of the extensions the
// engine implements (docs/architecture.md, "The method table"). Revision
// 2026-07-28 removed initialize, ping, logging/setLevel and
// resources/(un)subscribe and added server/discover; the tasks of
// 2025-11-25 (ext_tasks25.go) and of 2026-07-28 (ext_tasks.go) share
// two names. Methods registered with mcp.Server.AddExtension are looked
// up after it.
var methodTable = map[string]methodSpec{
	"initialize":            {run: (*Handler).doInitialize, eras: era2025},
	"ping":                  {run: doPing, eras: era2025},
	"logging/setLevel":      {run: (*Handler).doSetLevel, eras: era2025},
	"resources/subscribe":   {run: (*Handler).doSubscribe, eras: era2025},
	"resources/unsubscribe": {run: (*Handler).doUnsubscribe, eras: era2025},
	"server/discover":       {run: (*Handler).doDiscover, eras: era2026, cached: true},

	"tools/list":               {run: (*Handler).doToolsList, eras: bothEras, cached: true},
	"tools/call":               {run: (*Handler).doToolsCall, eras: bothEras, rounds: true, named: "name"},
	"resources/list":           {run: listMethod("resources", serverOps.ListResources), eras: bothEras, cached: true},
	"resources/templates/list": {run: listMethod("resourceTemplates", serverOps.ListResourceTemplates), eras: bothEras, cached: true},
	"resources/read":           {run: (*Handler).doResourcesRead, eras: bothEras, cached: true, rounds: true, named: "uri"},
	"prompts/list":             {run: listMethod("prompts", serverOps.ListPrompts), eras: bothEras, cached: true},
	"prompts/get":              {run: (*Handler).doPromptsGet, eras: bothEras, rounds: true, named: "name"},
	"completion/complete":      {run: (*Handler).doComplete, eras: bothEras},

	// The skills extension (ext_skills.go).
	"skills/list":              {run: listMethod("skills", serverOps.ListSkills), eras: bothEras, cached: true, ext: mcp.SkillsExtension},
	"skills/get":               {run: (*Handler).doSkillsGet, eras: bothEras, cached: true, ext: mcp.SkillsExtension},
	"resources/directory/read": {run: (*Handler).doDirectoryRead, eras: bothEras, cached: true, ext: mcp.SkillsExtension},

	// The tasks of 2025-11-25 and of 2026-07-28.
	"tasks/get":    {run: byEra(tasks25Only((*Handler).doTasksGet25), (*Handler).doTasksGet), eras: bothEras, named: "taskId"},
	"tasks/cancel": {run: byEra(tasks25Only((*Handler).doTasksCancel25), (*Handler).doTasksCancel), eras: bothEras, named: "taskId"},
	"tasks/result": {run: tasks25Only((*Handler).doTasksResult25), eras: era2025},
	"tasks/list":   {run: tasks25Only((*Handler).doTasksList25), eras: era2025},
	"tasks/update": {run: (*Handler).doTasksUpdate, eras: era2026, named: "taskId"},
}

// byEra runs v2025 in a 2025-era session and v2026 for a 2026-07-28
// request: one name, two methods.
func byEra(v2025, v2026 methodFunc) methodFunc {
	return func(h *Handler, ctx context.Context, k *call) (any, error) {
		if k.c.rev20260728 {
			return v2026(h, ctx, k)
		}
		return v2025(h, ctx, k)
	}
}

func doPing(*Handler, context.Context, *call) (any, error) { return struct{}{}, nil }

// lookupMethod returns what runs method in the request's era, nil for an
// unknown method or one its era lacks: the method table's, else an
// extension's (extensions.go), inside the extensions' wrappers of it.
func (h *Handler) lookupMethod(method string, rev20260728 bool) methodFunc {
	spec, ok := methodTable[method]
	if !ok {
		return h.wrapMethod(method, h.extensionMethod(method))
	}
	in := era2025
	if rev20260728 {
		in = era2026
	}
	switch {
	case spec.eras&in == 0:
		return nil
	case spec.ext != "" && !h.ops.Offers(spec.ext):
		return notInExtension(spec.ext)
	}
	return h.wrapMethod(method, spec.run)
}

// notInExtension answers -32601 for a method of an extension the server
// does not offer.
func notInExtension(ext string) methodFunc {
	return func(_ *Handler, _ context.Context, k *call) (any, error) {
		return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: " + strictjson.Quote(k.msg.Method) +
			" belongs to the extension " + ext + ", which this server does not offer"}
	}
}

// caller is who a list or lookup of the request is for (ext_apps.go
// says who does not see apps).
func (k *call) caller() engine.Caller {
	who := engine.Caller{Auth: k.auth, SessionID: k.c.sess.ID, NoApps: k.h.ops.Offers(apps.Extension) && !k.capsUnknown() && !k.c.sess.Capabilities().SupportsApps()}
	if k.c.rev20260728 {
		who.Cache = &k.cache
	}
	return who
}

// handleRequest runs one request and replies on rs. It is the engine's one
// place of panic recovery (docs/architecture.md, "Panics"): every request passes here, also those
// run on goroutines of their own (batches, resumable streams) where no
// HTTP middleware could catch a panic. A panic is logged with its stack
// and answered with a -32603 error.
func (h *Handler) handleRequest(r *http.Request, c *sessionState, msg *jsonrpc.Message, rs *responder) {
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
	// and the tracking. A batch's requests share their session
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
	fn := h.lookupMethod(msg.Method, c.rev20260728)
	var (
		res any
		err error
	)
	if ic := h.ops.Interceptor(ctx); ic != nil {
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

// replyError answers a request with the error its handler returned.
func (h *Handler) replyError(c *sessionState, msg *jsonrpc.Message, rs *responder, err error) {
	var je *mcp.Error
	if !errors.As(err, &je) {
		h.log.Error("mcp: request failed", "method", msg.Method, "error", err)
		je = &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: " + err.Error()}
	}
	if c.rev20260728 {
		rs.setStatus(rev20260728Status(je.Code))
	}
	var se mcp.HTTPStatusError
	if errors.As(err, &se) {
		rs.setHTTPError(se.HTTPStatus(), se.HTTPHeader())
	}
	rs.reply(jsonrpc.AppendError(nil, msg.ID, je.Code, je.Message, je.Data))
}

// replyResult answers a request with its result, encoded.
func (h *Handler) replyResult(c *sessionState, k *call, msg *jsonrpc.Message, rs *responder, res any) {
	var (
		out []byte
		err error
	)
	if r, ok := res.(*mcp.ContentResult); ok && !c.rev20260728 {
		// A tool's result, the hot path: encoded straight into the
		// response's buffer.
		out, err = appendToolResult(jsonrpc.AppendResultHead(make([]byte, 0, toolResultSize(r)+len(msg.ID)+32), msg.ID), r)
		out = append(out, '}')
	} else {
		var b []byte
		b, err = marshalResult(res)
		if err == nil && c.rev20260728 {
			b, err = h.rev20260728Result(k, b)
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
	case k.c.rev20260728:
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
// that interceptors see what initialize negotiated. The engine runs the
// Params of the Call an interceptor hands to next (package toolsearch
// turns a call_tool call into the call of the tool it names), so that
// what it runs passes the engine's own checks; the method stays the
// request's.
func (h *Handler) intercept(ctx context.Context, ic mcp.Interceptor, fn methodFunc, k *call) (any, error) {
	sess := k.c.sess
	mc := k.mcpCall() // extensions.go
	return ic(func(ctx context.Context, next *mcp.Call) (any, error) {
		if next != nil && next.Method != k.msg.Method {
			return nil, fmt.Errorf("mcp: an interceptor passed next a %s call for a %s request: it may change a request's params, not its method", strictjson.Quote(next.Method), strictjson.Quote(k.msg.Method))
		}
		params := k.msg.Params
		if next != nil {
			k.msg.Params = next.Params
		}
		res, err := h.exec(ctx, fn, k)
		k.msg.Params = params
		mc.ProtocolVersion = mcp.Version(sess.ProtocolVersion())
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
func (h *Handler) handleNotification(r *http.Request, c *sessionState, msg *jsonrpc.Message) {
	ic := h.ops.Interceptor(r.Context())
	if ic == nil {
		h.notification(r.Context(), c, msg)
		return
	}
	sess := c.sess
	mc := &mcp.Call{Method: msg.Method, Params: msg.Params, Auth: mcp.AuthFromContext(r.Context()), ProtocolVersion: mcp.Version(sess.ProtocolVersion()), Request: r, Logger: h.log}
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

func (h *Handler) notification(ctx context.Context, c *sessionState, msg *jsonrpc.Message) {
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
			h.warned.cancelledBad.warn(h.log, "mcp: malformed notifications/cancelled ignored", "params", strictjson.ForLogBytes(msg.Params))
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

// onChange turns registry changes into notifications on every initialized
// session's GET stream (on the one session a per-session change names).
func (h *Handler) onChange(ch change) {
	if ch.Kind == changeSessionNotify {
		h.notifySession(ch)
		return
	}
	if ch.SessionID != "" {
		h.onSessionChange(ch)
		return
	}
	h.publishRev20260728(ch)
	h.relayChange(ch)
	if ch.Caller != "" {
		h.onCallerChange(ch)
		return
	}
	method := changeMethod(ch.Kind)
	if method == "" {
		return
	}
	msg, ok := h.changeNotification(ch, method)
	if !ok {
		return
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, c := range h.conns {
		if c.wantsChange(ch) {
			c.enqueue(msg)
		}
	}
}

// changeMethod is the notification of a registry change's kind: a list's
// list_changed, a resource's updated, a log message; "" for another kind.
func changeMethod(k engine.ChangeKind) string {
	switch k {
	case changeResourceUpdated:
		return "notifications/resources/updated"
	case changeLog:
		return "notifications/message"
	}
	return listChangedMethod(k)
}

// changeNotification encodes the notification method of change ch: a
// resource's URI, a log message, or no params; false (logged) when the
// log message does not encode.
func (h *Handler) changeNotification(ch change, method string) ([]byte, bool) {
	switch ch.Kind {
	case changeResourceUpdated:
		p, _ := json.Marshal(map[string]string{"uri": ch.URI})
		return jsonrpc.AppendNotification(nil, method, p), true
	case changeLog:
		p, err := json.Marshal(ch.Log)
		if err != nil {
			h.log.Error("mcp: a log message for the clients does not encode as JSON", "error", err)
			return nil, false
		}
		return jsonrpc.AppendNotification(nil, method, p), true
	}
	return jsonrpc.AppendNotification(nil, method, nil), true
}

// wantsChange reports whether session c is sent the notification of
// change ch: once initialized, a resource's update only when subscribed
// to it, a log message only at or above its level.
func (c *sessionState) wantsChange(ch change) bool {
	if !c.sess.Initialized() {
		return false
	}
	if ch.Kind == changeResourceUpdated && !c.sess.Subscribed(ch.URI) {
		return false
	}
	return ch.Kind != changeLog || ch.Log.Level.Enabled(c.sess.LogLevel())
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

// requestMeta is a request's params._meta: every member as the client sent
// it (for the handlers: mcp.Context.Meta), and the progress token the
// engine itself uses.
type requestMeta struct {
	Members       map[string]json.RawMessage
	ProgressToken json.RawMessage
}

// metaShape is the members of _meta the engine reads, for the strict
// check: a case variant of one ({"ProgressToken": …}) is refused, as for
// every other member of params, so it never passes for the real one.
var metaShape = reflect.TypeFor[struct {
	ProgressToken json.RawMessage `json:"progressToken"`
}]()

// UnmarshalJSON keeps every member of _meta.
func (m *requestMeta) UnmarshalJSON(b []byte) error {
	if err := strictjson.CheckCase(b, metaShape); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &m.Members); err != nil {
		return err
	}
	m.ProgressToken = m.Members["progressToken"]
	return nil
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
		// ext_apps.go
		CapabilitiesUnknown: k.capsUnknown(),
	}
	if info.Session == nil {
		info.Session = sess.Auth()
	}
	if meta != nil {
		info.Meta = meta.Members
		if len(meta.ProgressToken) > 0 && string(meta.ProgressToken) != "null" {
			info.ProgressToken = meta.ProgressToken
		}
	}
	k.peer = requestPeer{c: k.c, rs: k.rs, meta: info.Meta}
	peer := &k.peer
	info.Peer = peer
	if k.round != nil {
		info.Peer = &inputPeer{requestPeer: peer, round: k.round}
	}
	if !k.c.ephemeral {
		info.Roots = func(ctx context.Context) ([]mcp.Root, error) { return k.c.cachedRoots(ctx, peer) }
	}
	return h.ops.NewContext(ctx, info)
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

// onCallerChange sends the list_changed of a change for one caller
// (mcp.Server.ListChangedFor) to the initialized sessions of this process
// whose caller it is: the same identity key.
func (h *Handler) onCallerChange(ch change) {
	method := listChangedMethod(ch.Kind)
	if method == "" {
		return
	}
	msg := jsonrpc.AppendNotification(nil, method, nil)
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, c := range h.conns {
		if key, ok := identity.Key(c.sess.Auth()); ok && key == ch.Caller && c.sess.Initialized() {
			c.enqueue(msg)
		}
	}
}

// listChangedMethod is the list_changed notification of a list change's
// kind, "" for another kind.
func listChangedMethod(k engine.ChangeKind) string {
	switch k {
	case changeTools:
		return "notifications/tools/list_changed"
	case changeResources:
		return "notifications/resources/list_changed"
	case changePrompts:
		return "notifications/prompts/list_changed"
	}
	return ""
}

// onSessionChange sends the list_changed of a per-session change (an
// object registered, disabled or enabled for one session) to that
// session only, once it is initialized.
func (h *Handler) onSessionChange(ch change) {
	var method string
	switch ch.Kind {
	case changeTools:
		method = "notifications/tools/list_changed"
	case changeResources:
		method = "notifications/resources/list_changed"
	case changePrompts:
		method = "notifications/prompts/list_changed"
	default:
		return
	}
	h.mu.RLock()
	c, ok := h.conns[ch.SessionID]
	h.mu.RUnlock()
	if ok && c.sess.Initialized() {
		c.enqueue(jsonrpc.AppendNotification(nil, method, nil))
	}
}
