// Package toolcall reads the params of a tools/call request for the
// middleware that act on tool results (middleware/sizelimit,
// middleware/cache), as strictly as the engine does: an object whose
// members are named exactly, without duplicates, within the engine's
// nesting limit, so that what a middleware reads is what the engine runs.
package toolcall

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// Params are the members of a tools/call's params.
type Params struct {
	// Name is the tool's name.
	Name string
	// Arguments are the arguments as sent (nil when absent).
	Arguments json.RawMessage
	// Meta is params._meta as sent (nil when absent).
	Meta json.RawMessage
	// Other says params has a member besides name, arguments and _meta
	// (2025-11-25's task, 2026-07-28's inputResponses and requestState):
	// a request whose answer depends on more than the tool and its
	// arguments.
	Other bool
}

// Parse reads params. It reports false when params is not a JSON object
// with a string member "name", or a member's name is written with an
// escape or differs from name, arguments or _meta only in case (the
// engine's fast path refuses those too), or params is not JSON the
// engine would take (strictjson.Check).
func Parse(params []byte) (Params, bool) {
	var p Params
	if strictjson.Check(params, 0) != nil {
		return p, false
	}
	haveName := false
	ok := strictjson.Members(params, func(key, val []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		switch string(key) {
		case "name":
			p.Name, haveName = nameOf(val)
			return haveName
		case "arguments":
			p.Arguments = val
		case "_meta":
			p.Meta = val
		default:
			if imitatesMember(key) {
				return false
			}
			p.Other = true
		}
		return true
	})
	if !ok || !haveName {
		return Params{}, false
	}
	return p, true
}

// nameOf reads the name member's value val (checked JSON); false when it
// is not a string.
func nameOf(val []byte) (string, bool) {
	switch {
	case len(val) < 2 || val[0] != '"':
		return "", false
	case bytes.IndexByte(val, '\\') < 0 && utf8.Valid(val):
		return string(val[1 : len(val)-1]), true // a string without escapes
	}
	var name string
	if json.Unmarshal(val, &name) != nil {
		return "", false
	}
	return name, true
}

// imitatesMember reports whether key differs from name, arguments or
// _meta only in case (it is not one of them).
func imitatesMember(key []byte) bool {
	return bytes.EqualFold(key, []byte("name")) || bytes.EqualFold(key, []byte("arguments")) || bytes.EqualFold(key, []byte("_meta"))
}
