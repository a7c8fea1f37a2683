// Package cache answers a repeated tool call from a cache of earlier
// answers, per caller, for tools that change nothing. It acts on the
// decoded requests through an mcp.Interceptor, so it sees every transport
// (Streamable HTTP, stdio, embedded, each request of a batch).
//
// An answer is kept only for its caller, by the identity rule of every
// caller comparison in mcpchain (internal/identity): a caller whose auth
// data names a subject (mcp.Subject) shares its answers across its
// sessions and the replicas that share the store; a caller without one
// (anonymous, or auth data without a subject) has nothing that outlives
// its session, so its answers are kept for its session alone; and a
// caller with neither a subject nor a session (stateless HTTP, revision
// 2026-07-28) is never cached, since nothing ties two of its requests
// together. An answer never crosses from one caller to another.
//
// Only tools that declare readOnlyHint in their annotations are cached,
// and those Options.Tools names: a read-only tool changes nothing, so an
// answer from the cache changes nothing either. idempotentHint alone is
// not enough: a second identical call has no further effect only while
// nobody else changed the world in between, and a cached answer would
// skip a call that should have run. isError results and JSON-RPC errors
// are never cached.
//
// The default store is in memory, bounded in entries and bytes, least
// recently used first out; package middleware/cache/rediscache keeps
// answers in Redis, shared by the replicas (a package of its own, so that
// a server that caches in memory does not link the Redis client).
package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/stderrlog"
	"github.com/mcpchain/mcp/internal/toolcall"
)

// Store keeps cached tool results under opaque keys (64 hex digits). The
// middleware hands it results it may keep and must not modify; Get must
// return a result the caller may modify (a copy), or decode a new one.
// Implementations must be safe for concurrent use.
type Store interface {
	// Get returns the result kept under key, false when there is none or
	// it expired.
	Get(ctx context.Context, key string) (*mcp.ContentResult, bool, error)
	// Set keeps res under key for ttl.
	Set(ctx context.Context, key string, res *mcp.ContentResult, ttl time.Duration) error
	// Clear drops every result: the server's tools changed.
	Clear(ctx context.Context) error
}

// Options configure [New]. The zero value caches read-only tools for a
// minute, in memory.
type Options struct {
	// TTL is how long an answer is served from the cache. Default: one
	// minute.
	TTL time.Duration
	// Tools are tools cached though their annotations do not say
	// readOnlyHint, by the name a client calls them: tools whose answer
	// may be repeated for TTL without calling them again.
	Tools []string
	// Vary, when set, adds to the key what else of the request an answer
	// depends on (a tenant header the tools read, say): requests with
	// different values never share an answer. It cannot widen sharing:
	// the caller is always part of the key.
	Vary func(r *http.Request) string
	// Store keeps the answers. Default: in memory, bounded by MaxEntries
	// and MaxBytes.
	Store Store
	// MaxEntries bounds the memory store's answers (default 10,000), and
	// MaxBytes their encoded size (default 32 MiB); when a new answer
	// would pass either, the least recently used go. They do not apply
	// to a Store of one's own.
	MaxEntries int
	MaxBytes   int64
}

// The defaults of [Options].
const (
	defaultTTL        = time.Minute
	defaultMaxEntries = 10_000
	defaultMaxBytes   = 32 << 20
)

// New returns a middleware that answers a tools/call from its cache when
// the same caller (see the package documentation) called the same tool,
// in the same version, with the same arguments and _meta (besides the
// progress token and the trace context), less than TTL ago, and the tool
// is read-only or named in Options.Tools. Otherwise it runs the call and
// keeps its answer, unless it is an error. The key also holds the
// protocol revision and what Options.Vary returns.
//
// The cache watches srv: when its tools change (a tool registered or
// removed, a Disable or Enable, a mounted server's change), every answer
// is dropped, so none outlives the definition it came from. The cache
// checks before answering that the caller may still see the tool. Place
// it after the authentication middleware, which it needs to tell callers
// apart, and after whatever sets a version filter (mcp.WithVersionFilter).
// A store's failure is logged and the call runs as if nothing were
// cached.
func New(srv *mcp.Server, opts Options) func(http.Handler) http.Handler {
	c := newCache(srv, opts, time.Now)
	ic := mcp.Interceptor(c.intercept)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), ic)))
		})
	}
}

type cache struct {
	srv   *mcp.Server
	ops   serverOps // srv's engine view (hooks.go)
	opts  Options
	store Store
	mem   *memStore // store, when it is the memory store
	// gen counts the changes of srv's tools; it is part of every key, so
	// an answer kept before a change is never found after it, even in a
	// store that has not finished clearing.
	gen atomic.Uint64
}

func newCache(srv *mcp.Server, opts Options, now func() time.Time) *cache {
	if opts.TTL <= 0 {
		opts.TTL = defaultTTL
	}
	c := &cache{srv: srv, ops: opsOf(srv), opts: opts, store: opts.Store}
	if c.store == nil {
		c.mem = newMemStore(cmpOr(opts.MaxEntries, defaultMaxEntries), cmpOr(opts.MaxBytes, int64(defaultMaxBytes)), now)
		c.store = c.mem
	}
	c.ops.Watch(func(ch change) {
		if ch.Kind == engine.ToolsChanged {
			c.changed()
		}
	})
	return c
}

