package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/engine"
)

// Extension is a protocol extension the server offers (SEP-2133): an
// identifier advertised with its settings under capabilities.extensions,
// the JSON-RPC requests it adds, and wrappers around requests the server
// already serves. Register it with [Server.AddExtension]; the engine then
// advertises and serves it on every transport, at every revision. The
// server's own extensions (MCP Apps with [Server.AddAppResource], skills
// with [Server.AddSkills]) are registered the same way.
//
// An extension is the client's to use or not (SEP-2133's graceful
// degradation): the client declares the extensions it supports in its
// capabilities, which a handler reads from the request's [Context]
// (FromContext(ctx).ClientCapabilities.Extensions), to answer a client
// that did not declare it as the core protocol would, or to refuse.
type Extension struct {
	// ID identifies the extension: a vendor prefix (a reversed domain name
	// its author controls: dot-separated labels of letters, digits and
	// hyphens), a slash, and a name of letters, digits, hyphens,
	// underscores and dots ("com.example/search"). Required; a breaking
	// change takes a new ID.
	ID string
	// Settings is what the server advertises for the extension: any value
	// that encodes as a JSON object (encoded once, here); nil advertises
	// {}. Initialize's result carries it at the 2025 revisions,
	// server/discover's at 2026-07-28.
	Settings any
	// Methods are the requests the extension adds, by method name. Each
	// handler gets the request as a [Call] and, in ctx, the request's
	// [Context] (FromContext: the client's capabilities, logs and
	// progress for the client); its result is any value json.Marshal
	// encodes, its error an *[Error] or, for any other error, -32603. A
	// name the engine serves itself, another extension's, a notification
	// ("notifications/…") or a reserved "rpc." name is refused.
	Methods map[string]CallHandler
	// Wrap runs around requests the server serves (the protocol's, its
	// extensions', this one's Methods), by method name, as an [Interceptor]
	// does, inside the interceptors of the request's context. next's
	// result is the method's: a *[ContentResult] for tools/call, for the
	// others a value to json.Marshal (and decode, to read it). The
	// extensions added earlier wrap those added later.
	Wrap map[string]Interceptor
}

// extensionSet is what the server's extensions add. It is published whole
// and never modified: a request reads it without a lock.
type extensionSet struct {
	ids      []string                   // in the order added
	settings map[string]json.RawMessage // advertised, by ID
	methods  map[string]CallHandler
	wraps    map[string]Interceptor // each method's wrappers, composed
	gen      uint64                 // counts the extensions added
}

// AddExtension makes the server offer e (see [Extension]). It panics when
// e is invalid: an ID that breaks the rule or was added before (the
// extensions the server implements itself, tasks, skills and MCP Apps,
// included), Settings that do not encode as a JSON object, a method name
// that is taken, or a Wrap of a method the server does not serve.
// Register extensions before serving: a client learns the capabilities
// once (at initialize, or from server/discover).
func (s *Server) AddExtension(e Extension) {
	must("AddExtension", s.addExtension(e))
}

// builtinExtensions are the extensions the server and its engine
// implement themselves; AddExtension refuses their IDs.
var builtinExtensions = []string{apps.Extension, SkillsExtension, TasksExtension}

func (s *Server) addExtension(e Extension) error {
	if !validExtensionID(e.ID) {
		return invalid("extension ID %q is not a vendor prefix, a slash and a name (\"com.example/search\")", e.ID)
	}
	if slices.Contains(builtinExtensions, e.ID) {
		return invalid("extension %s is the server's own: it is offered with AddAppResource, AddSkills or Tool.Task", e.ID)
	}
	settings, err := extensionSettings(e.ID, e.Settings)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.exts.Load()
	if old != nil && old.settings[e.ID] != nil {
		return invalid("extension %s is already added", e.ID)
	}
	for _, m := range slices.Sorted(maps.Keys(e.Methods)) {
		if err := checkExtensionMethod(old, e, m); err != nil {
			return err
		}
	}
	for _, m := range slices.Sorted(maps.Keys(e.Wrap)) {
		if e.Wrap[m] == nil {
			return invalid("extension %s: Wrap[%q] is nil", e.ID, m)
		}
		if !serves(old, e, m) {
			return invalid("extension %s wraps %q, which the server does not serve", e.ID, m)
		}
	}
	s.exts.Store(old.with(e.ID, settings, e.Methods, e.Wrap))
	return nil
}

// offer advertises one of the server's own extensions, once (AddSkills,
// AddAppResource); its methods are the engine's.
func (s *Server) offer(id string, settings json.RawMessage) {
	if s.offers(id) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.exts.Load(); old == nil || old.settings[id] == nil {
		s.exts.Store(old.with(id, settings, nil, nil))
	}
}

