package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/internal/toolname"
)

// MountOptions configure a [Server.Mount] or a [Server.Import]. The zero
// value (or nil) mounts the child as it is.
//
// Names: under prefix p, the child's tool (or prompt) x is p_x in the
// parent, and its resource (or template) scheme://rest is scheme://p/rest:
// the prefix becomes the first segment after "://", as in Python
// FastMCP, so a client that dispatches on the scheme (ui://, file://)
// still can. A prefix is empty or 1 to 64 ASCII letters, digits and
// hyphens: with no underscore and no slash in it, the split at the first
// "_" (or at the first "/" after "://") finds it again, so names map both
// ways and two mounts never claim the same name. A child's URI without
// "//" after its scheme (urn:isbn:…, mailto:…), or a template that starts
// with a variable, has no place for the prefix: it is not offered through
// a prefixed mount (an empty prefix offers it as is); neither is a tool
// whose prefixed name would break the tool-name rule (over 128
// characters). Templates stay valid RFC 6570: the prefix is literal text.
//
// Collisions: the parent's own objects come first: one of the parent's
// that has the same name as a mounted one hides it (for the callers who
// see the parent's object). Then the mounts, in the order they were made:
// with the empty prefix, two children may offer the same name, and the
// first mount wins.
type MountOptions struct {
	// CanAccess, when set, is an access check on every object of the
	// child, run before the child's own checks: a refused caller sees
	// nothing of the child (see [access.Check]).
	CanAccess access.Check
	// Tags are added to the tags of every object of the child, so that
	// the parent's [Registry.Disable] and [Registry.Enable] (and an
	// [access.Policy]) can select the whole child at once.
	Tags []string
}

// Mounted is a live mount made by [Server.Mount]; Unmount removes it.
type Mounted struct {
	parent *Server
	m      *mount
}

// mount is one child of a server.
type mount struct {
	prefix    string
	child     *Server
	canAccess access.Check
	tags      []string
	stopWatch func()
	stopTrack func()
	// enc caches the tools/list form of the child's tools under their
	// names in the parent (key mountedToolKey), cleared on every change of
	// the child's tools.
	enc sync.Map
}

type mountedToolKey struct {
	e   *toolEntry
	key string
}

// mountMu serializes every change of any server's mounts, so that the
// cycle check sees a graph no other Mount changes meanwhile.
var mountMu sync.Mutex

// Mount serves child's tools, resources, resource templates and prompts
// through s, under prefix (see the rules at [MountOptions]), live: what
// the child registers or removes later shows in s at once, and s's
// clients are sent list_changed; the child's [Server.ResourceUpdated]
// reaches s's subscribers under the prefixed URI, and its
// [Server.LogToClients] reaches s's clients.
//
// The child's functions run with s's request: the same [Context] (its
// SessionID, Session, Client, ProtocolVersion), so their Log, progress,
// sampling, elicitation and roots reach s's client. The child's
// per-session objects and rules (the child's [Server.SessionRegistry])
// apply for the sessions of s: a session ID
// s's transport holds is live for the child too.
//
// Checks, in order, for an object of the child: the mount's CanAccess;
// the child's (the object's own CanAccess, the child's Disable and Enable
// rules, per session too, under the child's own name); then s's Disable
// and Enable rules and the request's access policies ([access.WithPolicy]),
// under the prefixed name, with the object's
// tags plus the mount's. All must admit it. The tool's Timeout is its
// own; interceptors ([WithInterceptor]) wrap s's request, so they see the
// prefixed name once. The child's skills, HTTP routes and Options (auth,
// instructions) play no part: those of s apply.
//
// It panics when prefix is not one ([MountOptions]), a mount of s
// already has this prefix, child is nil, or the mount would make a cycle
// (child is s, or s is mounted in child or below it); mounts made at run
// time use [Registry.Mount].
func (s *Server) Mount(prefix string, child *Server, opts *MountOptions) *Mounted {
	m, err := s.tryMount(prefix, child, opts)
	must("Mount", err)
	return m
}

