// Package jsonrpc decodes and encodes JSON-RPC 2.0 messages strictly.
//
// Go's encoding/json matches object keys case-insensitively and lets the
// last duplicate win, which let a second "Method" key smuggle a method past
// checks in other Go SDKs (GHSA-wvj2-96wp-fq3f). Decode walks the top-level
// members itself: keys must match exactly, a case variant of a member name
// or a duplicate member is an invalid request.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// Message is one decoded JSON-RPC message. The raw members alias the input.
type Message struct {
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
}

// IsRequest reports whether m is a request (method and id).
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification (method, no id).
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m is a response (result or error, no method).
func (m *Message) IsResponse() bool { return m.Method == "" }

// IDKey returns the id as a map key: its JSON text, with a string id
// normalized so "1" and 1 stay distinct.
func (m *Message) IDKey() string { return string(m.ID) }

// DecodeError is a message that could not be decoded. ID is set when the
// id could be read, so the error response can name it.
type DecodeError struct {
	Code    int
	Message string
	ID      json.RawMessage
}

// Error implements error.
func (e *DecodeError) Error() string { return e.Message }

// IsBatch reports whether data (after leading white space) is a JSON array.
func IsBatch(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '['
}

// Defaults of [Limits].
const (
	// DefaultMaxDepth bounds how deeply a message nests objects and
	// arrays; see strictjson.DefaultMaxDepth.
	DefaultMaxDepth = strictjson.DefaultMaxDepth
	// DefaultMaxBatch bounds the number of messages in a batch.
	DefaultMaxBatch = 100
)

// Limits bound what a decoder accepts before any message is acted on. The
// zero value means the defaults.
type Limits struct {
	// MaxDepth bounds the nesting of objects and arrays in one message
	// (the message object itself is level 1). Default [DefaultMaxDepth].
	MaxDepth int
	// MaxBatch bounds the number of messages in a batch. Default
	// [DefaultMaxBatch].
	MaxBatch int
	// Setting names where the limits are configured ("mcphttp.Options"),
	// so that an error names the field to raise: "(the limit of
	// mcphttp.Options.MaxDepth)". Empty: errors name no setting.
	Setting string
}

// limitOf says which setting a limit comes from, for an error message.
func (l Limits) limitOf(field string) string {
	if l.Setting == "" {
		return ""
	}
	return " (" + l.Setting + "." + field + ")"
}

func (l Limits) depth() int {
	if l.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return l.MaxDepth
}

func (l Limits) batch() int {
	if l.MaxBatch <= 0 {
		return DefaultMaxBatch
	}
	return l.MaxBatch
}

// Decode decodes one message with the default [Limits].
func Decode(data []byte) (*Message, error) { return Limits{}.Decode(data) }

// DecodeBatch decodes a batch with the default [Limits].
func DecodeBatch(data []byte) ([]*Message, []error, error) { return Limits{}.DecodeBatch(data) }

// Decode decodes one message. A body that is not JSON is
// [CodeParseError]; a JSON value that is not a valid JSON-RPC 2.0
// message, or that nests deeper than l allows, is [CodeInvalidRequest];
// a duplicate member name inside params is [CodeInvalidParams]. The
// whole input is checked in one linear pass before anything else reads it.
func (l Limits) Decode(data []byte) (*Message, error) {
	return l.decode(data, strictjson.Check(data, l.depth()))
}