func cmpOr[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// changed drops every answer: a new generation at once, and the store
// cleared (in the background for a store of one's own, which may be
// remote: a watcher must not block).
func (c *cache) changed() {
	c.gen.Add(1)
	if c.mem != nil {
		_ = c.mem.Clear(context.Background())
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.store.Clear(ctx); err != nil {
			c.srv.Logger().Warn("mcp cache: clearing the store after the tools changed failed; older answers expire with their TTL", "error", err)
		}
	}()
}

func (c *cache) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, call *mcp.Call) (any, error) {
		if call.Method != "tools/call" || call.ID == nil {
			return next(ctx, call)
		}
		gen := c.gen.Load()
		key, ok := c.key(ctx, call, gen)
		if !ok {
			return next(ctx, call)
		}
		if res, hit, err := c.store.Get(ctx, key); err != nil {
			logger(call).Warn("mcp cache: reading the store failed; the call runs", "error", err)
		} else if hit {
			return res, nil
		}
		res, err := next(ctx, call)
		r, isResult := res.(*mcp.ContentResult)
		if err != nil || !isResult || r == nil || r.IsError || c.gen.Load() != gen {
			return res, err // an error, a task, or an answer from before a change
		}
		if err := c.store.Set(ctx, key, r, c.opts.TTL); err != nil {
			logger(call).Warn("mcp cache: writing the store failed", "error", err)
		}
		return res, nil
	}
}

func logger(call *mcp.Call) interface {
	Warn(msg string, args ...any)
} {
	if call.Logger != nil {
		return call.Logger
	}
	return stderrlog.New()
}

// key is the cache key of call, false when it must not be cached: not a
// plain tools/call the engine would take, a caller nothing identifies
// across requests, a tool the caller may not see or that is not
// cacheable.
func (c *cache) key(ctx context.Context, call *mcp.Call, gen uint64) (string, bool) {
	p, ok := toolcall.Parse(call.Params)
	if !ok || p.Other {
		return "", false
	}
	scope, ok := cacheScope(call)
	if !ok {
		return "", false
	}
	tool, ok := c.ops.LookupTool(ctx, engine.Caller{Auth: call.Auth, SessionID: call.SessionID}, p.Name)
	if !ok {
		return "", false // the engine answers: an unknown tool
	}
	if !cacheableCall(tool, slices.Contains(c.opts.Tools, p.Name), p.Meta) {
		return "", false
	}
	args, ok := canonical(p.Arguments, nil)
	if !ok {
		return "", false
	}
	meta, ok := canonical(p.Meta, volatileMeta)
	if !ok {
		return "", false
	}
	vary := ""
	if c.opts.Vary != nil && call.Request != nil {
		vary = c.opts.Vary(call.Request)
	}
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], gen)
	h.Write([]byte("mcpchain-cache-v1"))
	h.Write(n[:])
	for _, part := range []string{scope, string(call.ProtocolVersion), p.Name, tool.Version, vary} {
		writePart(h, []byte(part))
	}
	writePart(h, args)
	writePart(h, meta)
	return hex.EncodeToString(h.Sum(nil)), true
}

// cacheScope is whose cache a call reads: its caller's identity, else
// its session; false when nothing identifies the caller across requests.
func cacheScope(call *mcp.Call) (string, bool) {
	if scope, ok := identity.Key(call.Auth); ok {
		return scope, true
	}
	if call.SessionID == "" {
		return "", false
	}
	return "session:" + call.SessionID, true
}

// cacheableCall reports whether a call of tool (with _meta meta) may be
// cached: the tool is read-only or opted in (optedIn), is not the tool of
// an MCP App (which clients may call it is decided after the
// interceptors), and the call does not ask for another version than the
// caller's default, whose annotations are the ones looked up.
func cacheableCall(tool mcp.Tool, optedIn bool, meta json.RawMessage) bool {
	if !optedIn && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) || tool.UI != nil {
		return false
	}
	return tool.Version == "" || optedIn || !versionAsked(meta, tool.Version)
}

// writePart writes b with its length first, so that no two sequences of
// parts hash the same bytes.
func writePart(h interface{ Write([]byte) (int, error) }, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	_, _ = h.Write(n[:])
	_, _ = h.Write(b)
}

// volatileMeta are the _meta members that change from one call to the
// next without changing its answer: the progress token and the W3C trace
// context.
var volatileMeta = []string{"progressToken", "traceparent", "tracestate", "baggage"}

// canonical is raw (JSON the engine checked: strictjson) in one form for
// every spelling of one value: objects' members sorted, no white space,
// strings escaped one way, numbers as written; drop names top-level
// members to leave out, and an object left empty by it is as absent (nil).
// false: raw does not decode.
func canonical(raw json.RawMessage, drop []string) ([]byte, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	var v any
	if err := unmarshalNumbers(raw, &v); err != nil {
		return nil, false
	}
	if m, ok := v.(map[string]any); ok && drop != nil {
		for _, k := range drop {
			delete(m, k)
		}
		if len(m) == 0 {
			return nil, true // as if absent
		}
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

// versionAsked reports whether params._meta asks for another version
// than def.
func versionAsked(meta json.RawMessage, def string) bool {
	var m map[string]json.RawMessage
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return false
	}
	raw, ok := m["mcpchain/version"]
	if !ok {
		return false
	}
	var want string
	return json.Unmarshal(raw, &want) != nil || mcp.CompareVersions(want, def) != 0
}

// unmarshalNumbers is json.Unmarshal keeping numbers as written
// (json.Number), so that no two numbers become one.
func unmarshalNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