// tryMount is [Server.Mount] returning the error ([Registry.Mount]).
func (s *Server) tryMount(prefix string, child *Server, opts *MountOptions) (*Mounted, error) {
	if err := checkMount(prefix, child); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &MountOptions{}
	}
	m := &mount{prefix: prefix, child: child, canAccess: opts.CanAccess, tags: slices.Clone(opts.Tags)}
	mountMu.Lock()
	if reaches(child, s) {
		mountMu.Unlock()
		if child == s {
			return nil, invalid("mount %q: a server cannot be mounted into itself", prefix)
		}
		return nil, invalid("mount %q: server %q is already mounted in server %q (or below it): mounting it would make a cycle",
			prefix, s.opts.Name, child.opts.Name)
	}
	var prev []*mount
	if p := s.mounts.Load(); p != nil {
		prev = *p
	}
	if prefix != "" && slices.ContainsFunc(prev, func(x *mount) bool { return x.prefix == prefix }) {
		mountMu.Unlock()
		return nil, fmt.Errorf("mount prefix %q is %w", prefix, ErrAlreadyRegistered)
	}
	m.stopWatch = child.watch(func(ch change) { s.fromChild(m, ch) })
	m.stopTrack = child.trackSessions(s.sessionLive)
	next := append(slices.Clone(prev), m)
	s.mounts.Store(&next)
	mountMu.Unlock()
	s.notifyAllKinds()
	return &Mounted{parent: s, m: m}, nil
}

// Unmount removes the mount: the child's objects leave the parent, whose
// clients are sent list_changed, and the child forgets its per-session
// objects and rules for the parent's sessions. A second call does
// nothing.
func (h *Mounted) Unmount() {
	s := h.parent
	mountMu.Lock()
	p := s.mounts.Load()
	if p == nil || !slices.Contains(*p, h.m) {
		mountMu.Unlock()
		return
	}
	next := slices.DeleteFunc(slices.Clone(*p), func(x *mount) bool { return x == h.m })
	if len(next) == 0 {
		s.mounts.Store(nil)
	} else {
		s.mounts.Store(&next)
	}
	mountMu.Unlock()
	h.m.stopWatch()
	h.m.stopTrack()
	h.m.child.dropDeadSessions()
	h.m.child.unmounted() // sessionlive.go
	s.notifyAllKinds()
}

// dropDeadSessions drops what s (and the servers mounted in it) kept for
// sessions no transport or parent holds any longer: after an Unmount,
// those of the former parent's sessions, which will not be told when
// they end.
func (s *Server) dropDeadSessions() {
	v := &s.vis
	v.mu.Lock()
	v.sessions.Range(func(k, _ any) bool {
		if id := k.(string); !v.liveLocked(id) {
			v.sessions.Delete(id)
			v.n--
		}
		return true
	})
	v.activeLocked()
	v.mu.Unlock()
	if p := s.mounts.Load(); p != nil {
		for _, m := range *p {
			m.child.dropDeadSessions()
		}
	}
}

// checkMount refuses a bad prefix or a nil child.
func checkMount(prefix string, child *Server) error {
	if child == nil {
		return invalid("mount %q: the child server is nil", prefix)
	}
	if !validPrefix(prefix) {
		return invalid("mount prefix %q: a prefix is empty or 1 to 64 ASCII letters, digits and hyphens (no underscore, slash or dot, so that prefixed names map back)", prefix)
	}
	return nil
}

