package jsonrpc

import (
	"encoding/json"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// PrefixID returns the id of the JSON-RPC message whose body begins with
// data, or nil. data may be cut anywhere (a body over the size limit, or
// one that stopped arriving), so an error answered before the whole body
// was read can still name the request: clients such as the official Go
// SDK end their whole connection on an error status whose JSON-RPC error
// has a null id, and fail only the one call when it has the call's id.
// Only a string or number id whose member ends before the cut is
// returned; members before it are skipped without being checked.
func PrefixID(data []byte) json.RawMessage {
	i := strictjson.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	i++
	for {
		i = strictjson.SkipSpace(data, i)
		end, ok := stringEnd(data, i)
		if !ok {
			return nil
		}
		key := data[i+1 : end-1]
		i = strictjson.SkipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil
		}
		i = strictjson.SkipSpace(data, i+1)
		if i >= len(data) {
			return nil
		}
		if string(key) == "id" {
			return prefixIDValue(data, i)
		}
		i = strictjson.Skip(data, i)
		i = strictjson.SkipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			return nil
		}
		i++
	}
}

// prefixIDValue returns the string or number at data[i:] when it is
// complete (a number followed by a delimiter, a string by its closing
// quote) and valid JSON.
func prefixIDValue(data []byte, i int) json.RawMessage {
	var end int
	switch c := data[i]; {
	case c == '"':
		e, ok := stringEnd(data, i)
		if !ok {
			return nil
		}
		end = e
	case c == '-' || (c >= '0' && c <= '9'):
		end = i
		for end < len(data) && isNumberByte(data[end]) {
			end++
		}
		if end == len(data) { // the number may go on past the cut
			return nil
		}
	default:
		return nil
	}
	v := data[i:end]
	if !json.Valid(v) {
		return nil
	}
	return json.RawMessage(v)
}

// stringEnd returns the index just past the JSON string that starts at
// data[i], and whether one starts there and ends before the cut.
func stringEnd(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
