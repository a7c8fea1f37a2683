package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync/atomic"
)

// GuardedCall is one call of a tool, as a [ToolGuard] sees it: after the tool
// was found and its arguments validated, before it runs.
type GuardedCall struct {
	// Name is the name the client called the tool by (a mounted tool's
	// prefixed name).
	Name string
	// Tool is the tool's definition. A guard must not change it.
	Tool *Tool
	// Arguments are the call's arguments, validated against the input
	// schema, with its defaults applied: what the tool function decodes.
	// A guard must not change them.
	Arguments json.RawMessage
	// InputType is the Go type of the tool's typed input (the In of
	// [AddTool]), whose struct tags a guard may read (an audit trail's
	// redaction policy); nil for a raw tool. For a tool derived by
	// [Server.AddTransformedTool] it is its source's (the first source's,
	// for a transform of a transform), read through InputNames.
	InputType reflect.Type
	// InputNames maps the name of an argument in Arguments to its name in
	// InputType (and in the source tool's own calls) where the two differ:
	// the arguments a transform renamed, the renames of a transform of a
	// transform composed. A policy that an argument's name or struct tags
	// decide (a redaction, a rule on a field) is the one of its name
	// here; nil when no argument was renamed. A guard must not change it.
	InputNames map[string]string
}

// ToolGuard checks a tool call before the tool runs. Returning nil lets the
// call go on; an error ends it as the tool's own error would: a
// [UserError] is an isError result, an [*Error] a JSON-RPC error, and
// package elicit's URLRequired asks the user to open a page first (a
// -32042 error at 2025-11-25, an input-required round at 2026-07-28, after
// which the call, guards included, runs again). Guards run on every
// transport, for every tool of the server, its session tools and the tools
// of the servers mounted in it, and again each time a 2026-07-28 round
// runs the call again.
type ToolGuard func(ctx context.Context, c *Context, call *GuardedCall) error

// AddToolGuard adds g to the guards of s's tool calls: the guards of a
// request's context ([WithToolGuard]) run first, then those of the server
// the client called, in the order they were added, then, for a tool of a
// mounted server, that server's own, then, for a tool copied by
// [Server.Import] (or derived from such a copy), those of the server it
// was copied from. The first error ends the call. A guard added here
// cannot be left out by how the server is mounted, imported, transformed
// or served; package approval adds one this way.
func (s *Server) AddToolGuard(g ToolGuard) {
	if g == nil {
		panic("mcp: AddToolGuard: nil guard")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var gs []ToolGuard
	if p := s.guards.Load(); p != nil {
		gs = append(gs, *p...)
	}
	gs = append(gs, g)
	s.guards.Store(&gs)
}

type toolGuardKey struct{}

// ctxGuards is set once WithToolGuard was called: until then no call looks
// for guards in its context.
var ctxGuards atomic.Bool

// WithToolGuard returns a copy of ctx whose tool calls g checks first (see
// [ToolGuard]), for an HTTP middleware the way [WithInterceptor] installs an
// interceptor; guards stack, one added earlier (further out in the chain)
// running first. Package audit records its calls this way.
func WithToolGuard(ctx context.Context, g ToolGuard) context.Context {
	if g == nil {
		return ctx
	}
	ctxGuards.Store(true)
	if prev, ok := ctx.Value(toolGuardKey{}).(ToolGuard); ok {
		inner := g
		g = func(ctx context.Context, c *Context, call *GuardedCall) error {
			if err := prev(ctx, c, call); err != nil {
				return err
			}
			return inner(ctx, c, call)
		}
	}
	return context.WithValue(ctx, toolGuardKey{}, g)
}

// guarded reports whether a call of e, a tool of s, has guards to run.
func (s *Server) guarded(ctx context.Context, c *Context, e *toolEntry) bool {
	if c.guardTop != nil && c.guardTop != s && c.guardTop.guards.Load() != nil {
		return true
	}
	for _, o := range e.guardedBy {
		if o.guards.Load() != nil {
			return true
		}
	}
	return s.guards.Load() != nil || ctxGuards.Load() && ctx.Value(toolGuardKey{}) != nil
}

// guard runs the guards of call: the context's, those of the server the
// client called (c.guardTop), then those of s when it is another (a
// mounted server), then those of the servers the tool was imported from
// (origins, nearest first), each server's once.
func (s *Server) guard(ctx context.Context, c *Context, call *GuardedCall, origins []*Server) error {
	if ctxGuards.Load() {
		if g, ok := ctx.Value(toolGuardKey{}).(ToolGuard); ok {
			if err := g(ctx, c, call); err != nil {
				return err
			}
		}
	}
	top := c.guardTop
	if top == nil {
		top = s
	}
	if err := top.runGuards(ctx, c, call); err != nil {
		return err
	}
	if s != top {
		if err := s.runGuards(ctx, c, call); err != nil {
			return err
		}
	}
	for i, o := range origins {
		if o == top || o == s || slices.Contains(origins[:i], o) {
			continue
		}
		if err := o.runGuards(ctx, c, call); err != nil {
			return err
		}
	}
	return nil
}

// runGuards runs the guards registered on s, in order, until one refuses
// the call.
func (s *Server) runGuards(ctx context.Context, c *Context, call *GuardedCall) error {
	p := s.guards.Load()
	if p == nil {
		return nil
	}
	for _, g := range *p {
		if err := g(ctx, c, call); err != nil {
			return err
		}
	}
	return nil
}
