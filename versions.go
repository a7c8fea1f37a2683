package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// Versions of a tool: several definitions registered under one name, each
// with its own [Tool].Version. A caller sees one of them under the name:
// by default the newest it may use (its own CanAccess and every version
// filter of the request admit it), or the one the client names in the
// call's params._meta.
//
// On the wire a versioned tool is one entry of tools/list (names stay
// unique, so a client that keys tools by name keeps working), the version
// the caller gets, with two _meta members a client that does not know them
// ignores: versionMetaKey, that version, and versionsMetaKey, the versions
// the caller may ask for, newest first. A tools/call asks for a version
// with versionMetaKey in its own params._meta; a version the caller may
// not use is an unknown tool, never a silent fall-back to another.
const (
	versionMetaKey  = "mcpchain/version"
	versionsMetaKey = "mcpchain/versions"
)

// toolVersions are the versions registered under one name, newest first.
type toolVersions struct {
	list  []*toolEntry
	names []string // list's versions, in its order
}

// checkVersion refuses a version that is not 1 to 64 characters of
// letters, digits, '.', '-', '+' and '_' (what semantic versions and
// dates are written with), or that has no digit and no letter.
func checkVersion(v string) error {
	if len(v) == 0 || len(v) > 64 {
		return fmt.Errorf("Tool.Version %s: a version is 1 to 64 characters", strictjson.Quote(v))
	}
	alnum := false
	for i := range len(v) {
		c := v[i]
		switch {
		case isAlnum(c):
			alnum = true
		case c == '.' || c == '-' || c == '+' || c == '_':
		default:
			return fmt.Errorf("Tool.Version %s: a version holds only letters, digits, '.', '-', '+' and '_' (1.2.0, 2025-06-01)", strictjson.Quote(v))
		}
	}
	if !alnum {
		return fmt.Errorf("Tool.Version %q has no letter or digit", v)
	}
	return nil
}

// addToolEntry adds e to t: as a name of its own, or as one more version
// of the name it shares with a versioned tool already in t. t's entry for
// a versioned name is a head (see newVersionSet) that keeps the place of
// the name's first registration.
func addToolEntry(t *table[*toolEntry], e *toolEntry, what string) error {
	prev, ok := t.byKey[e.key]
	if e.tool.Version == "" {
		if ok && prev.vs != nil {
			return invalid("%s %q: the name has versions (%s); register this one with a Version too, or under another name", what, e.key, strings.Join(prev.vs.names, ", "))
		}
		return t.add(e, what)
	}
	if !ok {
		head, err := newVersionSet([]*toolEntry{e})
		if err != nil {
			return err
		}
		return t.add(head, what)
	}
	if prev.vs == nil {
		return invalid("%s %q is registered without a version; a name is versioned in all its registrations or in none", what, e.key)
	}
	for _, v := range prev.vs.list {
		if CompareVersions(v.tool.Version, e.tool.Version) == 0 {
			return fmt.Errorf("%s %q version %q (as %q) is %w", what, e.key, e.tool.Version, v.tool.Version, ErrAlreadyRegistered)
		}
	}
	first := prev.vs.list[0].tool
	if !reflect.DeepEqual(first.Task, e.tool.Task) || !reflect.DeepEqual(first.UI, e.tool.UI) {
		return invalid("%s %q version %q: the versions of a tool share one Task and one UI (the transport decides on them before it knows the version)", what, e.key, e.tool.Version)
	}
	head, err := newVersionSet(append(slices.Clone(prev.vs.list), e))
	if err != nil {
		return err
	}
	i := slices.Index(t.list, prev)
	t.list[i] = head
	t.byKey[e.key] = head
	t.count(prev, -1)
	t.count(head, 1)
	return nil
}

