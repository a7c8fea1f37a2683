package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
)

// Match selects tools, resources, resource templates and prompts for
// [Registry.Disable] and [Registry.Enable], server-wide or for one
// session. An object
// matches when it is of Kind (any kind when Kind is empty) and it is named
// in Names or carries one of Tags. A Match with neither Names nor Tags
// matches every object of its Kind: Disable(Match{}) followed by
// Enable(Match{Tags: []string{"public"}}) leaves only the public objects.
type Match struct {
	// Kind restricts the match to one kind of object; empty: every kind.
	// [access.KindResource] covers resources and resource templates.
	Kind access.Kind
	// Names are tool and prompt names, resource URIs and resource
	// templates' URI templates.
	Names []string
	// Tags select the objects that carry any one of them (Tool.Tags,
	// Resource.Tags, ResourceTemplate.Tags, Prompt.Tags).
	Tags []string
}

// matches reports whether the object b is selected by m.
func (m *Match) matches(b *entryBase) bool {
	if m.Kind != "" && m.Kind != b.kind {
		return false
	}
	if len(m.Names) == 0 && len(m.Tags) == 0 {
		return true
	}
	if slices.Contains(m.Names, b.key) {
		return true
	}
	for _, t := range b.tags {
		if slices.Contains(m.Tags, t) {
			return true
		}
	}
	return false
}

// check refuses a Match whose Kind is not one of the kinds.
func (m *Match) check() error {
	switch m.Kind {
	case "", access.KindTool, access.KindResource, access.KindPrompt:
		return nil
	}
	return invalid("Match.Kind %q is not a kind (want %q, %q, %q or empty for all)", m.Kind, access.KindTool, access.KindResource, access.KindPrompt)
}

// key is m in a canonical form: two matches with the same key select the
// same objects, so a later rule replaces an earlier one.
func (m *Match) key() string {
	names, tags := slices.Clone(m.Names), slices.Clone(m.Tags)
	slices.Sort(names)
	slices.Sort(tags)
	return string(m.Kind) + "\x00" + strings.Join(slices.Compact(names), "\x01") + "\x00" + strings.Join(slices.Compact(tags), "\x01")
}

// rule is one Disable (on false) or Enable (on true).
type rule struct {
	m   Match
	key string
	on  bool
}

// withRule returns the server's rules with r appended, after dropping
// an earlier rule with the same match; an Enable that no earlier Disable
// could have hidden anything from is dropped too, so enabling what was
// never disabled leaves no state. rules itself is not modified.
func withRule(rules []rule, r rule) []rule {
	out := replaceRule(rules, r)
	if r.on && !slices.ContainsFunc(out[:len(out)-1], func(x rule) bool { return !x.on }) {
		return out[:len(out)-1]
	}
	return out
}

// replaceRule returns rules with r appended, after dropping an earlier
// rule with the same match: the rules of a layer above the server's (a
// caller's, a session's), where an Enable shows what a layer below hides
// and so is kept even when its own layer disabled nothing. rules itself
// is not modified.
func replaceRule(rules []rule, r rule) []rule {
	return append(slices.DeleteFunc(slices.Clone(rules), func(x rule) bool { return x.key == r.key }), r)
}

// allowed reports whether the rules let the object b be seen: the last
// rule that matches it decides, the caller's own rules
// ([Server.CallerRegistry]) coming after the server's and the session's
// own after the caller's; with none, it is enabled.
func allowed(server, caller, own []rule, b *entryBase) bool {
	if on, ok := lastMatch(own, b); ok {
		return on
	}
	if on, ok := lastMatch(caller, b); ok {
		return on
	}
	on, _ := lastMatch(server, b)
	return on
}

// lastMatch is the verdict of the last of rules that matches b (true when
// none does), and whether one does.
func lastMatch(rules []rule, b *entryBase) (on, ok bool) {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].m.matches(b) {
			return rules[i].on, true
		}
	}
	return true, false
}

// overlay is what one session has of its own: objects registered for it
// alone, and its Disable and Enable rules. It is immutable once published;
// writers replace it.
type overlay struct {
	tools     table[*toolEntry]
	resources table[*resourceEntry]
	templates table[*templateEntry]
	prompts   table[*promptEntry]
	rules     []rule
}

func newOverlay() *overlay {
	return &overlay{tools: newTable[*toolEntry](), resources: newTable[*resourceEntry](),
		templates: newTable[*templateEntry](), prompts: newTable[*promptEntry]()}
}

