package mcphttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/middleware"
)

// modernVersions are the revisions served per request, without
// initialize and without sessions (see "Protocol revisions" in the
// package doc), newest first.
var modernVersions = []string{Version20260728}

// allVersions are every revision the endpoint serves, newest first: what
// server/discover lists and what a -32022 error names as supported.
var allVersions = append(slices.Clone(modernVersions), supportedVersions...)

// The _meta keys of revision 2026-07-28.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// modernShared are the methods both eras have, run by the same handlers.
// What 2026-07-28 removed (initialize, ping, logging/setLevel,
// resources/subscribe, resources/unsubscribe) is not among them: a modern
// request for one gets 404 and -32601.
var modernShared = map[string]bool{
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"prompts/list": true, "prompts/get": true,
	"completion/complete": true,
}

// modernMethod is the handler of a method in revision 2026-07-28, nil for
// an unknown or removed one.
func modernMethod(name string) methodFunc {
	if name == "server/discover" {
		return (*Handler).doDiscover
	}
	if modernShared[name] {
		return methods[name]
	}
	return taskMethods[name]
}

// cachedResults are the methods whose results carry the caching fields
// ttlMs and cacheScope (SEP-2549).
var cachedResults = map[string]bool{
	"tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true, "server/discover": true,
}

// isModern decides the era of a single (non-batch) POST (doc.go,
// "Protocol revisions"): a 2025-era MCP-Protocol-Version header is 2025-era
// whatever the body says; a 2026-era header is modern; without the header,
// or with one this engine does not know, the request is modern when its
// params carry _meta's protocolVersion (so it gets the revision's errors),
// 2025-era otherwise (initialize, or a request on a session).
func isModern(headerVersion string, msg *jsonrpc.Message) bool {
	if slices.Contains(supportedVersions, headerVersion) {
		return false
	}
	if slices.Contains(modernVersions, headerVersion) {
		return true
	}
	meta, _ := requestMetaOf(msg.Params)
	_, ok := meta[metaProtocolVersion]
	return ok
}