// offers reports whether the server advertises the extension id itself
// (see also hasApps: a mounted server's apps are offered through it).
func (s *Server) offers(id string) bool {
	x := s.exts.Load()
	return x != nil && x.settings[id] != nil
}

// with returns a copy of x (nil: none) with one more extension.
func (x *extensionSet) with(id string, settings json.RawMessage, methods map[string]CallHandler, wraps map[string]Interceptor) *extensionSet {
	n := &extensionSet{settings: map[string]json.RawMessage{id: settings}, methods: map[string]CallHandler{}, wraps: map[string]Interceptor{}}
	if x != nil {
		n.ids, n.gen = slices.Clone(x.ids), x.gen
		maps.Copy(n.settings, x.settings)
		maps.Copy(n.methods, x.methods)
		maps.Copy(n.wraps, x.wraps)
	}
	n.ids = append(n.ids, id)
	n.gen++
	maps.Copy(n.methods, methods)
	for m, w := range wraps {
		if outer := n.wraps[m]; outer != nil {
			inner := w
			w = func(next CallHandler) CallHandler { return outer(inner(next)) }
		}
		n.wraps[m] = w
	}
	return n
}

// validExtensionID reports whether id is "{vendor-prefix}/{name}" (SEP-2133,
// with the rules of _meta key prefixes): labels that start with a letter
// and end with a letter or digit, with letters, digits and hyphens
// between, separated by dots; then a name that starts and ends with a
// letter or digit, with letters, digits, hyphens, underscores and dots
// between.
func validExtensionID(id string) bool {
	prefix, name, ok := strings.Cut(id, "/")
	if !ok || prefix == "" || name == "" {
		return false
	}
	for label := range strings.SplitSeq(prefix, ".") {
		if label == "" || !isLetter(label[0]) || !isAlnum(label[len(label)-1]) ||
			strings.ContainsFunc(label, func(r rune) bool { return r > 0x7f || !isAlnum(byte(r)) && r != '-' }) {
			return false
		}
	}
	return isAlnum(name[0]) && isAlnum(name[len(name)-1]) &&
		!strings.ContainsFunc(name, func(r rune) bool { return r > 0x7f || !isAlnum(byte(r)) && !strings.ContainsRune("-_.", r) })
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// extensionSettings encodes v as the extension's settings, a JSON object.
func extensionSettings(id string, v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, invalid("extension %s: Settings do not encode as JSON: %v", id, err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, invalid("extension %s: Settings encode as %s, not a JSON object", id, clipJSON(b))
	}
	return b, nil
}

func clipJSON(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// checkExtensionMethod refuses a method name e may not add.
func checkExtensionMethod(x *extensionSet, e Extension, m string) error {
	switch {
	case e.Methods[m] == nil:
		return invalid("extension %s: Methods[%q] is nil", e.ID, m)
	case m == "" || strings.HasPrefix(m, "rpc."):
		return invalid("extension %s: method name %q is reserved by JSON-RPC", e.ID, m)
	case strings.HasPrefix(m, "notifications/"):
		return invalid("extension %s: %q names a notification; Methods are requests", e.ID, m)
	case slices.Contains(engine.Methods, m):
		return invalid("extension %s: method %q is served by the engine", e.ID, m)
	case x != nil && x.methods[m] != nil:
		return invalid("extension %s: method %q is another extension's", e.ID, m)
	}
	return nil
}

// serves reports whether m is a method the server serves once e is added.
func serves(x *extensionSet, e Extension, m string) bool {
	return slices.Contains(engine.Methods, m) || e.Methods[m] != nil || x != nil && x.methods[m] != nil
}

// extensionMethod returns the handler an extension added for method, or
// nil.
func (s *Server) extensionMethod(method string) CallHandler {
	if x := s.exts.Load(); x != nil {
		return x.methods[method]
	}
	return nil
}

// extensionWrap returns the extensions' wrappers of method, composed, or
// nil: one atomic load for a server without extensions.
func (s *Server) extensionWrap(method string) Interceptor {
	if x := s.exts.Load(); x != nil && len(x.wraps) > 0 {
		return x.wraps[method]
	}
	return nil
}

// advertised returns the extensions the server advertises, by ID
// (read-only), and a number that changes whenever they do.
func (s *Server) advertised() (map[string]json.RawMessage, uint64) {
	x := s.exts.Load()
	var settings map[string]json.RawMessage
	var gen uint64
	if x != nil {
		settings, gen = x.settings, x.gen<<1
	}
	if (x == nil || x.settings[apps.Extension] == nil) && s.mountsHaveApps() {
		// A mounted server's views are served through this one.
		settings = maps.Clone(settings)
		if settings == nil {
			settings = map[string]json.RawMessage{}
		}
		settings[apps.Extension] = json.RawMessage("{}")
		gen |= 1
	}
	return settings, gen
}
