package mcphttp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/inproc"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// checkRev20260728Headers checks the routing headers of SEP-2243 against the
// body: Mcp-Method always, Mcp-Name for the methods that name something,
// and for tools/call the tool's Mcp-Param-* headers; then that the method
// exists in this revision. It writes the error and returns false on the
// first failure.
func (h *Handler) checkRev20260728Headers(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) bool {
	id := msg.ID
	if inproc.Rev20260728(r.Context()) {
		// stdio and embedded: no HTTP routing headers to check, only
		// whether the revision has the method.
		return h.checkRev20260728Method(w, msg)
	}
	mismatch := func(text string) bool {
		rev20260728Error(w, http.StatusBadRequest, id, jsonrpc.CodeHeaderMismatch, "Header mismatch: "+text, nil)
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
	spec := methodTable[msg.Method]
	var named string
	if spec.named != "" {
		_ = json.Unmarshal(msg.Params, &p) // the handler reports bad params
		switch spec.named {
		case "uri":
			named = p.URI
		case "taskId":
			named = p.TaskID
		default:
			named = p.Name
		}
		v, ok := headerValue(r, "Mcp-Name")
		if !ok {
			return mismatch(fmt.Sprintf("the Mcp-Name header is required for %s and must equal the body's params.%s", msg.Method, spec.named))
		}
		dv, err := decodeHeaderValue(v)
		if err != nil {
			return mismatch(fmt.Sprintf("Mcp-Name header value %s is not valid Base64 between =?base64? and ?=", strictjson.Quote(v)))
		}
		if dv != named {
			return mismatch(fmt.Sprintf("Mcp-Name header value %s does not match body value %s", strictjson.Quote(v), strictjson.Quote(named)))
		}
	}
	if !h.checkRev20260728Method(w, msg) {
		return false
	}
	if msg.Method == "tools/call" {
		if text := h.checkParamHeaders(r, p.Name, p.Arguments); text != "" {
			return mismatch(text)
		}
	}
	return true
}

// checkRev20260728Method answers 404 and -32601 to a method revision
// 2026-07-28 does not have (unknown, or removed with initialize and
// sessions), and returns false then.
func (h *Handler) checkRev20260728Method(w http.ResponseWriter, msg *jsonrpc.Message) bool {
	if h.lookupMethod(msg.Method, true) == nil && msg.Method != "subscriptions/listen" {
		rev20260728Error(w, http.StatusNotFound, msg.ID, mcp.CodeMethodNotFound, fmt.Sprintf(
			"Method not found: %s is not a method of protocol revision %s", strictjson.Quote(msg.Method), mcp.Version20260728), nil)
		return false
	}
	return true
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