func (o *overlay) clone() *overlay {
	return &overlay{tools: o.tools.clone(), resources: o.resources.clone(), templates: o.templates.clone(),
		prompts: o.prompts.clone(), rules: o.rules}
}

func (o *overlay) empty() bool {
	return len(o.tools.list)+len(o.resources.list)+len(o.templates.list)+len(o.prompts.list)+len(o.rules) == 0
}

// visibility is the server's per-session objects and its Disable and
// Enable rules. It lives in this process's memory: function values cannot
// be stored elsewhere, and each replica of a deployment has its own.
type visibility struct {
	// active is false while there is no rule and no overlay and the
	// server has no callers' rules (Options.CallerRules), so that the
	// lookups of a server that uses none of this cost one atomic load.
	active atomic.Bool
	// callerRules is Options.CallerRules: every lookup may have rules of
	// the caller's to apply, stored by another replica.
	callerRules bool

	// Readers (the lookups) take no lock: rules and the overlays are
	// published whole. mu serializes the writers, and guards holders
	// and n.
	rules    atomic.Pointer[[]rule] // server-wide; replaced, never modified
	sessions sync.Map               // session ID → *overlay, for the sessions that have one
	mu       sync.Mutex
	n        int       // the overlays in sessions
	holders  []*holder // the transports, asked whether a session is live
}

// serverRules returns the server-wide rules (read-only).
func (v *visibility) serverRules() []rule {
	if p := v.rules.Load(); p != nil {
		return *p
	}
	return nil
}

// overlayOf returns the overlay of session sid, or nil.
func (v *visibility) overlayOf(sid string) *overlay {
	if sid == "" {
		return nil
	}
	o, _ := v.sessions.Load(sid)
	ov, _ := o.(*overlay)
	return ov
}

// activeLocked recomputes active; v.mu is held.
func (v *visibility) activeLocked() {
	v.active.Store(v.callerRules || len(v.serverRules()) > 0 || v.n > 0)
}

// viewOf returns the overlay of session sid (nil when it has none) and the
// server-wide rules.
func (v *visibility) viewOf(sid string) (*overlay, []rule) {
	return v.overlayOf(sid), v.serverRules()
}

// holder is a transport's report of the sessions it holds.
type holder struct{ live func(id string) bool }

// trackSessions adds live to the transports asked whether a session is
// live, until stop is called (engineView.TrackSessions). Asking the
// transports, rather than keeping a set here, costs a session nothing
// until something is kept for it.
func (s *Server) trackSessions(live func(id string) bool) (stop func()) {
	v := &s.vis
	h := &holder{live: live}
	v.mu.Lock()
	v.holders = append(slices.Clone(v.holders), h)
	v.mu.Unlock()
	return func() {
		v.mu.Lock()
		v.holders = slices.DeleteFunc(slices.Clone(v.holders), func(x *holder) bool { return x == h })
		v.mu.Unlock()
	}
}

// liveLocked reports whether a transport holds the session id; v.mu is
// held.
func (v *visibility) liveLocked(id string) bool {
	if id == "" {
		return false
	}
	for _, h := range v.holders {
		if h.live(id) {
			return true
		}
	}
	return false
}