// requestMetaOf returns params._meta as raw members; ok is false when
// params or _meta is missing or not an object.
func requestMetaOf(params json.RawMessage) (map[string]json.RawMessage, bool) {
	if len(params) == 0 || !mayHaveMeta(params) {
		return nil, false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Meta == nil {
		return nil, false
	}
	return p.Meta, true
}

// modernError writes a 2026-07-28 error: a JSON-RPC error echoing the
// request's id, with an HTTP status, and data when not nil.
func modernError(w http.ResponseWriter, status int, id []byte, code int64, msg string, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := jsonrpc.AppendError(make([]byte, 0, 128+len(msg)), id, code, msg, data)
	_, _ = w.Write(append(b, '\n'))
}

// modernStatus is the HTTP status of an error a handler raised on a
// modern request (the revision's table; the rest stays 200 with the
// JSON-RPC error).
func modernStatus(code int64) int {
	switch code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case mcp.CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// refuseModernGetDelete answers 405 to a GET or DELETE that speaks
// 2026-07-28 (its MCP-Protocol-Version header) and names no session: the
// revision has no GET stream and no sessions to end. It reports whether it
// answered.
func (h *Handler) refuseModernGetDelete(w http.ResponseWriter, r *http.Request) bool {
	if !slices.Contains(modernVersions, r.Header.Get(hdrProtocolVersion)) ||
		middleware.SessionIDFromContext(r.Context()) != "" {
		return false
	}
	w.Header().Set("Allow", "POST")
	httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError, fmt.Sprintf(
		"Method Not Allowed: protocol revision %s has no GET stream and no sessions; send each request as a POST", Version20260728))
	return true
}

// refuseModernBatch answers a batch that claims a 2026-era version: the
// revision takes one message per POST. It reports whether it answered.
func refuseModernBatch(w http.ResponseWriter, headerVersion string) bool {
	if !slices.Contains(modernVersions, headerVersion) {
		return false
	}
	httpError(w, http.StatusBadRequest, nil, mcp.CodeInvalidRequest, fmt.Sprintf(
		"Invalid Request: protocol revision %s takes one JSON-RPC message per POST, not a batch", Version20260728))
	return true
}

// serveModern serves one 2026-07-28 message: no session (Mcp-Session-Id
// is ignored and never issued), the per-request _meta instead of
// initialize, the revision's header checks in its order (doc.go), then
// the same handlers as the 2025 revisions on a throw-away session.
func (h *Handler) serveModern(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, headerVersion string) {
	id := msg.ID
	if !msg.IsRequest() && !msg.IsNotification() {
		modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidRequest,
			"Invalid Request: a response has nothing to answer in protocol revision "+Version20260728+": the server sends no requests", nil)
		return
	}
	if msg.IsNotification() {
		h.takeModernNotification(w, r, msg)
		return
	}
	// A method the revision does not have is named as such before _meta is
	// checked: the official Go SDK sends ping without _meta, and "method
	// not found" is what it needs to hear.
	if !h.checkModernMethod(w, msg) {
		return
	}
	meta, hasMeta := requestMetaOf(msg.Params)
	var pv string
	rawPV, hasPV := meta[metaProtocolVersion]
	if hasPV && json.Unmarshal(rawPV, &pv) != nil {
		modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: _meta \""+metaProtocolVersion+"\" must be a string", nil)
		return
	}
	if headerVersion == "" && hasPV {
		modernError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch,
			"Header mismatch: the MCP-Protocol-Version header is required and must equal _meta \""+metaProtocolVersion+"\"", nil)
		return
	}
	rawCaps, hasCaps := meta[metaClientCaps]
	switch {
	case !hasMeta:
		modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidParams, fmt.Sprintf(
			"Invalid params: params._meta is required in protocol revision %s, with %q and %q", Version20260728, metaProtocolVersion, metaClientCaps), nil)
		return
	case !hasPV:
		modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: params._meta must carry \""+metaProtocolVersion+"\"", nil)
		return
	case !hasCaps:
		modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: params._meta must carry \""+metaClientCaps+"\" (an object; {} declares none)", nil)
		return
	}
	var caps mcp.ClientCapabilities
	if len(rawCaps) == 0 || rawCaps[0] != '{' || json.Unmarshal(rawCaps, &caps) != nil {
		modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: _meta \""+metaClientCaps+"\" must be an object", nil)
		return
	}
	if headerVersion != pv {
		modernError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch, fmt.Sprintf(
			"Header mismatch: MCP-Protocol-Version header %s does not match _meta protocolVersion %s", strictjson.Quote(headerVersion), strictjson.Quote(pv)), nil)
		return
	}
	if !slices.Contains(modernVersions, pv) {
		modernError(w, http.StatusBadRequest, id, mcp.CodeUnsupportedProtocolVersion,
			"Unsupported protocol version: "+strictjson.Quote(pv),
			map[string]any{"supported": allVersions, "requested": strictjson.Clip(pv, strictjson.MaxQuoted)})
		return
	}
	if !h.checkModernHeaders(w, r, msg) {
		return
	}
	var client mcp.Implementation
	if raw, ok := meta[metaClientInfo]; ok {
		_ = json.Unmarshal(raw, &client) // optional and informative only
	}
	var level mcp.LogLevel
	if raw, ok := meta[metaLogLevel]; ok {
		if json.Unmarshal(raw, &level) != nil || !level.Valid() {
			modernError(w, http.StatusBadRequest, id, mcp.CodeInvalidParams, fmt.Sprintf(
				"Invalid params: _meta %q is %s, not a log level (want debug, info, notice, warning, error, critical, alert or emergency)",
				metaLogLevel, strictjson.Quote(string(raw))), nil)
			return
		}
	}
	h.mu.RLock()
	closed := h.closed
	h.mu.RUnlock()
	if closed {
		modernError(w, http.StatusServiceUnavailable, id, mcp.CodeServerError, "Service Unavailable: the server is shutting down", nil)
		return
	}
	if msg.Method == "subscriptions/listen" {
		h.serveListen(w, r, msg)
		return
	}
	c := h.newConn(nil, true)
	defer c.close()
	c.modern = true
	c.sess.Init(pv, client, caps, mcp.AuthFromContext(r.Context()))
	c.sess.SetInitialized()
	if level != "" {
		c.sess.SetLogLevel(level)
	}
	if err := h.acquire(r.Context(), c); err != nil {
		modernError(w, http.StatusServiceUnavailable, id, mcp.CodeServerError, err.Error(), nil)
		return
	}
	defer h.release(c)
	rs := newResponder(w, h, c, h.opts.JSONResponse)
	// Without _meta's logLevel the client gets no log messages at all.
	rs.noLogs = level == ""
	h.handleRequest(r, c, msg, rs)
	rs.end()
}

