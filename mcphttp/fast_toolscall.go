package mcphttp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// scanToolsCall reads the params of a tools/call the common way, without
// encoding/json: an object whose "name" is a string without escapes and
// with "arguments" and no "_meta" or "task", the other members ignored as
// encoding/json ignores them. The arguments are copied out of raw (which
// may alias a pooled body). ok is false for anything else (an escaped or
// case-variant member name, _meta, a name that is not a plain string of
// valid UTF-8, which encoding/json would repair),
// which decodeParams then reads and, when wrong, words the error for.
// raw passed strictjson.Check with the message (jsonrpc.Decode), so it is
// valid JSON without duplicate members.
func scanToolsCall(raw []byte) (name string, args json.RawMessage, ok bool) {
	var haveName bool
	ok = strictjson.Members(raw, func(key, val []byte) bool {
		switch string(key) {
		case "name":
			if val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 || !utf8.Valid(val) {
				return false
			}
			name, haveName = string(val[1:len(val)-1]), true
		case "arguments":
			args = append(json.RawMessage(nil), val...)
		default:
			// _meta, task (2025-11-25's task augmentation), and any name
			// that is one of them but for its case or an escape: the full
			// decode.
			if bytes.IndexByte(key, '\\') >= 0 || bytes.EqualFold(key, []byte("name")) ||
				bytes.EqualFold(key, []byte("arguments")) || bytes.EqualFold(key, []byte("_meta")) ||
				bytes.EqualFold(key, []byte("task")) {
				return false
			}
		}
		return true
	})
	if !ok || !haveName {
		return "", nil, false
	}
	return name, args, true
}
