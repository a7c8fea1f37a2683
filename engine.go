package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/engine"
)

// engineView is the server as the engine (package mcphttp) sees it: the
// operations only a transport may call, such as running a tool for a
// caller it authenticated. They are methods of this unexported type, not
// of Server, so that they stay out of package mcp's API, where any code
// could call a tool with a made-up session and skip authentication.
// mcphttp reaches it through engine.View and calls it through its
// serverOps interface, which this type implements (a mismatch fails
// mcphttp's initialisation, and so every test of it). Packages sampling,
// elicit and state reach it the same way for what a tool's request needs
// of the engine (the next question's key, the loop's tools, the
// transport's state), each through an interface of its own.
//
// Only View names this type, so a program that never serves (a client)
// links none of the engine's operations: the linker keeps a method of a
// type converted to an interface only when some interface call of the
// program could reach it.
type engineView Server

func init() { engine.View = func(s *Server) any { return (*engineView)(s) } }

func (v *engineView) server() *Server { return (*Server)(v) }

// Options returns the options the server was made with: its name,
// version and icons for initialize, its auth settings for the endpoint.
func (v *engineView) Options() Options { return v.opts }

// NewContext builds the tool's Context for one request; ctx is the
// request's own context.
func (*engineView) NewContext(ctx context.Context, info requestInfo) *Context {
	return newContext(ctx, info)
}

// ContextInfo returns the requestInfo c was built from, for a transport
// that derives a Context of its own (a task's).
func (*engineView) ContextInfo(c *Context) requestInfo { return contextInfo(c) }

// WithContext returns a copy of ctx carrying c, for FromContext.
func (*engineView) WithContext(ctx context.Context, c *Context) context.Context {
	return withContext(ctx, c)
}

// Interceptor returns the interceptors of ctx composed into one, or nil.
func (*engineView) Interceptor(ctx context.Context) Interceptor { return interceptorFrom(ctx) }

// ListRoots asks the client for its roots through p (roots/list).
func (*engineView) ListRoots(ctx context.Context, p engine.Peer) ([]Root, error) {
	return listRoots(ctx, p)
}

// CallTool runs the named tool for the caller c describes.
func (v *engineView) CallTool(ctx context.Context, c *Context, name string, args json.RawMessage) (*ContentResult, error) {
	return v.server().callTool(ctx, c, name, args)
}

// ReadResource reads a resource for the caller c describes; hint, when
// not nil, receives the read's caching hint.
func (v *engineView) ReadResource(ctx context.Context, c *Context, uri string, hint *engine.Cache) (*ReadResourceResult, error) {
	return v.server().readResourceHinted(ctx, c, uri, hint)
}

// GetPrompt loads a prompt for the caller c describes.
func (v *engineView) GetPrompt(ctx context.Context, c *Context, name string, args map[string]string) (*PromptResult, error) {
	return v.server().getPrompt(ctx, c, name, args)
}

// Complete answers completion/complete for the caller c describes.
func (v *engineView) Complete(ctx context.Context, c *Context, ref CompletionRef, arg, value string, args map[string]string) (*CompletionResult, error) {
	return v.server().complete(ctx, c, ref, arg, value, args)
}

// LookupTool returns the named tool as the caller sees it.
func (v *engineView) LookupTool(ctx context.Context, who engine.Caller, name string) (Tool, bool) {
	return v.server().lookupTool(callerContext(ctx, who), who.Auth, who.SessionID, name)
}

// callerContext is ctx marked with what who cannot see.
func callerContext(ctx context.Context, who engine.Caller) context.Context {
	if who.NoApps {
		return hideAppOnly(ctx)
	}
	return ctx
}

// ListTools is the tools the caller sees, each encoded once at
// registration (read-only bytes); with taskSupport (revision 2025-11-25)
// a tool that may run as a task carries execution.taskSupport. Each list
// fills in who.Cache, when set, with its caching hint (cache.go).
func (v *engineView) ListTools(ctx context.Context, who engine.Caller, taskSupport bool) []json.RawMessage {
	s := v.server()
	return listHinted(ctx, who, s.cache.Tools, true, func(pc *bool) []json.RawMessage {
		if taskSupport {
			return s.listToolsJSONTasks(callerContext(ctx, who), who.Auth, who.SessionID, pc)
		}
		return s.listToolsJSON(callerContext(ctx, who), who.Auth, who.SessionID, pc)
	})
}