// takeModernNotification answers 202 to a notification sent at
// 2026-07-28, whatever its _meta and headers. The revision defines no
// client notification over HTTP (closing a request's response stream is
// its cancellation) and leaves the headers of a notification POST
// undefined, yet clients send them: the official Go SDK POSTs
// notifications/cancelled, without _meta, when a call's context ends, and
// closes itself for good when that POST gets an error status. A
// notification the server does not act on must not cost a client its
// connection, so none is checked; each is logged at debug level.
func (h *Handler) takeModernNotification(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if h.log.Enabled(r.Context(), slog.LevelDebug) {
		h.log.Debug("mcp: a notification of protocol revision "+Version20260728+" taken; it has no effect over HTTP",
			"method", strictjson.Clip(msg.Method, strictjson.MaxQuoted), "params", strictjson.ForLogBytes(msg.Params))
	}
	w.WriteHeader(http.StatusAccepted)
}

// checkModernHeaders checks the routing headers of SEP-2243 against the
// body: Mcp-Method always, Mcp-Name for the methods that name something,
// and for tools/call the tool's Mcp-Param-* headers; then that the method
// exists in this revision. It writes the error and returns false on the
// first failure.
func (h *Handler) checkModernHeaders(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) bool {
	id := msg.ID
	if inproc.Modern(r.Context()) {
		// stdio and embedded: no HTTP routing headers to check, only
		// whether the revision has the method.
		return h.checkModernMethod(w, msg)
	}
	mismatch := func(text string) bool {
		modernError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch, "Header mismatch: "+text, nil)
		return false
	}
	method, ok := headerValue(r, "Mcp-Method")
	if !ok {
		return mismatch("the Mcp-Method header is required and must equal the body's method")
	}
	if method != msg.Method {
		return mismatch(fmt.Sprintf("Mcp-Method header value %s does not match body value %s", strictjson.Quote(method), strictjson.Quote(msg.Method)))
	}
	var p struct {
		Name      string                     `json:"name"`
		URI       string                     `json:"uri"`
		TaskID    string                     `json:"taskId"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	var named string
	switch msg.Method {
	case "tools/call", "prompts/get":
		_ = json.Unmarshal(msg.Params, &p) // the handler reports bad params
		named = p.Name
	case "resources/read":
		_ = json.Unmarshal(msg.Params, &p)
		named = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		_ = json.Unmarshal(msg.Params, &p)
		named = p.TaskID
	}
	if named != "" || msg.Method == "tools/call" || msg.Method == "prompts/get" || msg.Method == "resources/read" || taskMethods[msg.Method] != nil {
		v, ok := headerValue(r, "Mcp-Name")
		if !ok {
			return mismatch(fmt.Sprintf("the Mcp-Name header is required for %s and must equal the body's %s", msg.Method, nameField(msg.Method)))
		}
		dv, err := decodeHeaderValue(v)
		if err != nil {
			return mismatch(fmt.Sprintf("Mcp-Name header value %s is not valid Base64 between =?base64? and ?=", strictjson.Quote(v)))
		}
		if dv != named {
			return mismatch(fmt.Sprintf("Mcp-Name header value %s does not match body value %s", strictjson.Quote(v), strictjson.Quote(named)))
		}
	}
	if !h.checkModernMethod(w, msg) {
		return false
	}
	if msg.Method == "tools/call" {
		if text := h.checkParamHeaders(r, p.Name, p.Arguments); text != "" {
			return mismatch(text)
		}
	}
	return true
}

// checkModernMethod answers 404 and -32601 to a method revision
// 2026-07-28 does not have (unknown, or removed with initialize and
// sessions), and returns false then.
func (h *Handler) checkModernMethod(w http.ResponseWriter, msg *jsonrpc.Message) bool {
	if modernMethod(msg.Method) == nil && msg.Method != "subscriptions/listen" {
		modernError(w, http.StatusNotFound, msg.ID, mcp.CodeMethodNotFound, fmt.Sprintf(
			"Method not found: %s is not a method of protocol revision %s", strictjson.Quote(msg.Method), Version20260728), nil)
		return false
	}
	return true
}

func nameField(method string) string {
	if method == "resources/read" {
		return "params.uri"
	}
	if taskMethods[method] != nil {
		return "params.taskId"
	}
	return "params.name"
}

// headerValue returns a request header's value without surrounding
// whitespace, and whether it was sent. Header names are matched
// case-insensitively; values are compared byte for byte by the callers.
func headerValue(r *http.Request, name string) (string, bool) {
	vals := r.Header.Values(name)
	if len(vals) == 0 {
		return "", false
	}
	return strings.TrimSpace(vals[0]), true
}

// decodeHeaderValue decodes SEP-2243's Base64 form "=?base64?…?=" (the
// standard alphabet, padding required); any other value is literal.
func decodeHeaderValue(v string) (string, error) {
	const pre, suf = "=?base64?", "?="
	if len(v) < len(pre)+len(suf) || !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, suf) {
		return v, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(pre) : len(v)-len(suf)])
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// paramHeader is a tool argument mirrored into a header: the property
// name and the header's name.
type paramHeader struct {
	prop, header, typ string
}

// paramHeaders returns the x-mcp-header annotations of a tool's input
// schema (top-level properties of type string, integer or boolean).
func paramHeaders(t mcp.Tool) []paramHeader {
	if t.InputSchema == nil {
		return nil
	}
	var out []paramHeader
	for name, s := range t.InputSchema.Properties {
		if s == nil {
			continue
		}
		hv, _ := s.Extra["x-mcp-header"].(string)
		if hv == "" {
			continue
		}
		out = append(out, paramHeader{prop: name, header: "Mcp-Param-" + hv, typ: s.Type})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].prop < out[j].prop })
	return out
}

// checkParamHeaders validates the Mcp-Param-* headers of a tools/call
// against its arguments: an annotated argument that is present and not
// null needs its header, equal after decoding (integers compared as
// numbers, booleans as true/false); an absent or null one must have none.
// It returns what is wrong, or "".
func (h *Handler) checkParamHeaders(r *http.Request, tool string, args map[string]json.RawMessage) string {
	var found *mcp.Tool
	for _, t := range h.srv.ListTools(r.Context(), mcp.AuthFromContext(r.Context())) {
		if t.Name == tool {
			found = &t
			break
		}
	}
	if found == nil {
		return "" // the handler answers the unknown tool
	}
	for _, ph := range paramHeaders(*found) {
		raw, present := args[ph.prop]
		present = present && string(raw) != "null"
		v, sent := headerValue(r, ph.header)
		if !present {
			if sent {
				return fmt.Sprintf("header %s was sent but argument %q is absent", ph.header, ph.prop)
			}
			continue
		}
		if !sent {
			return fmt.Sprintf("header %s is required: argument %q is present", ph.header, ph.prop)
		}
		dv, err := decodeHeaderValue(v)
		if err != nil {
			return fmt.Sprintf("%s header value %s is not valid Base64 between =?base64? and ?=", ph.header, strictjson.Quote(v))
		}
		if !paramMatches(ph.typ, raw, dv) {
			return fmt.Sprintf("%s header value %s does not match argument %q", ph.header, strictjson.Quote(v), ph.prop)
		}
	}
	return ""
}

// paramMatches compares a decoded header value with the argument's JSON.
func paramMatches(typ string, raw json.RawMessage, v string) bool {
	switch typ {
	case "integer":
		want, err1 := strconv.ParseInt(string(raw), 10, 64)
		got, err2 := strconv.ParseInt(v, 10, 64)
		return err1 == nil && err2 == nil && want == got
	case "boolean":
		return string(raw) == v && (v == "true" || v == "false")
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return s == v
}

// doDiscover is server/discover: the versions, capabilities and
// instructions of the server (its identity goes in the result's _meta,
// as on every modern result).
func (h *Handler) doDiscover(_ context.Context, _ *call) (any, error) {
	o := h.srv.Options()
	return struct {
		SupportedVersions []string           `json:"supportedVersions"`
		Capabilities      modernCapabilities `json:"capabilities"`
		Instructions      string             `json:"instructions,omitempty"`
	}{allVersions, modernCapabilities{
		Tools:       listChanged{true},
		Resources:   resourcesCap{Subscribe: true, ListChanged: true},
		Prompts:     listChanged{true},
		Logging:     struct{}{},
		Completions: struct{}{},
		Extensions:  h.extensions(), // skills.go
	}, o.Instructions}, nil
}

// modernCapabilities are the server capabilities of 2026-07-28.
type modernCapabilities struct {
	Tools       listChanged    `json:"tools"`
	Resources   resourcesCap   `json:"resources"`
	Prompts     listChanged    `json:"prompts"`
	Logging     struct{}       `json:"logging"`
	Completions struct{}       `json:"completions"`
	Extensions  map[string]any `json:"extensions"`
}

// modernResult adds to a result what 2026-07-28 puts on every one:
// resultType, the server's identity in _meta, and on lists, reads and
// discover the caching fields (ttlMs 0: stale at once; cacheScope private
// when the request carried auth data, since what is listed depends on the
// caller, public otherwise). Members the result already has are kept.
func (h *Handler) modernResult(method string, auth any, b []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	setDefault := func(k, v string) {
		if _, ok := m[k]; !ok {
			m[k] = json.RawMessage(v)
		}
	}
	setDefault("resultType", `"complete"`)
	// An input-required result (mrtr.go) is one round's, never cached.
	if cachedResults[method] && string(m["resultType"]) != `"input_required"` {
		setDefault("ttlMs", "0")
		if auth != nil {
			setDefault("cacheScope", `"private"`)
		} else {
			setDefault("cacheScope", `"public"`)
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
			meta = map[string]json.RawMessage{}
		}
	}
	if _, ok := meta[metaServerInfo]; !ok {
		o := h.srv.Options()
		si, err := json.Marshal(mcp.Implementation{Name: o.Name, Title: o.Title, Version: o.Version})
		if err != nil {
			return nil, err
		}
		meta[metaServerInfo] = si
	}
	m["_meta"] = appendObject(nil, meta)
	return appendObject(make([]byte, 0, len(b)+128), m), nil
}

// appendObject appends members as a JSON object, keys sorted.
func appendObject(b []byte, members map[string]json.RawMessage) []byte {
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, k)
		b = append(b, ':')
		b = append(b, members[k]...)
	}
	return append(b, '}')
}
