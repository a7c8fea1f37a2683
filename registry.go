package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpchain/mcp/access"
)

// Registration errors. The error-returning registration forms (the
// methods of [Registry], [TryAddTool] and [TryAddTypedPrompt]) return
// errors that wrap one of these; the panicking forms panic with the same
// text.
var (
	// ErrInvalidToolName means a tool name breaks the MCP rule: 1 to 128
	// characters, each one of A-Z, a-z, 0-9, underscore, hyphen or dot.
	ErrInvalidToolName = errors.New("a tool name must be 1 to 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot")
	// ErrAlreadyRegistered means the name (or URI, or URI template) is
	// taken by an object of the same kind.
	ErrAlreadyRegistered = errors.New("already registered")
	// ErrInvalidDefinition means the object is incomplete or inconsistent:
	// a required field is empty, a schema does not resolve, an argument is
	// declared twice, and so on. The error's text says which.
	ErrInvalidDefinition = errors.New("invalid definition")
)

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// invalid builds an error wrapping ErrInvalidDefinition.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidDefinition}, args...)...)
}

// entryBase is what every registered object shares: its key in the
// registry and its access rules.
type entryBase struct {
	key       string
	kind      access.Kind
	canAccess access.Check
	tags      []string // the object's Tags (visibility.go)
	// resolve, set on the entry a table holds for a tool registered in
	// several versions, returns the version the caller gets (versions.go).
	resolve func(ctx context.Context, auth any) (entry, bool)
	// local marks an object that serves its own server's catalog
	// (catalog.go): no mount or import offers it.
	local bool
	// appOnly marks what only an MCP App's view uses (a tool the model
	// may not call, a view): lists and tool lookups made for a client
	// that does not render apps leave it out (apps.go).
	appOnly bool
	// versionChecks marks the head of a versioned tool one of whose
	// versions has a CanAccess of its own (the head's canAccess is nil).
	versionChecks bool
}

// callerChecked reports whether what the caller sees of b depends on who
// the caller is: b, or one of its versions, has an access check. A list
// holding such an object is a per-caller list (cache.go).
func (b *entryBase) callerChecked() bool { return b.canAccess != nil || b.versionChecks }

// visible reports whether the caller (its auth data and session ID sid)
// may see the object: its own check and the access policies in ctx must
// all admit it, and what only apps use is hidden from a list or lookup
// made for a client without them.
func (b *entryBase) visible(ctx context.Context, auth any, sid string) bool {
	return (b.canAccess == nil || b.canAccess(ctx, auth)) && policyAllows(ctx, auth, sid, b) && !(b.appOnly && withoutApps(ctx))
}

type entry interface {
	base() *entryBase
}

func (b *entryBase) base() *entryBase { return b }

// table is one kind of registered object, in registration order and by key.
type table[E entry] struct {
	list  []E
	byKey map[string]E
	// checked counts the entries of list whose visibility depends on the
	// caller (entryBase.callerChecked), so that a list's caching hint
	// needs no walk of the table (cache.go).
	checked int
}

func newTable[E entry]() table[E] { return table[E]{byKey: map[string]E{}} }

func (t table[E]) clone() table[E] {
	c := table[E]{list: slices.Clone(t.list), byKey: make(map[string]E, len(t.byKey)+1), checked: t.checked}
	for k, v := range t.byKey {
		c.byKey[k] = v
	}
	return c
}

// add appends e; what names it in the error ("a tool named", …).
func (t *table[E]) add(e E, what string) error {
	k := e.base().key
	if _, dup := t.byKey[k]; dup {
		return fmt.Errorf("%s %q is %w", what, k, ErrAlreadyRegistered)
	}
	t.list = append(t.list, e)
	t.byKey[k] = e
	t.count(e, 1)
	return nil
}

// count adds n to t.checked when e's visibility depends on the caller.
func (t *table[E]) count(e E, n int) {
	if e.base().callerChecked() {
		t.checked += n
	}
}

// remove deletes the entries with these keys; unknown keys are ignored.
func (t *table[E]) remove(keys []string) {
	for _, k := range keys {
		if e, ok := t.byKey[k]; ok {
			delete(t.byKey, k)
			t.count(e, -1)
			t.list = slices.DeleteFunc(t.list, func(x E) bool { return x.base() == e.base() })
		}
	}
}

// lookup returns the entry with key k when the caller may see it.
func (t table[E]) lookup(ctx context.Context, auth any, sid, k string) (E, bool) {
	e, ok := t.byKey[k]
	if !ok || !e.base().visible(ctx, auth, sid) {
		var zero E
		return zero, false
	}
	return resolveEntry(ctx, auth, e)
}

// visibleItems returns what view gives for every entry the caller may see,
// in registration order.
func visibleItems[E entry, T any](ctx context.Context, auth any, sid string, t table[E], view func(E) T) []T {
	out := make([]T, 0, len(t.list))
	for _, e := range t.list {
		if e.base().visible(ctx, auth, sid) {
			if r, ok := resolveEntry(ctx, auth, e); ok {
				out = append(out, view(r))
			}
		}
	}
	return out
}

// registry is an immutable snapshot; writers copy it.
type registry struct {
	tools     table[*toolEntry]
	resources table[*resourceEntry]
	templates table[*templateEntry]
	prompts   table[*promptEntry]
}

func newRegistry() *registry {
	return &registry{tools: newTable[*toolEntry](), resources: newTable[*resourceEntry](),
		templates: newTable[*templateEntry](), prompts: newTable[*promptEntry]()}
}

func (r *registry) clone() *registry {
	return &registry{tools: r.tools.clone(), resources: r.resources.clone(),
		templates: r.templates.clone(), prompts: r.prompts.clone()}
}

// update applies fn to a copy of the registry and publishes it, then tells
// the watchers. When fn refuses the change (returns an error) nothing is
// published and the error is returned.
func (s *Server) update(ch change, fn func(r *registry) error) error {
	s.mu.Lock()
	r := s.reg.Load().clone()
	if err := fn(r); err != nil {
		s.mu.Unlock()
		return err
	}
	s.reg.Store(r)
	s.mu.Unlock()
	s.notify(ch)
	return nil
}

// must panics with err's text, prefixed by the registration call, when err
// is non-nil: the panicking registration forms share it.
func must(call string, err error) {
	if err != nil {
		panic("mcp: " + call + ": " + err.Error())
	}
}