func validPrefix(p string) bool {
	if len(p) > 64 {
		return false
	}
	for i := range len(p) {
		if c := p[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// reaches reports whether to is from or mounted (at any depth) in from;
// mountMu is held.
func reaches(from, to *Server) bool {
	if from == to {
		return true
	}
	if p := from.mounts.Load(); p != nil {
		for _, m := range *p {
			if reaches(m.child, to) {
				return true
			}
		}
	}
	return false
}

// sessionLive reports whether a transport of s holds the session id: the
// liveness s lends its children.
func (s *Server) sessionLive(id string) bool {
	s.vis.mu.Lock()
	defer s.vis.mu.Unlock()
	return s.vis.liveLocked(id)
}

// endChildSessions tells the children that session id ended (called by
// sessionEnded).
func (s *Server) endChildSessions(id string) {
	for _, m := range *s.mounts.Load() {
		m.child.sessionEnded(id)
	}
}

// notifyAllKinds tells the clients every list may have changed.
func (s *Server) notifyAllKinds() {
	for _, k := range []engine.ChangeKind{engine.ToolsChanged, engine.ResourcesChanged, engine.PromptsChanged} {
		s.notify(change{Kind: k})
	}
}

// fromChild passes a change of m's child on to s's watchers, its URI
// prefixed.
func (s *Server) fromChild(m *mount, ch change) {
	switch ch.Kind {
	case engine.ToolsChanged:
		m.enc.Clear()
	case engine.ResourceUpdated:
		u, ok := wrapURI(m.prefix, ch.URI)
		if !ok {
			return
		}
		ch.URI = u
	}
	s.notify(ch)
}

// hasMounts reports whether s has a mount.
func (s *Server) hasMounts() bool { return s.mounts.Load() != nil }

// mountsHaveApps reports whether a child (at any depth) serves an app.
func (s *Server) mountsHaveApps() bool {
	if p := s.mounts.Load(); p != nil {
		for _, m := range *p {
			if m.child.hasApps() {
				return true
			}
		}
	}
	return false
}

// wrapName is the name of a child's tool or prompt in the parent.
func wrapName(prefix, name string) (string, bool) {
	if prefix == "" {
		return name, true
	}
	return prefix + "_" + name, true
}

// unwrapName is the child's name of the parent's name, when it has the
// prefix.
func unwrapName(prefix, name string) (string, bool) {
	if prefix == "" {
		return name, true
	}
	if len(name) <= len(prefix)+1 || name[len(prefix)] != '_' || name[:len(prefix)] != prefix {
		return "", false
	}
	return name[len(prefix)+1:], true
}

// wrapToolName is wrapName for tools: the result must be a valid name.
func wrapToolName(prefix, name string) (string, bool) {
	n, _ := wrapName(prefix, name)
	return n, toolname.Valid(n)
}

// wrapURI is the URI (or URI template) of a child's resource in the
// parent: scheme://rest becomes scheme://prefix/rest.
func wrapURI(prefix, uri string) (string, bool) {
	if prefix == "" {
		return uri, true
	}
	i := strings.Index(uri, "://")
	if i <= 0 || strings.ContainsAny(uri[:i], "{}") {
		return "", false
	}
	return uri[:i+3] + prefix + "/" + uri[i+3:], true
}

// unwrapURI is the child's URI of the parent's URI, when it has the
// prefix.
func unwrapURI(prefix, uri string) (string, bool) {
	if prefix == "" {
		return uri, true
	}
	i := strings.Index(uri, "://")
	if i <= 0 {
		return "", false
	}
	rest, ok := strings.CutPrefix(uri[i+3:], prefix+"/")
	if !ok {
		return "", false
	}
	return uri[:i+3] + rest, true
}

// kindOps is what the lookups through mounts need to know of one kind of
// object.
type kindOps[E entry] struct {
	kind   access.Kind
	global func(*registry) table[E]
	own    func(*overlay) table[E]
	wrap   func(prefix, key string) (string, bool)
	unwrap func(prefix, key string) (string, bool)
}

var (
	toolOps     = &kindOps[*toolEntry]{access.KindTool, func(r *registry) table[*toolEntry] { return r.tools }, ownTools, wrapToolName, unwrapName}
	promptOps   = &kindOps[*promptEntry]{access.KindPrompt, func(r *registry) table[*promptEntry] { return r.prompts }, ownPrompts, wrapName, unwrapName}
	resourceOps = &kindOps[*resourceEntry]{access.KindResource, func(r *registry) table[*resourceEntry] { return r.resources }, ownResources, wrapURI, unwrapURI}
	templateOps = &kindOps[*templateEntry]{access.KindResource, func(r *registry) table[*templateEntry] { return r.templates }, ownTemplates, wrapURI, unwrapURI}
)

// hit is an object found through mounts.
type hit[E entry] struct {
	e     E
	owner *Server  // the server that registered e
	key   string   // e's name (or URI) as the asking server names it
	tags  []string // e's tags and those of the mounts on the way
	// mountTags are the tags of the mounts on the way alone (in tags too).
	mountTags []string
	path      []string // the prefixes from the asking server down to owner
	top       *mount   // the asking server's mount it came through
}

// withoutPolicies returns ctx with the access policies masked: a child
// judges its objects by its own rules, and the request's policies judge
// them once, in the server the request reached, under the names its
// client sees.
func withoutPolicies(ctx context.Context) context.Context {
	if access.PolicyFrom(ctx) == nil {
		return ctx
	}
	return policyMask{ctx}
}

// policyMask is a context whose parent's access policies are hidden: a
// value of type access.Policy reads as none. Policies added on top of it
// are seen as usual.
type policyMask struct{ context.Context }

func (m policyMask) Value(key any) any {
	v := m.Context.Value(key)
	if _, ok := v.(access.Policy); ok {
		return nil
	}
	return v
}

// admits reports whether s's rules and the request's policies let the
// caller see b, an object of a child under its name in s.
func (s *Server) admits(ctx context.Context, auth any, sid string, b *entryBase) bool {
	if s.vis.active.Load() {
		o, rules := s.vis.viewOf(sid)
		var orules []rule
		if o != nil {
			orules = o.rules
		}
		crules, err := s.rulesOfCaller(ctx, auth)
		if err != nil || !allowed(rules, crules, orules, b) {
			return false
		}
	}
	return policyAllows(ctx, auth, sid, b)
}

// through completes h, found in m's child, as an object of s: its name,
// tags and path in s; false when s's checks refuse it.
func through[E entry](s *Server, ctx context.Context, auth any, sid string, m *mount, key string, h hit[E]) (hit[E], bool) {
	tags := h.tags
	if len(m.tags) > 0 {
		tags = append(slices.Clone(tags), m.tags...)
	}
	if !s.admits(ctx, auth, sid, &entryBase{key: key, kind: h.e.base().kind, tags: tags}) {
		return hit[E]{}, false
	}
	if len(m.tags) > 0 {
		h.mountTags = append(slices.Clone(h.mountTags), m.tags...)
	}
	h.key, h.tags, h.top = key, tags, m
	h.path = append([]string{m.prefix}, h.path...)
	return h, true
}

// findMounted returns the object s's mounts offer under key (see find).
func findMounted[E entry](s *Server, ctx context.Context, auth any, sid, key string, k *kindOps[E]) (hit[E], bool) {
	p := s.mounts.Load()
	if p == nil {
		return hit[E]{}, false
	}
	var cctx context.Context
	for _, m := range *p {
		inner, ok := k.unwrap(m.prefix, key)
		if !ok || m.canAccess != nil && !m.canAccess(ctx, auth) {
			continue
		}
		if cctx == nil {
			cctx = withoutPolicies(ctx)
		}
		var h hit[E]
		if e, ok := find(m.child, cctx, auth, sid, inner, k.global(m.child.reg.Load()), k.own); ok {
			if e.base().local {
				continue // it would serve the child's catalog past s's checks
			}
			h = hit[E]{e: e, owner: m.child, tags: e.base().tags}
		} else if h, ok = findMounted(m.child, cctx, auth, sid, inner, k); !ok {
			continue
		}
		if h, ok = through(s, ctx, auth, sid, m, key, h); ok {
			return h, true
		}
	}
	return hit[E]{}, false
}

// listMounted returns the objects s's mounts offer the caller, less the
// names in seen, which it adds to; pc as for listFor, a mount's CanAccess
// counting too.
func listMounted[E entry](s *Server, ctx context.Context, auth any, sid string, k *kindOps[E], seen map[string]bool, pc *bool) []hit[E] {
	p := s.mounts.Load()
	if p == nil {
		return nil
	}
	var out []hit[E]
	var cctx context.Context
	for _, m := range *p {
		notePerCaller(pc, m.canAccess != nil)
		if m.canAccess != nil && !m.canAccess(ctx, auth) {
			continue
		}
		if cctx == nil {
			cctx = withoutPolicies(ctx)
		}
		for _, h := range listWithMounts(m.child, cctx, auth, sid, k, pc) {
			key, ok := k.wrap(m.prefix, h.key)
			if !ok || seen[key] || h.e.base().local {
				continue
			}
			if h, ok = through(s, ctx, auth, sid, m, key, h); ok {
				seen[key] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// listWithMounts returns every object of a kind s offers the caller: its
// own, then its mounts'; pc as for listFor.
func listWithMounts[E entry](s *Server, ctx context.Context, auth any, sid string, k *kindOps[E], pc *bool) []hit[E] {
	own := listFor(s, ctx, auth, sid, k.global(s.reg.Load()), k.own, func(e E) hit[E] {
		return hit[E]{e: e, owner: s, key: e.base().key, tags: e.base().tags}
	}, pc)
	if !s.hasMounts() {
		return own
	}
	seen := make(map[string]bool, len(own))
	for _, h := range own {
		seen[h.key] = true
	}
	return append(own, listMounted(s, ctx, auth, sid, k, seen, pc)...)
}

// listAll is listFor with the objects of s's mounts after s's own; pc as
// for listFor.
func listAll[E entry, T any](s *Server, ctx context.Context, auth any, sid string, k *kindOps[E], view func(E) T, mview func(hit[E]) T, pc *bool) []T {
	global := k.global(s.reg.Load())
	if !s.hasMounts() {
		return listFor(s, ctx, auth, sid, global, k.own, view, pc)
	}
	own := listFor(s, ctx, auth, sid, global, k.own, func(e E) E { return e }, pc)
	seen := make(map[string]bool, len(own))
	out := make([]T, 0, len(own))
	for _, e := range own {
		seen[e.base().key] = true
		out = append(out, view(e))
	}
	for _, h := range listMounted(s, ctx, auth, sid, k, seen, pc) {
		out = append(out, mview(h))
	}
	return out
}

// wrapPath is uri, a URI of the owner of an object found through mounts,
// as the asking server names it (path: the prefixes, outermost first);
// uri itself when it has no such name.
func wrapPath(path []string, uri string) string {
	for i := len(path) - 1; i >= 0; i-- {
		u, ok := wrapURI(path[i], uri)
		if !ok {
			return uri
		}
		uri = u
	}
	return uri
}

// mountedTool is the definition of a tool found through mounts, as the
// asking server lists it: its name, and its app's view URI, prefixed.
func mountedTool(h hit[*toolEntry]) Tool {
	t := h.e.tool
	t.Name = h.key
	if t.UI != nil {
		ui := *t.UI
		ui.ResourceURI = wrapPath(h.path, ui.ResourceURI)
		t.UI = &ui
		meta := make(map[string]any, len(t.Meta))
		for k, v := range t.Meta {
			meta[k] = v
		}
		meta["ui"] = toolUIMeta{ResourceURI: ui.ResourceURI, Visibility: slices.Clone(ui.Visibility)}
		meta[legacyResourceURIKey] = ui.ResourceURI
		t.Meta = meta
	}
	return t
}

// mountedToolJSON is the tools/list form of mountedTool, encoded once per
// name until the child's tools change.
func mountedToolJSON(h hit[*toolEntry]) json.RawMessage {
	k := mountedToolKey{h.e, h.key}
	if b, ok := h.top.enc.Load(k); ok {
		return b.(json.RawMessage)
	}
	b, err := encodeTool(mountedTool(h), h.e.shown) // versions.go
	if err != nil {
		b = h.e.encoded // it encoded at registration
	}
	if !h.e.perCaller { // a copy made for one caller is never seen again
		h.top.enc.Store(k, json.RawMessage(b))
	}
	return b
}

// callMountedTool is callTool for a name s does not hold itself.
func (s *Server) callMountedTool(ctx context.Context, c *Context, name string, args json.RawMessage) (*ContentResult, error) {
	h, ok := findMounted(s, ctx, c.Session, c.SessionID, name, toolOps)
	if !ok || h.e.appOnly && c.withoutApps() {
		return nil, &Error{Code: CodeInvalidParams, Message: "Unknown tool: " + strictjson.Quote(name)}
	}
	return h.owner.callEntry(ctx, c, name, h.e, args)
}

// readTarget is what a resources/read names: a static resource, or a
// template with the variables the URI matched, of owner.
type readTarget struct {
	owner *Server
	res   *resourceEntry
	tmpl  *templateEntry
	args  map[string]string
	key   string   // the resource's URI or the template, as the asking server names it
	tags  []string // the object's tags and the mounts'
	path  []string // the prefixes from the asking server down to owner
	// perCaller: another caller could get another answer for the URI
	// (an access check of the object, of a mount on the way, or of an
	// object this caller was refused that could answer it; the session's
	// own objects and rules), which makes the read private to its caller
	// (cache.go). Set by resolveRead with pc only.
	perCaller bool
}

// resolveMountedRead finds the resource uri names among s's mounts; pc
// as for resolveRead.
func (s *Server) resolveMountedRead(ctx context.Context, auth any, sid, uri string, pc bool) (readTarget, bool) {
	p := s.mounts.Load()
	if p == nil {
		return readTarget{}, false
	}
	var cctx context.Context
	// per: a mount this caller passed by could answer another caller.
	per := false
	for _, m := range *p {
		inner, ok := unwrapURI(m.prefix, uri)
		if !ok {
			continue
		}
		per = per || m.canAccess != nil
		if m.canAccess != nil && !m.canAccess(ctx, auth) {
			continue
		}
		if cctx == nil {
			cctx = withoutPolicies(ctx)
		}
		t, ok := m.child.resolveRead(cctx, auth, sid, inner, pc)
		per = per || t.perCaller
		if !ok {
			continue
		}
		key, ok := wrapURI(m.prefix, t.key)
		if !ok {
			continue
		}
		tags := t.tags
		if len(m.tags) > 0 {
			tags = append(slices.Clone(tags), m.tags...)
		}
		if !s.admits(ctx, auth, sid, &entryBase{key: key, kind: access.KindResource, tags: tags}) {
			continue
		}
		t.key, t.tags, t.path = key, tags, append([]string{m.prefix}, t.path...)
		t.perCaller = per
		return t, true
	}
	return readTarget{perCaller: per}, false
}

// resolveRead finds what uri names for the caller: s's own resource, else
// its first matching template, else what its mounts offer. With pc it
// sets the target's perCaller, on a miss too (for the mounts above s,
// whose other callers may find it here).
func (s *Server) resolveRead(ctx context.Context, auth any, sid, uri string, pc bool) (readTarget, bool) {
	reg := s.reg.Load()
	// A session with objects or rules of its own sees what others may not.
	per := pc && s.vis.active.Load() && s.vis.overlayOf(sid) != nil
	if e, ok := find(s, ctx, auth, sid, uri, reg.resources, ownResources); ok {
		return readTarget{owner: s, res: e, key: e.key, tags: e.tags, perCaller: per || e.callerChecked()}, true
	}
	if pc {
		// A static resource of uri that this caller does not see.
		per = per || hasKey(reg.resources, uri)
	}
	e, args := s.matchTemplate(ctx, reg, uri, auth, sid)
	if pc {
		per = per || checkedTemplateMatches(reg.templates, uri, e)
	}
	if e != nil {
		return readTarget{owner: s, tmpl: e, args: args, key: e.key, tags: e.tags, perCaller: per || e.callerChecked()}, true
	}
	t, ok := s.resolveMountedRead(ctx, auth, sid, uri, pc)
	t.perCaller = t.perCaller || per
	return t, ok
}

// checkedTemplateMatches reports whether a template of t with an access
// check, before upto (nil: any), matches uri: one that another caller
// may be let through, to answer uri in place of upto.
func checkedTemplateMatches(t table[*templateEntry], uri string, upto *templateEntry) bool {
	if t.checked == 0 {
		return false
	}
	for _, e := range t.list {
		if e == upto {
			return false
		}
		if e.callerChecked() && e.compiled.Match(uri) != nil {
			return true
		}
	}
	return false
}

// mountedTemplate returns the template a completion
// names (key, as the asking server names it) among s's mounts, with the
// server that registered it.
func (s *Server) mountedTemplate(ctx context.Context, auth any, sid, key string) (*templateEntry, *Server, bool) {
	h, ok := findMounted(s, ctx, auth, sid, key, templateOps)
	return h.e, h.owner, ok
}

// mountedPrompt returns the prompt s's mounts offer under name, with the
// server that registered it.
func (s *Server) mountedPrompt(ctx context.Context, auth any, sid, name string) (*promptEntry, *Server, bool) {
	h, ok := findMounted(s, ctx, auth, sid, name, promptOps)
	return h.e, h.owner, ok
}

// Import copies child's tools, resources, resource templates and prompts,
// as they are now, into s under prefix (named as [Server.Mount] names
// them, with the same [MountOptions]). It is a copy, not a link: what the
// child registers or removes later does not reach s, and the copies are
// s's own objects (s's Remove… methods remove them). It copies the
// child's server-wide objects that its server-wide Disable rules leave
// visible, with their functions, CanAccess, Timeout and tags; not the
// child's per-session objects, nor what is mounted in the child. A copied
// function still gets s's request: its [Context] is the caller's. The
// child's tool guards ([Server.AddToolGuard]), those it has when a copy
// is called, keep guarding the copies of its tools, after s's own.
//
// It panics when the prefix is not one, child is nil, or a copied name
// is taken in s; imports made at run time use [Registry.Import].
func (s *Server) Import(prefix string, child *Server, opts *MountOptions) {
	must("Import", s.tryImport(prefix, child, opts))
}

// tryImport is [Server.Import] returning the error ([Registry.Import]).
func (s *Server) tryImport(prefix string, child *Server, opts *MountOptions) error {
	if err := checkMount(prefix, child); err != nil {
		return err
	}
	if opts == nil {
		opts = &MountOptions{}
	}
	im := importer{prefix: prefix, child: child, opts: opts, rules: child.vis.serverRules()}
	src := child.reg.Load()
	tools, err := im.tools(src)
	if err != nil {
		return err
	}
	resources, err := im.resources(src)
	if err != nil {
		return err
	}
	templates, err := im.templates(src)
	if err != nil {
		return err
	}
	prompts := im.prompts(src)
	err = s.update(change{Kind: engine.ToolsChanged}, func(r *registry) error {
		if err := addImported(r, tools, resources, templates, prompts); err != nil {
			return fmt.Errorf("import %q: %w", prefix, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if slices.ContainsFunc(resources, func(e *resourceEntry) bool { return e.app }) {
		s.offer(apps.Extension, json.RawMessage("{}"))
	}
	s.notify(change{Kind: engine.ResourcesChanged})
	s.notify(change{Kind: engine.PromptsChanged})
	return nil
}

// addImported adds the objects an import copied to r; a name (or URI)
// already taken fails the whole import.
func addImported(r *registry, tools []*toolEntry, resources []*resourceEntry, templates []*templateEntry, prompts []*promptEntry) error {
	for _, e := range tools {
		if err := r.tools.add(e, "tool"); err != nil {
			return err
		}
	}
	for _, e := range resources {
		if err := r.resources.add(e, "resource with URI"); err != nil {
			return err
		}
	}
	for _, e := range templates {
		if err := r.templates.add(e, "template"); err != nil {
			return err
		}
	}
	for _, e := range prompts {
		if err := r.prompts.add(e, "prompt"); err != nil {
			return err
		}
	}
	return nil
}

// importer copies a child's objects for Import: under the prefix, with
// the mount's access check and tags, leaving out what the child's
// server-wide rules hide.
type importer struct {
	prefix string
	child  *Server
	opts   *MountOptions
	rules  []rule
}

// keep reports whether the child's server-wide rules let b be seen.
func (im *importer) keep(b *entryBase) bool { return allowed(im.rules, nil, nil, b) }

// base is the copy of b under key, with the mount's access check (and
// b's own) and tags.
func (im *importer) base(b entryBase, key string) entryBase {
	b.key = key
	if im.opts.CanAccess != nil {
		if own := b.canAccess; own != nil {
			b.canAccess = access.All(im.opts.CanAccess, own)
		} else {
			b.canAccess = im.opts.CanAccess
		}
	}
	if len(im.opts.Tags) > 0 {
		b.tags = append(slices.Clone(b.tags), im.opts.Tags...)
	}
	return b
}

// tools copies the child's tools (each version of a versioned one)
// under prefixed names.
func (im *importer) tools(src *registry) ([]*toolEntry, error) {
	var tools []*toolEntry
	for _, e := range src.tools.list {
		if !im.keep(&e.entryBase) || e.local {
			continue
		}
		name, ok := wrapToolName(im.prefix, e.key)
		if !ok {
			return nil, invalid("import %q: tool %q would be named %q, which breaks the tool-name rule", im.prefix, e.key, im.prefix+"_"+e.key)
		}
		if e.vs == nil {
			c, err := im.tool(e, name)
			if err != nil {
				return nil, err
			}
			tools = append(tools, c)
			continue
		}
		versions := make([]*toolEntry, len(e.vs.list))
		for i, v := range e.vs.list {
			c, err := im.tool(v, name)
			if err != nil {
				return nil, err
			}
			versions[i] = c
		}
		head, err := newVersionSet(versions) // versions.go
		if err != nil {
			return nil, err
		}
		tools = append(tools, head)
	}
	return tools, nil
}

// tool is the copy of one tool (or one version of it) named name.
func (im *importer) tool(e *toolEntry, name string) (*toolEntry, error) {
	c := *e
	c.entryBase = im.base(e.entryBase, name)
	if e.vs != nil && len(im.opts.Tags) > 0 {
		c.versionTags = append(slices.Clone(e.versionTags), im.opts.Tags...)
	}
	c.nsPath = append([]string{im.prefix}, e.nsPath...)
	c.guardedBy = append([]*Server{im.child}, e.guardedBy...) // the child's guards go with its tools
	c.tool = mountedTool(hit[*toolEntry]{e: e, key: name, path: []string{im.prefix}})
	enc, err := json.Marshal(c.tool)
	if err != nil {
		return nil, invalid("import %q: tool %q: encoding the definition: %v", im.prefix, name, err)
	}
	c.encoded = enc
	return &c, nil
}

// resources copies the child's resources under prefixed URIs.
func (im *importer) resources(src *registry) ([]*resourceEntry, error) {
	var resources []*resourceEntry
	for _, e := range src.resources.list {
		if !im.keep(&e.entryBase) {
			continue
		}
		uri, ok := wrapURI(im.prefix, e.key)
		if !ok {
			return nil, invalid("import %q: resource %q has no \"://\" to put the prefix after", im.prefix, e.key)
		}
		c := *e
		c.entryBase = im.base(e.entryBase, uri)
		c.res.URI = uri
		resources = append(resources, &c)
	}
	return resources, nil
}

// templates copies the child's resource templates under prefixed URI
// templates.
func (im *importer) templates(src *registry) ([]*templateEntry, error) {
	var templates []*templateEntry
	for _, e := range src.templates.list {
		if !im.keep(&e.entryBase) {
			continue
		}
		key, ok := wrapURI(im.prefix, e.key)
		if !ok {
			return nil, invalid("import %q: template %q has no \"://\" before its first variable to put the prefix after", im.prefix, e.key)
		}
		compiled, err := uritemplate.New(key)
		if err != nil {
			return nil, invalid("import %q: template %q: %v", im.prefix, key, err)
		}
		c := *e
		c.entryBase = im.base(e.entryBase, key)
		c.tmpl.URITemplate, c.compiled = key, compiled
		templates = append(templates, &c)
	}
	return templates, nil
}

// prompts copies the child's prompts under prefixed names.
func (im *importer) prompts(src *registry) []*promptEntry {
	var prompts []*promptEntry
	for _, e := range src.prompts.list {
		if !im.keep(&e.entryBase) {
			continue
		}
		name, _ := wrapName(im.prefix, e.key)
		c := *e
		c.entryBase = im.base(e.entryBase, name)
		c.p.Name = name
		prompts = append(prompts, &c)
	}
	return prompts
}