// decode finishes Decode given the result of strictjson.Check on data.
func (l Limits) decode(data []byte, checkErr error) (*Message, error) {
	if checkErr == nil {
		return decodeValid(data)
	}
	var (
		se  *strictjson.SyntaxError
		de  *strictjson.DepthError
		dup *strictjson.DuplicateError
	)
	switch {
	case errors.As(checkErr, &se):
		return nil, &DecodeError{Code: CodeParseError, Message: "Parse error: the body is not valid JSON"}
	case errors.As(checkErr, &de):
		// The envelope scan is not recursive: read the id if it can be.
		var id json.RawMessage
		if m, err := decodeValid(data); err == nil && json.Valid(m.ID) {
			id = m.ID
		}
		return nil, invalid(id, fmt.Sprintf("the message nests objects and arrays deeper than the limit of %d levels%s", de.Limit, l.limitOf("MaxDepth")))
	}
	m, err := decodeValid(data)
	if err != nil || !errors.As(checkErr, &dup) {
		return m, err
	}
	// A duplicate member below the envelope (one in the envelope itself
	// was refused by decodeValid above).
	if m.Params != nil {
		start := cap(data) - cap(m.Params)
		if dup.Offset > start && dup.Offset < start+len(m.Params) {
			return nil, &DecodeError{Code: CodeInvalidParams, Message: "Invalid params: " + dup.Error(), ID: invalid(m.ID, "").ID}
		}
	}
	return nil, invalid(m.ID, dup.Error())
}

// DecodeBatch decodes a JSON array of messages. Each element that fails
// gets its own error at the same index. A batch longer than l allows is
// refused whole, before any element is decoded.
func (l Limits) DecodeBatch(data []byte) ([]*Message, []error, error) {
	err := strictjson.Check(data, l.depth()+1)
	var se *strictjson.SyntaxError
	if errors.As(err, &se) {
		return nil, nil, &DecodeError{Code: CodeParseError, Message: "Parse error: the body is not valid JSON"}
	}
	var de *strictjson.DepthError
	if errors.As(err, &de) {
		return nil, nil, &DecodeError{Code: CodeInvalidRequest, Message: fmt.Sprintf("Invalid Request: a message of the batch nests objects and arrays deeper than the limit of %d levels%s", de.Limit-1, l.limitOf("MaxDepth"))}
	}
	if !IsBatch(data) {
		return nil, nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid Request: a batch must be a JSON array"}
	}
	elems, n := splitArray(data, l.batch())
	if n > l.batch() {
		return nil, nil, &DecodeError{Code: CodeInvalidRequest, Message: fmt.Sprintf("Invalid Request: a batch of %d messages exceeds the limit of %d%s; send fewer messages per POST", n, l.batch(), l.limitOf("MaxBatch"))}
	}
	if n == 0 {
		return nil, nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid Request: empty batch"}
	}
	msgs := make([]*Message, len(elems))
	errs := make([]error, len(elems))
	for i, e := range elems {
		var elemErr error
		if err != nil { // a duplicate somewhere: find which elements have one
			elemErr = strictjson.Check(e, l.depth())
		}
		msgs[i], errs[i] = l.decode(e, elemErr)
	}
	return msgs, errs, nil
}

// splitArray returns the elements of a valid JSON array and how many it
// has; past max it only counts them (a linear scan of input Check already
// accepted), so the error can say how long the batch was.
func splitArray(data []byte, max int) ([][]byte, int) {
	s := scanner{data: data}
	s.ws()
	s.consume('[')
	var elems [][]byte
	n := 0
	for {
		s.ws()
		if s.pos >= len(s.data) || s.consume(']') {
			return elems, n
		}
		start := s.pos
		s.skipValue()
		n++
		if n > max {
			elems = nil
		} else {
			elems = append(elems, data[start:s.pos])
		}
		s.ws()
		s.consume(',')
	}
}

var members = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

