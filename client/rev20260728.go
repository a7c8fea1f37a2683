package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// The _meta keys of revision 2026-07-28.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// maxInputRounds bounds the input-required rounds of one request.
const maxInputRounds = 16

// rev20260728 reports whether the client speaks revision 2026-07-28.
func (c *Client) rev20260728() bool { return c.opts.ProtocolVersion.Sessionless() }

// rev20260728State is what a 2026-07-28 client keeps between requests: the
// log level it asks for, and the Mcp-Param-* annotations of the tools it
// listed.
type rev20260728State struct {
	mu       sync.Mutex
	logLevel mcp.LogLevel
	params   map[string][]paramHeader // by tool name
	// meta is encodedMeta's answer for log level metaLevel.
	meta      []byte
	metaLevel mcp.LogLevel
}

// paramHeader is a tool argument the client mirrors into a header.
type paramHeader struct {
	prop, header, typ string
}

// sessionVersions are the revisions with initialize and sessions the
// client speaks, newest first.
var sessionVersions = []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// discover is Connect at 2026-07-28: server/discover instead of
// initialize. A server that answers that it supports only revisions of
// the 2025 era gets initialize at the newest of them the client speaks.
func (c *Client) discover(ctx context.Context) error {
	err := c.discover2026(ctx)
	if v := fallbackVersion(err); v != "" {
		c.log.Info("mcp client: the server does not speak revision 2026-07-28; falling back", "server", c.serverName(), "version", v)
		c.opts.ProtocolVersion = v
		return c.initialize(ctx)
	}
	if legacyServer(err) {
		c.log.Info("mcp client: the server predates revision 2026-07-28; falling back", "server", c.serverName(), "error", err)
		c.opts.ProtocolVersion = sessionVersions[0]
		return c.initialize(ctx)
	}
	return err
}

// legacyServer reports whether err, the answer to the server/discover
// probe, identifies a server of the 2025 era, which the versioning page
// of revision 2026-07-28 says a client falls back to initialize for: a
// JSON-RPC error that is not one of that revision's (a -32601 Method not
// found over stdio), or over HTTP a 4xx status whose body is not one (a
// 400 for a request without a session). 401 and 403 are left to
// authorization.
func legacyServer(err error) bool {
	if re := asRPCError(err); re != nil {
		return !rev20260728Code(re.Code)
	}
	var he *HTTPError
	if !errors.As(err, &he) || he.Status < 400 || he.Status >= 500 ||
		he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden {
		return false
	}
	var body struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal([]byte(he.Body), &body) != nil || body.Error == nil || !rev20260728Code(body.Error.Code)
}

// rev20260728Code reports whether code is in the range revision 2026-07-28
// reserves for its errors (-32020 to -32099), the one 2025-era code
// there (-32042, URL elicitation required) aside.
func rev20260728Code(code int64) bool {
	return code <= jsonrpc.CodeHeaderMismatch && code >= -32099 && code != mcp.CodeURLElicitationRequired
}