// newVersionSet builds the entry a table holds for a versioned name from
// its versions (each a registered toolEntry, any order): the head, which
// lists and lookups resolve to the version each caller gets, and fresh
// copies of the versions (an earlier registry snapshot keeps its own) that
// share the tags of them all, so that Disable and Enable rules, which
// select a name, see every version alike (each keeps its own apart, in
// versionTags, for what a caller is shown). The head itself never runs.
func newVersionSet(versions []*toolEntry) (*toolEntry, error) {
	versions = slices.Clone(versions)
	slices.SortStableFunc(versions, func(a, b *toolEntry) int { return CompareVersions(b.tool.Version, a.tool.Version) })
	vs := &toolVersions{list: make([]*toolEntry, len(versions)), names: make([]string, len(versions))}
	var tags []string
	for i, v := range versions {
		vs.names[i] = v.tool.Version
		for _, tag := range v.tags {
			if !slices.Contains(tags, tag) {
				tags = append(tags, tag)
			}
		}
	}
	for i, v := range versions {
		c := *v
		// A version from an earlier set carries the union already: its
		// own tags are kept apart.
		c.versionTags = v.groupTags()
		c.tags, c.vs, c.shown, c.perCaller = tags, vs, vs.names, false
		enc, err := encodeTool(c.tool, vs.names)
		if err != nil {
			return nil, invalid("tool %q version %q: encoding the definition: %v", c.key, c.tool.Version, err)
		}
		c.encoded = enc
		vs.list[i] = &c
	}
	head := *vs.list[0]
	head.canAccess = nil // resolve checks each version's own
	head.versionChecks = slices.ContainsFunc(vs.list, func(v *toolEntry) bool { return v.canAccess != nil })
	head.resolve = vs.resolve
	head.run = func(context.Context, *Context, json.RawMessage) (*ContentResult, error) {
		return nil, fmt.Errorf("tool %q: a versioned tool runs one of its versions (internal error: no version was chosen)", head.key)
	}
	return &head, nil
}

// encodeTool is the tools/list form of t, with its version and the
// versions shown to the caller in _meta when t has a version.
func encodeTool(t Tool, shown []string) ([]byte, error) {
	if t.Version != "" {
		meta := make(map[string]any, len(t.Meta)+2)
		maps.Copy(meta, t.Meta)
		meta[versionMetaKey] = t.Version
		meta[versionsMetaKey] = shown
		t.Meta = meta
	}
	return json.Marshal(t)
}

// usable reports whether the caller (ctx, auth) may use version v: its
// own CanAccess and the request's version filters admit it.
func usable(ctx context.Context, auth any, v *toolEntry) bool {
	return (v.canAccess == nil || v.canAccess(ctx, auth)) && versionAllowed(ctx, v.tool.Version)
}

// resolve is the head's entryBase.resolve: the version the caller gets by
// default, the newest it may use. When it may not use them all, the entry
// is a copy whose tools/list form shows only those it may (a version the
// caller cannot use stays as unseen as a tool it cannot).
func (vs *toolVersions) resolve(ctx context.Context, auth any) (entry, bool) {
	first := -1
	n := 0
	for i, v := range vs.list {
		if usable(ctx, auth, v) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	switch {
	case first < 0:
		return nil, false
	case n == len(vs.list):
		return vs.list[first], true
	}
	shown := make([]string, 0, n)
	for _, v := range vs.list[first:] {
		if usable(ctx, auth, v) {
			shown = append(shown, v.tool.Version)
		}
	}
	c := *vs.list[first]
	c.shown, c.perCaller = shown, true
	enc, err := encodeTool(c.tool, shown)
	if err != nil { // it encoded at registration
		enc = c.encoded
	}
	c.encoded = enc
	return &c, true
}

// chooseVersion returns the version of e (a resolved versioned tool) the
// call asks for in params._meta, or e when it asks for none. A version the
// caller may not use, or does not exist, is an unknown tool.
func chooseVersion(ctx context.Context, c *Context, name string, e *toolEntry) (*toolEntry, error) {
	raw, ok := c.Meta(versionMetaKey)
	if !ok {
		return e, nil
	}
	var want string
	if err := json.Unmarshal(raw, &want); err != nil {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Invalid params: _meta %q must be a string naming a version of tool %s", versionMetaKey, strictjson.Quote(name))}
	}
	var shown []string
	for _, v := range e.vs.list {
		if !usable(ctx, c.Session, v) {
			continue
		}
		if CompareVersions(v.tool.Version, want) == 0 {
			return v, nil
		}
		shown = append(shown, v.tool.Version)
	}
	return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown tool: %s has no version %s (its versions: %s)",
		strictjson.Quote(name), strictjson.Quote(want), strings.Join(shown, ", "))}
}