func decodeValid(data []byte) (*Message, error) {
	s := scanner{data: data}
	s.ws()
	if !s.consume('{') {
		return nil, invalid(nil, "the message must be a JSON object")
	}
	var (
		m       Message
		seen    [len(members)]bool
		version []byte
	)
	s.ws()
	if s.consume('}') {
		return nil, invalid(nil, `missing "jsonrpc": "2.0"`)
	}
	for {
		s.ws()
		key, ok := s.name()
		if !ok {
			return nil, invalid(m.ID, "malformed member name")
		}
		s.ws()
		s.consume(':')
		s.ws()
		start := s.pos
		s.skipValue()
		val := data[start:s.pos]
		idx := memberIndex(key)
		if idx < 0 {
			if name, ok := caseVariant(key); ok {
				return nil, invalid(m.ID, fmt.Sprintf("member %s is not a JSON-RPC member: member names are case-sensitive (did you mean %q?)", strictjson.Quote(key), name))
			}
		} else {
			if seen[idx] {
				return nil, invalid(m.ID, "duplicate member "+strictjson.Quote(key))
			}
			seen[idx] = true
			switch idx {
			case 0:
				version = val
			case 1:
				m.ID = val
			case 3:
				m.Params = val
			default:
				if err := m.set(idx, val); err != nil {
					return nil, err
				}
			}
		}
		s.ws()
		if !s.consume(',') {
			break
		}
	}
	if err := m.checkID(seen[2]); err != nil {
		return nil, err
	}
	if string(version) != `"2.0"` {
		return nil, invalid(m.ID, `"jsonrpc" must be "2.0"`)
	}
	if err := m.checkKind(seen[2], seen[4], seen[5]); err != nil {
		return nil, err
	}
	return &m, nil
}

// memberIndex is the index of key in members, or -1 for a member
// JSON-RPC does not define.
func memberIndex(key string) int {
	for i, name := range members {
		if key == name {
			return i
		}
	}
	return -1
}

// caseVariant returns the member of JSON-RPC that key spells in other
// cases: an error, since member names are case-sensitive.
func caseVariant(key string) (string, bool) {
	for _, name := range members {
		if strings.EqualFold(key, name) {
			return name, true
		}
	}
	return "", false
}

// set stores the value of members[idx] (method, result or error) in m.
func (m *Message) set(idx int, val []byte) error {
	switch idx {
	case 2:
		if val[0] != '"' {
			return invalid(m.ID, `"method" must be a string`)
		}
		var ok bool
		if m.Method, ok = method(val); !ok || m.Method == "" {
			return invalid(m.ID, `"method" must be a non-empty string`)
		}
	case 4:
		m.Result = val
	case 5:
		m.Error = val
	}
	return nil
}

// checkID refuses an id that is neither a string nor a number, and a
// null one outside an error response (hasMethod: the message is a
// request).
func (m *Message) checkID(hasMethod bool) error {
	if m.ID == nil {
		return nil
	}
	switch c := m.ID[0]; {
	case c == '"':
	case c == 'n': // null: only valid in error responses
		if hasMethod {
			return invalid(nil, `"id" must be a string or a number, not null`)
		}
	case c != '-' && (c < '0' || c > '9'):
		id := m.ID
		m.ID = nil
		return invalid(nil, fmt.Sprintf(`"id" must be a string or a number, not %s`, kindOf(id)))
	}
	return nil
}

// checkKind refuses a message that is neither a request or notification
// (a method, no result or error, params an object or array) nor a
// response (result or error, not both, and an id).
func (m *Message) checkKind(hasMethod, hasResult, hasError bool) error {
	switch {
	case hasMethod: // request or notification
		if hasResult || hasError {
			return invalid(m.ID, `a request has no "result" or "error"`)
		}
		if m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[' {
			return invalid(m.ID, `"params" must be an object`)
		}
	case hasResult || hasError:
		if hasResult && hasError {
			return invalid(m.ID, `a response has "result" or "error", not both`)
		}
		if m.ID == nil {
			return invalid(nil, `a response needs an "id"`)
		}
	default:
		return invalid(m.ID, `the message has no "method", "result" or "error"`)
	}
	return nil
}

func kindOf(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return string(v)
}

func invalid(id json.RawMessage, msg string) *DecodeError {
	// Only a string or number id may be echoed in the error response; an
	// id of another type (null, object, array, boolean) is dropped.
	if id != nil && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		id = nil
	}
	return &DecodeError{Code: CodeInvalidRequest, Message: "Invalid Request: " + msg, ID: id}
}