// fallbackVersion returns the newest 2025-era revision that err (a
// -32022 error, or a discover result without 2026-07-28) names as
// supported, or "".
func fallbackVersion(err error) mcp.Version {
	var supported []mcp.Version
	re := asRPCError(err)
	var ve *versionsError
	switch {
	case errors.As(err, &ve):
		supported = ve.supported
	case re != nil && re.Code == jsonrpc.CodeUnsupportedProtocolVersion:
		var d struct {
			Supported []mcp.Version `json:"supported"`
		}
		if json.Unmarshal(errorData(re), &d) != nil {
			return ""
		}
		supported = d.Supported
	default:
		return ""
	}
	for _, v := range sessionVersions {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

// versionsError is a server/discover result that does not list
// revision 2026-07-28.
type versionsError struct{ supported []mcp.Version }

func (e *versionsError) Error() string {
	return fmt.Sprintf("mcp client: the server supports %v, not %s", e.supported, mcp.Version20260728)
}

func (c *Client) discover2026(ctx context.Context) error {
	var res struct {
		SupportedVersions []mcp.Version          `json:"supportedVersions"`
		Capabilities      mcp.ServerCapabilities `json:"capabilities"`
		ServerInfo        mcp.Implementation     `json:"serverInfo"`
		Instructions      string                 `json:"instructions"`
		Meta              map[string]json.RawMessage
	}
	var raw map[string]json.RawMessage
	if err := c.call(ctx, "server/discover", nil, &raw); err != nil {
		return err
	}
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("mcp client: the server/discover result does not decode: %w", err)
	}
	if m, ok := raw["_meta"]; ok {
		var meta map[string]json.RawMessage
		if json.Unmarshal(m, &meta) == nil && res.ServerInfo.Name == "" {
			_ = json.Unmarshal(meta[metaServerInfo], &res.ServerInfo)
		}
	}
	if len(res.SupportedVersions) > 0 && !slices.Contains(res.SupportedVersions, mcp.Version20260728) {
		// A server that names only the 2025 revisions: discover falls
		// back to the handshake of the newest of them.
		return &versionsError{res.SupportedVersions}
	}
	c.init = mcp.InitializeResult{ProtocolVersion: mcp.Version20260728, ServerInfo: res.ServerInfo,
		Capabilities: res.Capabilities, Instructions: res.Instructions}
	if v, ok := c.conn.(versioned); ok {
		v.setProtocolVersion(string(mcp.Version20260728))
	}
	return nil
}

// capabilities are what the client declares: one member for each handler
// of Options that is set.
func (c *Client) capabilities() map[string]any {
	caps := map[string]any{}
	if c.opts.Sample != nil {
		sampling := map[string]any{}
		if c.opts.SamplingTools {
			sampling["tools"] = map[string]any{}
		}
		caps["sampling"] = sampling
	}
	if c.opts.Elicit != nil || c.opts.ElicitURL != nil {
		modes := map[string]any{}
		if c.opts.Elicit != nil {
			modes["form"] = map[string]any{}
		}
		if c.opts.ElicitURL != nil {
			modes["url"] = map[string]any{}
		}
		caps["elicitation"] = modes
	}
	if c.opts.Roots != nil {
		caps["roots"] = map[string]any{"listChanged": true}
	}
	if len(c.opts.Extensions) > 0 {
		ext := make(map[string]any, len(c.opts.Extensions))
		for name, settings := range c.opts.Extensions {
			if settings == nil {
				settings = map[string]any{}
			}
			ext[name] = settings
		}
		caps["extensions"] = ext
	}
	return caps
}

// rev20260728Params returns params with the request _meta of 2026-07-28 added
// (members the caller's _meta already has are kept);
// params that are not a JSON object (nor nil) have no place for it.
func (c *Client) rev20260728Params(params any) (map[string]any, error) {
	m := toMap(params)
	if len(m) == 0 && params != nil {
		if b, err := json.Marshal(params); err != nil || (!bytes.HasPrefix(b, []byte("{")) && string(b) != "null") {
			return nil, fmt.Errorf("params must be a JSON object at protocol revision %s", mcp.Version20260728)
		}
	}
	meta, _ := m["_meta"].(map[string]any)
	cp := map[string]any{}
	for k, v := range meta {
		cp[k] = v
	}
	// The caller's own members win (a test that sends another revision).
	set := func(k string, v any) {
		if _, ok := cp[k]; !ok {
			cp[k] = v
		}
	}
	set(metaProtocolVersion, mcp.Version20260728)
	set(metaClientInfo, c.opts.Info)
	set(metaClientCaps, c.capabilities())
	c.state.mu.Lock()
	if c.state.logLevel != "" {
		set(metaLogLevel, c.state.logLevel)
	}
	c.state.mu.Unlock()
	m["_meta"] = cp
	return m, nil
}

// toolCall is the params of [Client.CallTool]'s common call (no _meta of
// the caller's): encoded already, the tool's name kept for the routing
// headers of revision 2026-07-28.
type toolCall struct {
	name string
	raw  json.RawMessage // {"name":…,"arguments":…}, no other member
}

// rev20260728ToolCall is rev20260728Params of tc, encoded: tc's members and the
// request _meta, spliced rather than decoded into a map and encoded again
// on every call.
func (c *Client) rev20260728ToolCall(tc toolCall) (json.RawMessage, error) {
	meta, err := c.encodedMeta()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(tc.raw)+len(`,"_meta":`)+len(meta))
	b = append(b, tc.raw[:len(tc.raw)-1]...)
	b = append(b, `,"_meta":`...)
	b = append(b, meta...)
	return append(b, '}'), nil
}

