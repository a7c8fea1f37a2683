package mcphttp

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/middleware"
)

// rev20260728Versions are the revisions served per request, without
// initialize and without sessions (see "Protocol revisions" in
// docs/architecture.md), newest first.
var rev20260728Versions = []string{string(mcp.Version20260728)}

// The _meta keys of revision 2026-07-28.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// isRev20260728 decides the era of a single (non-batch) POST
// (docs/architecture.md, "Protocol revisions"): a 2025-era
// MCP-Protocol-Version header is 2025-era whatever the body says; a
// 2026-era header makes it a 2026-07-28 request; without the header, or
// with one this engine does not know, it is one when its params carry
// _meta's protocolVersion (so it gets the revision's errors), 2025-era
// otherwise (initialize, or a request on a session).
func isRev20260728(headerVersion string, msg *jsonrpc.Message) bool {
	if slices.Contains(supportedVersions, headerVersion) {
		return false
	}
	if slices.Contains(rev20260728Versions, headerVersion) {
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

// rev20260728Error writes a 2026-07-28 error: a JSON-RPC error echoing the
// request's id, with an HTTP status, and data when not nil.
func rev20260728Error(w http.ResponseWriter, status int, id []byte, code int64, msg string, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b := jsonrpc.AppendError(make([]byte, 0, 128+len(msg)), id, code, msg, data)
	_, _ = w.Write(append(b, '\n'))
}

// rev20260728Status is the HTTP status of an error a handler raised on a
// 2026-07-28 request (the revision's table; the rest stays 200 with the
// JSON-RPC error).
func rev20260728Status(code int64) int {
	switch code {
	case jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingClientCapability, jsonrpc.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case mcp.CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// refuseRev20260728GetDelete answers 405 to a GET or DELETE that speaks
// 2026-07-28 (its MCP-Protocol-Version header) and names no session: the
// revision has no GET stream and no sessions to end. It reports whether it
// answered.
func (h *Handler) refuseRev20260728GetDelete(w http.ResponseWriter, r *http.Request) bool {
	if !slices.Contains(rev20260728Versions, r.Header.Get(hdrProtocolVersion)) ||
		middleware.SessionIDFromContext(r.Context()) != "" {
		return false
	}
	w.Header().Set("Allow", "POST")
	httpError(w, http.StatusMethodNotAllowed, nil, mcp.CodeServerError, fmt.Sprintf(
		"Method Not Allowed: protocol revision %s has no GET stream and no sessions; send each request as a POST", mcp.Version20260728))
	return true
}

// refuseRev20260728Batch answers a batch that claims a 2026-era version: the
// revision takes one message per POST. It reports whether it answered.
func refuseRev20260728Batch(w http.ResponseWriter, headerVersion string) bool {
	if !slices.Contains(rev20260728Versions, headerVersion) {
		return false
	}
	httpError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
		"Invalid Request: protocol revision %s takes one JSON-RPC message per POST, not a batch", mcp.Version20260728))
	return true
}

// serveRev20260728 serves one 2026-07-28 message: no session (Mcp-Session-Id
// is ignored and never issued), the per-request _meta instead of
// initialize, the revision's header checks in its order (docs/architecture.md), then
// the same handlers as the 2025 revisions on a throw-away session.
func (h *Handler) serveRev20260728(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, headerVersion string) {
	id := msg.ID
	if !msg.IsRequest() && !msg.IsNotification() {
		rev20260728Error(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
			"Invalid Request: a response has nothing to answer in protocol revision "+string(mcp.Version20260728)+": the server sends no requests", nil)
		return
	}
	if msg.IsNotification() {
		h.takeRev20260728Notification(w, r, msg)
		return
	}
	// A method the revision does not have is named as such before _meta is
	// checked: the official Go SDK sends ping without _meta, and "method
	// not found" is what it needs to hear.
	if !h.checkRev20260728Method(w, msg) {
		return
	}
	meta, hasMeta := requestMetaOf(msg.Params)
	var pv string
	rawPV, hasPV := meta[metaProtocolVersion]
	if hasPV && json.Unmarshal(rawPV, &pv) != nil {
		rev20260728Error(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: _meta \""+metaProtocolVersion+"\" must be a string", nil)
		return
	}
	if headerVersion == "" && hasPV {
		rev20260728Error(w, http.StatusBadRequest, id, jsonrpc.CodeHeaderMismatch,
			"Header mismatch: the MCP-Protocol-Version header is required and must equal _meta \""+metaProtocolVersion+"\"", nil)
		return
	}
	rawCaps, hasCaps := meta[metaClientCaps]
	switch {
	case !hasMeta:
		rev20260728Error(w, http.StatusBadRequest, id, mcp.CodeInvalidParams, fmt.Sprintf(
			"Invalid params: params._meta is required in protocol revision %s, with %q and %q", mcp.Version20260728, metaProtocolVersion, metaClientCaps), nil)
		return
	case !hasPV:
		rev20260728Error(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: params._meta must carry \""+metaProtocolVersion+"\"", nil)
		return
	case !hasCaps:
		rev20260728Error(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: params._meta must carry \""+metaClientCaps+"\" (an object; {} declares none)", nil)
		return
	}
	var caps mcp.ClientCapabilities
	if len(rawCaps) == 0 || rawCaps[0] != '{' || json.Unmarshal(rawCaps, &caps) != nil {
		rev20260728Error(w, http.StatusBadRequest, id, mcp.CodeInvalidParams,
			"Invalid params: _meta \""+metaClientCaps+"\" must be an object", nil)
		return
	}
	if headerVersion != pv {
		rev20260728Error(w, http.StatusBadRequest, id, jsonrpc.CodeHeaderMismatch, fmt.Sprintf(
			"Header mismatch: MCP-Protocol-Version header %s does not match _meta protocolVersion %s", strictjson.Quote(headerVersion), strictjson.Quote(pv)), nil)
		return
	}
	if !slices.Contains(rev20260728Versions, pv) {
		rev20260728Error(w, http.StatusBadRequest, id, jsonrpc.CodeUnsupportedProtocolVersion,
			"Unsupported protocol version: "+strictjson.Quote(pv),
			map[string]any{"supported": allVersions, "requested": strictjson.Clip(pv, strictjson.MaxQuoted)})
		return
	}
	if !h.checkRev20260728Headers(w, r, msg) {
		return
	}
	var client mcp.Implementation
	if raw, ok := meta[metaClientInfo]; ok {
		_ = json.Unmarshal(raw, &client) // optional and informative only
	}
	var level mcp.LogLevel
	if raw, ok := meta[metaLogLevel]; ok {
		if json.Unmarshal(raw, &level) != nil || !level.Valid() {
			rev20260728Error(w, http.StatusBadRequest, id, mcp.CodeInvalidParams, fmt.Sprintf(
				"Invalid params: _meta %q is %s, not a log level (want debug, info, notice, warning, error, critical, alert or emergency)",
				metaLogLevel, strictjson.Quote(string(raw))), nil)
			return
		}
	}
	h.mu.RLock()
	closed := h.closed
	h.mu.RUnlock()
	if closed {
		rev20260728Error(w, http.StatusServiceUnavailable, id, mcp.CodeServerError, "Service Unavailable: the server is shutting down", nil)
		return
	}
	if msg.Method == "subscriptions/listen" {
		h.serveListen(w, r, msg)
		return
	}
	c := h.newSessionState(nil, true)
	defer c.close()
	c.rev20260728 = true
	auth := mcp.AuthFromContext(r.Context())
	h.noteAuth(auth)
	h.warnBareAuthorization(r, auth)
	c.sess.Init(pv, client, caps, auth)
	c.sess.SetInitialized()
	if level != "" {
		c.sess.SetLogLevel(level)
	}
	if err := h.acquire(r.Context(), c); err != nil {
		rev20260728Error(w, http.StatusServiceUnavailable, id, mcp.CodeServerError, err.Error(), nil)
		return
	}
	defer h.release(c)
	rs := newResponder(w, h, c, h.opts.JSONResponse)
	// Without _meta's logLevel the client gets no log messages at all.
	rs.noLogs = level == ""
	h.handleRequest(r, c, msg, rs)
	rs.end()
}

// takeRev20260728Notification answers 202 to a notification sent at
// 2026-07-28, whatever its _meta and headers. The revision defines no
// client notification over HTTP (closing a request's response stream is
// its cancellation) and leaves the headers of a notification POST
// undefined, yet clients send them: the official Go SDK POSTs
// notifications/cancelled, without _meta, when a call's context ends, and
// closes itself for good when that POST gets an error status. A
// notification the server does not act on must not cost a client its
// connection, so none is checked; each is logged at debug level.
func (h *Handler) takeRev20260728Notification(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if h.log.Enabled(r.Context(), slog.LevelDebug) {
		h.log.Debug("mcp: a notification of protocol revision "+string(mcp.Version20260728)+" taken; it has no effect over HTTP",
			"method", strictjson.Clip(msg.Method, strictjson.MaxQuoted), "params", strictjson.ForLogBytes(msg.Params))
	}
	w.WriteHeader(http.StatusAccepted)
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