// ListResources is the static resources the caller sees.
func (v *engineView) ListResources(ctx context.Context, who engine.Caller) []Resource {
	s := v.server()
	return listHinted(ctx, who, s.cache.Resources, false, func(pc *bool) []Resource {
		return s.listResources(callerContext(ctx, who), who.Auth, who.SessionID, pc)
	})
}

// ListResourceTemplates is the templates the caller sees.
func (v *engineView) ListResourceTemplates(ctx context.Context, who engine.Caller) []ResourceTemplate {
	s := v.server()
	return listHinted(ctx, who, s.cache.ResourceTemplates, false, func(pc *bool) []ResourceTemplate {
		return s.listResourceTemplates(ctx, who.Auth, who.SessionID, pc)
	})
}

// ListPrompts is the prompts the caller sees.
func (v *engineView) ListPrompts(ctx context.Context, who engine.Caller) []Prompt {
	s := v.server()
	return listHinted(ctx, who, s.cache.Prompts, false, func(pc *bool) []Prompt {
		return s.listPrompts(ctx, who.Auth, who.SessionID, pc)
	})
}

// DiscoverCache is the caching hint of server/discover for a caller with
// auth data auth.
func (v *engineView) DiscoverCache(auth any) engine.Cache {
	return v.server().cache.Discover.decide(auth, false)
}

// ListSkills is the skills the server serves.
func (v *engineView) ListSkills(ctx context.Context, who engine.Caller) []Skill {
	return v.server().listSkills()
}

// GetSkill returns the skill whose SKILL.md is uri.
func (v *engineView) GetSkill(ctx context.Context, who engine.Caller, uri string) (Skill, error) {
	return v.server().getSkill(ctx, who.Auth, uri)
}

// ReadSkillDirectory returns the direct children of a skills directory.
func (v *engineView) ReadSkillDirectory(ctx context.Context, who engine.Caller, uri string) ([]Resource, error) {
	return v.server().readSkillDirectory(ctx, who.Auth, uri)
}

// TrackSessions gives the server a transport's way to tell whether it
// holds a session, until stop is called.
func (v *engineView) TrackSessions(live func(id string) bool) (stop func()) {
	return v.server().trackSessions(live)
}

// UseCallerRules gives the server a transport's store of the callers' own
// rules, until stop is called.
func (v *engineView) UseCallerRules(st engine.CallerRules) (stop func()) {
	return v.server().useCallerRules(st)
}

// CallerChanged tells the server that another replica changed the lists
// of the caller whose identity key is key: what it read of the caller's
// rules is dropped.
func (v *engineView) CallerChanged(key string) { v.server().callerChanged(key) }

// SessionEnded tells the server a transport let the session id go.
func (v *engineView) SessionEnded(id string) { v.server().sessionEnded(id) }

// Watch calls fn for every change until stop is called.
func (v *engineView) Watch(fn func(change)) (stop func()) { return v.server().watch(fn) }

// Routes returns the custom routes in registration order.
func (v *engineView) Routes() []engine.Route { return v.server().routeList() }

// Offers reports whether the server advertises the extension id.
func (v *engineView) Offers(id string) bool {
	if id == apps.Extension {
		return v.server().hasApps()
	}
	return v.server().offers(id)
}

// Extensions returns the extensions the server advertises (ID → settings,
// read-only) and a number that changes whenever they do.
func (v *engineView) Extensions() (map[string]json.RawMessage, uint64) {
	return v.server().advertised()
}

// ExtensionMethod returns the handler an extension added for method, or
// nil.
func (v *engineView) ExtensionMethod(method string) CallHandler {
	return v.server().extensionMethod(method)
}

// ExtensionWrap returns the extensions' wrappers of method, composed, or
// nil.
func (v *engineView) ExtensionWrap(method string) Interceptor {
	return v.server().extensionWrap(method)
}