// encodedMeta is the _meta rev20260728Params adds to params that have none,
// encoded: the same JSON as that map's, kept until the log level changes
// (the client's Options are fixed at Connect).
func (c *Client) encodedMeta() ([]byte, error) {
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	if c.state.meta != nil && c.state.metaLevel == c.state.logLevel {
		return c.state.meta, nil
	}
	m := map[string]any{metaProtocolVersion: mcp.Version20260728, metaClientInfo: c.opts.Info, metaClientCaps: c.capabilities()}
	if c.state.logLevel != "" {
		m[metaLogLevel] = c.state.logLevel
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	c.state.meta, c.state.metaLevel = b, c.state.logLevel
	return b, nil
}

// resultTypeOf returns the resultType member of a 2026-07-28 result raw
// (valid JSON), as json.Unmarshal into a struct with that member would,
// without decoding the rest. It returns false when that takes more than
// a scan: a member name with an escape or a byte outside ASCII (which
// could decode or fold to resultType), a name that differs in case only
// (encoding/json takes it too), or a value that is not a plain string
// (an escape, or bytes that are not UTF-8, which decoding replaces).
func resultTypeOf(raw []byte) (string, bool) {
	i := strictjson.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return "", true // no member: json.Unmarshal leaves it empty
	}
	rt, ok := "", true
	strictjson.Members(raw, func(key, val []byte) bool {
		for _, b := range key {
			if b == '\\' || b >= 0x80 {
				ok = false
				return false
			}
		}
		switch {
		case string(key) == "resultType":
			if len(val) < 2 || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 || !utf8.Valid(val) {
				ok = false
				return false
			}
			rt = string(val[1 : len(val)-1]) // the last one wins, as in json.Unmarshal
		case strings.EqualFold(string(key), "resultType"):
			ok = false
			return false
		}
		return true
	})
	return rt, ok
}

