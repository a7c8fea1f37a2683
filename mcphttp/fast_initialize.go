package mcphttp

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// initializeParams are the params of initialize the engine reads.
type initializeParams struct {
	ProtocolVersion string                 `json:"protocolVersion"`
	Capabilities    mcp.ClientCapabilities `json:"capabilities"`
	ClientInfo      mcp.Implementation     `json:"clientInfo"`
}

// decodeInitialize reads the params of initialize: the common shape
// (see scanInitialize) without encoding/json, anything else through
// decodeParams, which words the error for what is wrong. Every session
// starts here, so its cost is part of each one.
func decodeInitialize(raw []byte) (initializeParams, error) {
	if p, ok := scanInitialize(raw); ok {
		return p, nil
	}
	var p initializeParams
	err := decodeParams(raw, &p)
	return p, err
}

// scanInitialize reads initialize params of the common shape: an object
// whose protocolVersion is a plain string (no escapes, valid UTF-8), whose
// capabilities are empty ({}), and whose clientInfo is an object of plain
// strings without icons; other members are ignored, as encoding/json ignores them. The
// strings are copied out of raw (which may alias a pooled body). ok is
// false for anything else (declared capabilities, an escaped or
// case-variant member name, a value of another type, null), which the
// full decode then reads. raw passed strictjson.Check with the message
// (jsonrpc.Decode), so it is valid JSON without duplicate members.
func scanInitialize(raw []byte) (p initializeParams, ok bool) {
	ok = strictjson.Members(raw, func(key, val []byte) bool {
		switch string(key) {
		case "protocolVersion":
			s, ok := plainString(val)
			p.ProtocolVersion = s
			return ok
		case "capabilities":
			return emptyObject(val)
		case "clientInfo":
			return strictjson.Members(val, func(key, val []byte) bool {
				var dst *string
				switch string(key) {
				case "name":
					dst = &p.ClientInfo.Name
				case "title":
					dst = &p.ClientInfo.Title
				case "version":
					dst = &p.ClientInfo.Version
				case "websiteUrl":
					dst = &p.ClientInfo.WebsiteURL
				default:
					// icons, an array of objects, is left to the full decode.
					return plainKey(key, "name", "title", "version", "websiteUrl", "icons")
				}
				s, ok := plainString(val)
				*dst = s
				return ok
			})
		}
		return plainKey(key, "protocolVersion", "capabilities", "clientInfo")
	})
	if !ok {
		return initializeParams{}, false
	}
	return p, true
}

// plainKey reports whether an ignored member name is safe to ignore: it
// has no escape and is none of names but for its case (encoding/json
// would match it to that field, and the full decode refuses it).
func plainKey(key []byte, names ...string) bool {
	if bytes.IndexByte(key, '\\') >= 0 {
		return false
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return false
		}
	}
	return true
}

// plainString returns the JSON string val without its quotes when it has
// no escape and is valid UTF-8 (encoding/json would repair it).
func plainString(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 || !utf8.Valid(val) {
		return "", false
	}
	return string(val[1 : len(val)-1]), true
}

// emptyObject reports whether val is {} (with any space inside).
func emptyObject(val []byte) bool {
	return len(val) >= 2 && val[0] == '{' && strictjson.SkipSpace(val, 1) == len(val)-1
}

// mayHaveMeta reports whether the JSON params may have a _meta member,
// which encoding/json matches case-insensitively and after unescaping:
// false only when no "_meta" appears in any case and nothing is escaped
// (no letter of "_meta" has a non-ASCII case fold), so that a request
// without one (initialize, most calls) is not decoded to look for it.
func mayHaveMeta(params []byte) bool {
	if bytes.IndexByte(params, '\\') >= 0 {
		return true
	}
	for i := 0; ; {
		j := bytes.IndexByte(params[i:], '_')
		if j < 0 {
			return false
		}
		i += j
		if i+5 <= len(params) && bytes.EqualFold(params[i:i+5], []byte("_meta")) {
			return true
		}
		i++
	}
}