// sessionEnded drops what was kept for the session id once no transport
// holds it (engineView.SessionEnded, called after the transport let
// it go). Together with updateSession, which checks the session is live
// under the same lock, nothing is kept for a session that ended.
func (s *Server) sessionEnded(id string) {
	s.ends.run(id)
	if s.hasMounts() {
		s.endChildSessions(id) // compose.go
	}
	v := &s.vis
	if !v.active.Load() {
		return // no session has anything of its own
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.sessions.Load(id); ok && !v.liveLocked(id) {
		v.sessions.Delete(id)
		v.n--
		v.activeLocked()
	}
}

// noSession is the error of a per-session call naming no live session.
func noSession(sid string) error {
	if sid == "" {
		return fmt.Errorf("%w: the session ID is empty (stateless HTTP and revision 2026-07-28 requests have no session)", ErrNoSession)
	}
	return fmt.Errorf("%w: session %q is not live in this process (it ended, or another replica holds it)", ErrNoSession, sid)
}

// updateSession applies fn to a copy of session sid's overlay and
// publishes it, then tells that session of the kinds of change fn
// reports. When fn returns an error nothing changes.
func (s *Server) updateSession(sid string, fn func(o *overlay) ([]engine.ChangeKind, error)) error {
	v := &s.vis
	v.mu.Lock()
	// Active before the session is found live: sessionEnded, which skips
	// its work while nothing is active, then cannot miss what is kept
	// here for a session ending meanwhile.
	v.active.Store(true)
	if !v.liveLocked(sid) {
		v.activeLocked()
		v.mu.Unlock()
		return noSession(sid)
	}
	prev := v.overlayOf(sid)
	o := prev
	if o == nil {
		o = newOverlay()
	} else {
		o = o.clone()
	}
	kinds, err := fn(o)
	if err != nil {
		v.activeLocked()
		v.mu.Unlock()
		return err
	}
	switch {
	case o.empty() && prev != nil:
		v.sessions.Delete(sid)
		v.n--
	case !o.empty():
		v.sessions.Store(sid, o)
		if prev == nil {
			v.n++
		}
	}
	v.activeLocked()
	v.mu.Unlock()
	for _, k := range kinds {
		s.notify(change{Kind: k, SessionID: sid})
	}
	return nil
}

// setRule adds a server-wide Disable (on false) or Enable (on true) rule
// ([Registry.Disable]).
func (s *Server) setRule(m Match, on bool) error {
	if err := m.check(); err != nil {
		return err
	}
	r := rule{m: cloneMatch(m), key: m.key(), on: on}
	v := &s.vis
	v.mu.Lock()
	before := v.serverRules()
	after := withRule(before, r)
	v.rules.Store(&after)
	v.activeLocked()
	// The kinds in which some object, global or of a session, appears or
	// disappears for some session; every session hears of them (a
	// session whose own rules mask the change gets a list_changed too
	// many, which costs it one list).
	reg := s.reg.Load()
	var kinds []engine.ChangeKind
	for _, k := range []access.Kind{access.KindTool, access.KindResource, access.KindPrompt} {
		if m.Kind != "" && m.Kind != k {
			continue
		}
		// Mounted objects are not in reg: with mounts, assume a flip.
		// A caller's own rules are not looked at: a change they mask
		// costs that caller's sessions one list.
		flipped := s.hasMounts() || flips(reg, nil, k, func(b *entryBase) bool { return allowed(before, nil, nil, b) },
			func(b *entryBase) bool { return allowed(after, nil, nil, b) })
		v.sessions.Range(func(_, x any) bool {
			o := x.(*overlay)
			flipped = flipped || flips(reg, o, k, func(b *entryBase) bool { return allowed(before, nil, o.rules, b) },
				func(b *entryBase) bool { return allowed(after, nil, o.rules, b) })
			return !flipped
		})
		if flipped {
			kinds = append(kinds, changeKindOf(k))
		}
	}
	v.mu.Unlock()
	for _, k := range kinds {
		s.notify(change{Kind: k})
	}
	return nil
}

// setSessionRule adds a rule of session sid ([Registry.Disable]).
func (s *Server) setSessionRule(sid string, m Match, on bool) error {
	if err := m.check(); err != nil {
		return err
	}
	r := rule{m: cloneMatch(m), key: m.key(), on: on}
	return s.updateSession(sid, func(o *overlay) ([]engine.ChangeKind, error) {
		before := o.rules
		o.rules = replaceRule(before, r)
		reg := s.reg.Load()
		var kinds []engine.ChangeKind
		for _, k := range []access.Kind{access.KindTool, access.KindResource, access.KindPrompt} {
			server := s.vis.serverRules()
			if (m.Kind == "" || m.Kind == k) && (s.hasMounts() || flips(reg, o, k, func(b *entryBase) bool { return allowed(server, nil, before, b) },
				func(b *entryBase) bool { return allowed(server, nil, o.rules, b) })) {
				kinds = append(kinds, changeKindOf(k))
			}
		}
		return kinds, nil
	})
}

func cloneMatch(m Match) Match {
	m.Names, m.Tags = slices.Clone(m.Names), slices.Clone(m.Tags)
	return m
}

func changeKindOf(k access.Kind) engine.ChangeKind {
	switch k {
	case access.KindTool:
		return engine.ToolsChanged
	case access.KindResource:
		return engine.ResourcesChanged
	}
	return engine.PromptsChanged
}

// flips reports whether an object of kind k that a session with overlay o
// (nil: none) sees, global or its own, changes visibility when the rules
// go from those of was to those of is.
func flips(reg *registry, o *overlay, k access.Kind, was, is func(*entryBase) bool) bool {
	flip := func(b *entryBase) bool { return was(b) != is(b) }
	anyFlips := func(bs ...[]*entryBase) bool {
		for _, l := range bs {
			if slices.ContainsFunc(l, flip) {
				return true
			}
		}
		return false
	}
	switch k {
	case access.KindTool:
		return anyFlips(bases(reg.tools), bases(ownTable(o, ownTools)))
	case access.KindResource:
		return anyFlips(bases(reg.resources), bases(reg.templates),
			bases(ownTable(o, ownResources)), bases(ownTable(o, ownTemplates)))
	}
	return anyFlips(bases(reg.prompts), bases(ownTable(o, ownPrompts)))
}

func bases[E entry](t table[E]) []*entryBase {
	out := make([]*entryBase, len(t.list))
	for i, e := range t.list {
		out[i] = e.base()
	}
	return out
}

// ownTable returns a table of o, or an empty one when o is nil.
func ownTable[E entry](o *overlay, get func(*overlay) table[E]) table[E] {
	if o == nil {
		return table[E]{}
	}
	return get(o)
}

// find returns the object with key k that the caller (auth, in session
// sid) sees: the session's own when it registered one with that key (it
// shadows the server's), else the server's; hidden by an access check or
// a rule, none. When the caller's own rules cannot be read, none
// (callTool, readResource and getPrompt say why first).
func find[E entry](s *Server, ctx context.Context, auth any, sid, k string, global table[E], own func(*overlay) table[E]) (E, bool) {
	if !s.vis.active.Load() {
		return global.lookup(ctx, auth, sid, k)
	}
	var zero E
	var crules []rule
	if s.vis.callerRules {
		var err error
		if crules, err = s.rulesOfCaller(ctx, auth); err != nil {
			return zero, false
		}
	}
	o, rules := s.vis.viewOf(sid)
	t := global
	var orules []rule
	if o != nil {
		orules = o.rules
		if mine := own(o); hasKey(mine, k) {
			t = mine
		}
	}
	e, ok := t.lookup(ctx, auth, sid, k)
	if !ok || !allowed(rules, crules, orules, e.base()) {
		return zero, false
	}
	return e, true
}

func hasKey[E entry](t table[E], k string) bool { _, ok := t.byKey[k]; return ok }

// listFor returns what view gives for every object of a kind the caller
// (auth, in session sid) sees: the server's in registration order, less
// those the session shadows, then the session's own in registration order.
// When pc is not nil, it is set to true if what the list holds may depend
// on the caller: an object of the kind has an access check, or the
// caller or its session has rules (or objects) of its own (cache.go).
// When the caller's own rules cannot be read, the list is empty.
func listFor[E entry, T any](s *Server, ctx context.Context, auth any, sid string, global table[E], own func(*overlay) table[E], view func(E) T, pc *bool) []T {
	if !s.vis.active.Load() {
		notePerCaller(pc, global.checked > 0)
		return visibleItems(ctx, auth, sid, global, view)
	}
	var crules []rule
	if s.vis.callerRules {
		var err error
		if crules, err = s.rulesOfCaller(ctx, auth); err != nil {
			notePerCaller(pc, true)
			return []T{}
		}
	}
	o, rules := s.vis.viewOf(sid)
	var mine table[E]
	var orules []rule
	if o != nil {
		mine, orules = own(o), o.rules
	}
	notePerCaller(pc, global.checked > 0 || o != nil || len(crules) > 0)
	out := make([]T, 0, len(global.list)+len(mine.list))
	add := func(e E) {
		if b := e.base(); allowed(rules, crules, orules, b) && b.visible(ctx, auth, sid) {
			if r, ok := resolveEntry(ctx, auth, e); ok {
				out = append(out, view(r))
			}
		}
	}
	for _, e := range global.list {
		if !hasKey(mine, e.base().key) {
			add(e)
		}
	}
	for _, e := range mine.list {
		add(e)
	}
	return out
}

// sessionIDOf is the session of the request ctx belongs to (through its
// [Context]), or "".
func sessionIDOf(ctx context.Context) string {
	if c := FromContext(ctx); c != nil {
		return c.SessionID
	}
	return ""
}

// The accessors of each kind's tables, for find and listFor.
func ownTools(o *overlay) table[*toolEntry]         { return o.tools }
func ownResources(o *overlay) table[*resourceEntry] { return o.resources }
func ownTemplates(o *overlay) table[*templateEntry] { return o.templates }
func ownPrompts(o *overlay) table[*promptEntry]     { return o.prompts }