// toMap returns params as a new map (params is nil, a map, CallTool's
// toolCall, or a value that encodes as a JSON object).
func toMap(params any) map[string]any {
	m := map[string]any{}
	switch p := params.(type) {
	case nil:
	case map[string]any:
		for k, v := range p {
			m[k] = v
		}
	case toolCall:
		_ = json.Unmarshal(p.raw, &m)
	default:
		if b, err := json.Marshal(params); err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	return m
}

// routingHeaders are the HTTP headers of a 2026-07-28 request (SEP-2243):
// Mcp-Method, Mcp-Name for what names something (a tool, prompt,
// resource or task), and the Mcp-Param-* headers of a tool's annotated
// arguments.
func (c *Client) routingHeaders(method string, params map[string]any) http.Header {
	var name string
	switch method {
	case "tools/call", "prompts/get":
		name, _ = params["name"].(string)
	case "resources/read":
		name, _ = params["uri"].(string)
	case "tasks/get", "tasks/update", "tasks/cancel": // the tasks extension (tasks.go)
		name, _ = params["taskId"].(string)
	}
	return c.routingHeadersFor(method, name, func() map[string]any { return toMap(params["arguments"]) })
}

// routingHeadersFor is routingHeaders of a request naming name; args
// returns a tools/call's arguments, called only when the tool has
// annotated ones. The keys are written in their canonical form, as
// Header.Set would.
func (c *Client) routingHeadersFor(method, name string, args func() map[string]any) http.Header {
	h := make(http.Header, 3)
	h["Mcp-Protocol-Version"] = []string{string(mcp.Version20260728)}
	h["Mcp-Method"] = []string{method}
	if name != "" {
		h["Mcp-Name"] = []string{headerSafe(name)}
	}
	if method == "tools/call" {
		c.state.mu.Lock()
		phs := c.state.params[name]
		c.state.mu.Unlock()
		var argv map[string]any
		if len(phs) > 0 {
			argv = args()
		}
		for _, ph := range phs {
			v, ok := argv[ph.prop]
			if !ok || v == nil {
				continue
			}
			var s string
			switch x := v.(type) {
			case string:
				s = x
			case bool:
				s = strconv.FormatBool(x)
			case float64:
				s = strconv.FormatFloat(x, 'f', -1, 64)
			default:
				b, _ := json.Marshal(x)
				s = string(b)
			}
			h.Set(ph.header, headerSafe(s))
		}
	}
	return h
}

// headerSafe returns s as a header value: as is when it is printable
// ASCII without leading or trailing white space, else in SEP-2243's
// Base64 form "=?base64?…?=".
func headerSafe(s string) string {
	plain := s == strings.TrimSpace(s)
	for _, r := range s {
		if r > unicode.MaxASCII || r < 0x20 || r == 0x7f {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// validHeaderName reports whether an x-mcp-header annotation can name a
// header: a non-empty HTTP token (no space, no colon, ASCII only).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return false
		}
	}
	return true
}

// toolHeaders reads the x-mcp-header annotations of a tool's input
// schema. ok is false for a tool whose annotations are invalid (an empty
// or malformed name, a type other than string, integer or boolean, two
// properties with one name): such a tool must not be used.
func toolHeaders(t mcp.Tool) (phs []paramHeader, ok bool) {
	if t.InputSchema == nil {
		return nil, true
	}
	seen := map[string]bool{}
	for name, s := range t.InputSchema.Properties {
		if s == nil {
			continue
		}
		v, has := s.Extra["x-mcp-header"]
		if !has {
			continue
		}
		hv, isString := v.(string)
		if !isString || !validHeaderName(hv) {
			return nil, false
		}
		switch s.Type {
		case "string", "integer", "boolean":
		default:
			return nil, false
		}
		key := strings.ToLower(hv)
		if seen[key] {
			return nil, false
		}
		seen[key] = true
		phs = append(phs, paramHeader{prop: name, header: "Mcp-Param-" + hv, typ: s.Type})
	}
	sort.Slice(phs, func(i, j int) bool { return phs[i].prop < phs[j].prop })
	return phs, true
}

// keepTools records the header annotations of listed tools, and drops the
// tools whose annotations are invalid (revision 2026-07-28).
func (c *Client) keepTools(tools []mcp.Tool) []mcp.Tool {
	if !c.rev20260728() {
		return tools
	}
	out := tools[:0]
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	if c.state.params == nil {
		c.state.params = map[string][]paramHeader{}
	}
	for _, t := range tools {
		phs, ok := toolHeaders(t)
		if !ok {
			c.log.Warn("mcp client: a tool's x-mcp-header annotations are invalid; it is left out", "tool", t.Name)
			delete(c.state.params, t.Name)
			continue
		}
		c.state.params[t.Name] = phs
		out = append(out, t)
	}
	return out
}

// inputRequest is one question of an input-required result.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// answerInputs answers the questions of an input-required result with
// the handlers of Options, by key. A question the client cannot answer
// fails the request, naming it.
func (c *Client) answerInputs(ctx context.Context, method string, reqs map[string]inputRequest) (map[string]any, error) {
	out := map[string]any{}
	for key, r := range reqs {
		res, err := c.answer(ctx, &message{Method: r.Method, Params: r.Params})
		if errors.Is(err, errNoHandler) {
			err = fmt.Errorf("the client has no handler for %s (set it in client.Options)", r.Method)
		}
		if err != nil {
			return nil, fmt.Errorf("mcp client: %s from %s asked %s: %w", method, c.serverName(), r.Method, err)
		}
		out[key] = res
	}
	return out, nil
}
