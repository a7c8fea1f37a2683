package mcphttp

import (
	"encoding/json"
	"strconv"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// rev20260728Result adds to a result what 2026-07-28 puts on every one:
// resultType, the server's identity in _meta, and on lists, reads and
// discover the caching fields ttlMs and cacheScope. Their values are the
// hint the method decided (k.cache: the author's, under the rules of
// mcp.CacheHint); without one (an interceptor answered without running
// the method) ttlMs 0, and cacheScope private when the request carried
// auth data, public otherwise. A request retried with inputResponses or
// requestState gets ttlMs 0 and private: clients must not cache it, and
// it holds the user's answers. Members the result already has are kept.
func (h *Handler) rev20260728Result(k *call, b []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	setDefault := func(key, v string) {
		if _, ok := m[key]; !ok {
			m[key] = json.RawMessage(v)
		}
	}
	setDefault("resultType", `"complete"`)
	// An input-required result (rev20260728_mrtr.go) is one round's, never cached.
	if methodTable[k.msg.Method].cached && string(m["resultType"]) != `"input_required"` {
		c := k.cache
		switch {
		case k.round != nil && k.round.retried:
			c = engine.Cache{Set: true, Private: true}
		case !c.Set:
			c = engine.Cache{Private: k.auth != nil}
		}
		setDefault("ttlMs", strconv.FormatInt(c.TTLMs, 10))
		if c.Private {
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
		o := h.ops.Options()
		si, err := json.Marshal(mcp.Implementation{Name: o.Name, Title: o.Title, Version: o.Version})
		if err != nil {
			return nil, err
		}
		meta[metaServerInfo] = si
	}
	m["_meta"] = appendObject(nil, meta)
	return appendObject(make([]byte, 0, len(b)+128), m), nil
}
