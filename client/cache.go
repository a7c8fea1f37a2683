package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// maxCacheEntries bounds the results a client keeps: a server that
// marks every page of a long list cacheable does not grow the client
// without bound.
const maxCacheEntries = 512

// resultCache keeps the results a server said a client may reuse: at
// revision 2026-07-28 a list page, a resource read and server/discover
// carry ttlMs (how long) and cacheScope (public, or private to the
// caller). A result is reused until its ttlMs runs out or the server
// says the list (notifications/*/list_changed) or the resource
// (notifications/resources/updated) changed. Each Client has its own
// cache and a Client speaks for one caller, so a private result is
// never served to another identity.
type resultCache struct {
	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	gen     uint64 // counts the notifications that dropped entries
	now     func() time.Time
}

// cacheKey names a result: the method and what selects it (a list
// page's cursor, a resource's URI).
type cacheKey struct{ method, arg string }

type cacheEntry struct {
	raw     json.RawMessage
	expires time.Time
}

func newResultCache() *resultCache {
	return &resultCache{entries: map[cacheKey]cacheEntry{}, now: time.Now}
}

// get returns the result kept under k, if it is still fresh.
func (rc *resultCache) get(k cacheKey) (json.RawMessage, bool) {
	if rc == nil {
		return nil, false
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	e, ok := rc.entries[k]
	if !ok {
		return nil, false
	}
	if !rc.now().Before(e.expires) {
		delete(rc.entries, k)
		return nil, false
	}
	return e.raw, true
}

// generation is taken before a request whose result put may keep.
func (rc *resultCache) generation() uint64 {
	if rc == nil {
		return 0
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.gen
}

// put keeps raw under k for as long as its ttlMs says; a result without
// a positive ttlMs is not kept, nor one whose request was sent before a
// change was announced (gen is the generation taken then): the server
// may have answered it from the list before the change.
func (rc *resultCache) put(k cacheKey, raw json.RawMessage, gen uint64) {
	if rc == nil {
		return
	}
	var hint struct {
		TTLMs int64 `json:"ttlMs"`
	}
	if json.Unmarshal(raw, &hint) != nil || hint.TTLMs <= 0 {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.gen != gen {
		return
	}
	now := rc.now()
	if len(rc.entries) >= maxCacheEntries {
		for key, e := range rc.entries {
			if !now.Before(e.expires) {
				delete(rc.entries, key)
			}
		}
		if len(rc.entries) >= maxCacheEntries {
			return
		}
	}
	rc.entries[k] = cacheEntry{raw: raw, expires: now.Add(time.Duration(hint.TTLMs) * time.Millisecond)}
}

// changed drops what a notification from the server says is stale. It
// runs on the reader, before any later answer is handed out, so no
// call made after the notification arrived gets a result it outdated.
func (rc *resultCache) changed(method string, params json.RawMessage) {
	if rc == nil {
		return
	}
	var methods []string
	switch method {
	case "notifications/tools/list_changed":
		methods = []string{"tools/list"}
	case "notifications/prompts/list_changed":
		methods = []string{"prompts/list"}
	case "notifications/resources/list_changed":
		methods = []string{"resources/list", "resources/templates/list"}
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		rc.mu.Lock()
		rc.gen++
		delete(rc.entries, cacheKey{"resources/read", p.URI})
		rc.mu.Unlock()
		return
	default:
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.gen++
	for k := range rc.entries {
		for _, m := range methods {
			if k.method == m {
				delete(rc.entries, k)
			}
		}
	}
}

// clear drops every result kept: changes may have been missed (a listen
// stream reopened after a gap).
func (rc *resultCache) clear() {
	if rc == nil {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.gen++
	clear(rc.entries)
}

// cachedCall is call for a result the server may let the client reuse
// (arg selects it: a cursor, a URI): a fresh kept result answers without
// a round trip; else the answer is kept as its ttlMs says.
func (c *Client) cachedCall(ctx context.Context, method, arg string, params, result any) error {
	rc := c.cache
	if rc == nil {
		return c.call(ctx, method, params, result)
	}
	k := cacheKey{method, arg}
	raw, ok := rc.get(k)
	if !ok {
		gen := rc.generation()
		if err := c.call(ctx, method, params, &raw); err != nil {
			return err
		}
		rc.put(k, raw, gen)
	}
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("mcp client: the result of %s from %s does not decode: %w", method, c.serverName(), err)
	}
	return nil
}