// resolveEntry returns the entry the caller gets for e: e itself, or, for
// the head of a versioned name, its version for the caller (false when it
// may use none).
func resolveEntry[E entry](ctx context.Context, auth any, e E) (E, bool) {
	r := e.base().resolve
	if r == nil {
		return e, true
	}
	x, ok := r(ctx, auth)
	if !ok {
		var zero E
		return zero, false
	}
	return x.(E), true
}

type versionFilterKey struct{}

// WithVersionFilter returns a copy of ctx carrying keep, which chooses the
// versions of versioned tools ([Tool].Version) the request may use: a
// version keep refuses is neither listed nor callable, and a caller gets
// the newest version every filter of its request and the version's own
// CanAccess admit (a name none admits is hidden, as an unknown tool).
// Unversioned tools are not filtered. Filters stack: a version must pass
// them all. Set it from HTTP middleware, in the request's context, where
// both tools/list and tools/call read it (as [access.WithPolicy]): choose
// by a request header, the caller's auth data, a tenant. keep must be
// fast, and safe for concurrent use; it panics if keep is nil.
func WithVersionFilter(ctx context.Context, keep func(version string) bool) context.Context {
	if keep == nil {
		panic("mcp: WithVersionFilter: keep is nil")
	}
	if prev, ok := ctx.Value(versionFilterKey{}).(func(string) bool); ok {
		next := keep
		keep = func(v string) bool { return prev(v) && next(v) }
	}
	return context.WithValue(ctx, versionFilterKey{}, keep)
}

// versionAllowed reports whether the version filters of ctx admit v.
func versionAllowed(ctx context.Context, v string) bool {
	keep, ok := ctx.Value(versionFilterKey{}).(func(string) bool)
	return !ok || keep(v)
}

// CompareVersions orders two versions as the server does to find a tool's
// newest: it returns -1 when a is older than b, 0 when they are the same
// version, +1 when a is newer. A leading "v" is ignored, and so is build
// metadata after "+"; the part before the first "-" is the release, split
// at dots, and a "-suffix" marks a pre-release, older than its release
// (semantic versioning: 1.0.0-rc.1 < 1.0.0). Segments of digits compare as
// numbers (1.9 < 1.10) and a missing one counts as 0 (1 = 1.0); other
// segments compare as text, after numeric ones. Dates written
// year-month-day (2025-06-01) sort by date.
func CompareVersions(a, b string) int {
	a, b = trimVersion(a), trimVersion(b)
	ra, pa, hasPa := strings.Cut(a, "-")
	rb, pb, hasPb := strings.Cut(b, "-")
	if c := compareDotted(ra, rb, true); c != 0 {
		return c
	}
	switch {
	case !hasPa && !hasPb:
		return 0
	case !hasPa:
		return 1
	case !hasPb:
		return -1
	}
	return compareDotted(pa, pb, false)
}

func trimVersion(v string) string {
	if len(v) > 1 && (v[0] == 'v' || v[0] == 'V') && '0' <= v[1] && v[1] <= '9' {
		v = v[1:]
	}
	v, _, _ = strings.Cut(v, "+")
	return v
}

// compareDotted compares dot-separated segments: numbers as numbers,
// before text. A release (release) pads the shorter with zeros; a
// pre-release with fewer segments is older when the others are equal.
func compareDotted(a, b string, release bool) int {
	for a != "" || b != "" {
		var sa, sb string
		sa, a, _ = strings.Cut(a, ".")
		sb, b, _ = strings.Cut(b, ".")
		if release {
			if sa == "" {
				sa = "0"
			}
			if sb == "" {
				sb = "0"
			}
		} else if sa == "" || sb == "" {
			if sa == sb {
				continue
			}
			if sa == "" {
				return -1
			}
			return 1
		}
		if c := compareSegment(sa, sb); c != 0 {
			return c
		}
	}
	return 0
}

func compareSegment(a, b string) int {
	na, nb := isDigits(a), isDigits(b)
	switch {
	case na && nb:
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			return cmpInt(len(a), len(b))
		}
		return strings.Compare(a, b)
	case na:
		return -1
	case nb:
		return 1
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