// scanner walks JSON that json.Valid accepted.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// str reads a string and returns its decoded value.
func (s *scanner) str() (string, bool) {
	if !s.consume('"') {
		return "", false
	}
	start := s.pos
	escaped := false
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos += 2
			continue
		case '"':
			raw := s.data[start:s.pos]
			s.pos++
			if !escaped {
				return string(raw), true
			}
			var v string
			if err := json.Unmarshal(s.data[start-1:s.pos], &v); err != nil {
				return "", false
			}
			return v, true
		}
		s.pos++
	}
	return "", false
}

// name reads a member name: the string's value when it has an escape,
// else a string that shares the input's bytes, made without a copy (one
// allocation per member otherwise): decodeValid only compares it, or
// quotes it into an error message (a copy), and never keeps it.
func (s *scanner) name() (string, bool) {
	start := s.pos
	if !s.consume('"') {
		return "", false
	}
	end := strictjson.Skip(s.data, start)
	if end <= start+1 || end > len(s.data) || s.data[end-1] != '"' {
		return s.strAt(start)
	}
	raw := s.data[start+1 : end-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return s.strAt(start)
	}
	s.pos = end
	return unsafe.String(unsafe.SliceData(raw), len(raw)), true
}

// strAt reads the string at start with str.
func (s *scanner) strAt(start int) (string, bool) {
	s.pos = start
	return s.str()
}

// method is unquote for the "method" member: the common methods' names are
// the constants below rather than a copy, which would be an allocation
// per message.
func method(v []byte) (string, bool) {
	if len(v) >= 2 {
		switch name := v[1 : len(v)-1]; string(name) {
		case "tools/call":
			return "tools/call", true
		case "tools/list":
			return "tools/list", true
		case "initialize":
			return "initialize", true
		case "notifications/initialized":
			return "notifications/initialized", true
		case "ping":
			return "ping", true
		case "resources/read":
			return "resources/read", true
		case "resources/list":
			return "resources/list", true
		case "prompts/get":
			return "prompts/get", true
		case "prompts/list":
			return "prompts/list", true
		case "notifications/cancelled":
			return "notifications/cancelled", true
		case "notifications/progress":
			return "notifications/progress", true
		}
	}
	return unquote(v)
}

// unquote decodes a JSON string that strictjson.Check accepted: a copy of
// its bytes when it has no escape and is valid UTF-8, encoding/json's
// decoding otherwise (which turns each invalid byte into U+FFFD, so the
// method routed is the one every other decoder of the message reads).
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1]), true
	}
	var out string
	if err := json.Unmarshal(v, &out); err != nil {
		return "", false
	}
	return out, true
}

// skipValue moves past one value (strictjson.Skip: without decoding the
// strings in it).
func (s *scanner) skipValue() { s.pos = strictjson.Skip(s.data, s.pos) }

// AppendResult appends a success response.
func AppendResult(b []byte, id json.RawMessage, result []byte) []byte {
	b = AppendResultHead(b, id)
	b = append(b, result...)
	return append(b, '}')
}

// AppendResultHead appends the start of a success response, up to where
// its result goes: a caller that encodes the result itself appends it
// and then '}', so that the response takes one buffer and no copy of the
// result.
func AppendResultHead(b []byte, id json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	return append(b, `,"result":`...)
}

// AppendError appends an error response; a nil id is written as null.
func AppendError(b []byte, id json.RawMessage, code int64, message string, data any) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, message)
	if data != nil {
		if d, err := json.Marshal(data); err == nil {
			b = append(b, `,"data":`...)
			b = append(b, d...)
		}
	}
	return append(b, "}}"...)
}

// AppendNotification appends a notification; params may be nil.
func AppendNotification(b []byte, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = AppendString(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// AppendRequest appends a request with a numeric id.
func AppendRequest(b []byte, id int64, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = AppendString(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

func appendID(b []byte, id json.RawMessage) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return append(b, id...)
}

// AppendString appends s as a JSON string.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf && c != '<' && c != '>' && c != '&' {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// ResponseError is the error member of a response.
type ResponseError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}
