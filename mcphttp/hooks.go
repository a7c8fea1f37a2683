package mcphttp

import (
	"context"
	"encoding/json"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// requestInfo is what the engine knows about a request; it builds the
// tool's mcp.Context from it.
type requestInfo = engine.RequestInfo[mcp.Implementation, mcp.ClientCapabilities, mcp.LogLevel, mcp.Root]

// mcpInputPeer is a peer that puts several questions at once (revision
// 2026-07-28, tasks).
type mcpInputPeer = engine.InputPeer[mcp.InputRequest]

// change is a change of the server's registry.
type change = engine.Change[*mcp.LogMessage]

// serverOps is what the engine needs of an mcp.Server that package mcp's
// API does not offer: the operations only a transport may call (running a
// tool for a caller it authenticated, listing what a session sees) and the
// building of a request's mcp.Context. Package mcp implements it with an
// unexported view of the server (mcp's engine.go), reached through
// engine.View; opsOf checks that the view implements it.
type serverOps interface {
	// Options returns the options the server was made with.
	Options() mcp.Options
	// NewContext builds the tool's Context for one request; ctx is the
	// request's own context.
	NewContext(ctx context.Context, info requestInfo) *mcp.Context
	// ContextInfo returns the requestInfo a Context was built from, for a
	// Context of the engine's own (a task's).
	ContextInfo(c *mcp.Context) requestInfo
	// WithContext returns a copy of ctx carrying c, for mcp.FromContext.
	WithContext(ctx context.Context, c *mcp.Context) context.Context
	// Interceptor returns the interceptors of ctx (mcp.WithInterceptor)
	// composed into one, or nil.
	Interceptor(ctx context.Context) mcp.Interceptor
	// ListRoots asks the client for its roots through p (roots/list).
	ListRoots(ctx context.Context, p engine.Peer) ([]mcp.Root, error)

	// CallTool runs the named tool for the caller c describes, after its
	// access checks; ReadResource, GetPrompt and Complete do the same for
	// their methods. ReadResource also fills in hint, when not nil, with
	// the read's caching hint (revision 2026-07-28).
	CallTool(ctx context.Context, c *mcp.Context, name string, args json.RawMessage) (*mcp.ContentResult, error)
	ReadResource(ctx context.Context, c *mcp.Context, uri string, hint *engine.Cache) (*mcp.ReadResourceResult, error)
	GetPrompt(ctx context.Context, c *mcp.Context, name string, args map[string]string) (*mcp.PromptResult, error)
	Complete(ctx context.Context, c *mcp.Context, ref mcp.CompletionRef, arg, value string, args map[string]string) (*mcp.CompletionResult, error)
	// LookupTool returns the named tool as the caller sees it.
	LookupTool(ctx context.Context, who engine.Caller, name string) (mcp.Tool, bool)

	// ListTools is the tools the caller sees, each encoded once at
	// registration (read-only bytes): what tools/list sends; with
	// taskSupport (revision 2025-11-25) a tool that may run as a task
	// carries execution.taskSupport. ListTools, ListResources,
	// ListResourceTemplates and ListPrompts fill in who.Cache, when set,
	// with the list's caching hint (revision 2026-07-28).
	ListTools(ctx context.Context, who engine.Caller, taskSupport bool) []json.RawMessage
	// ListResources, ListResourceTemplates, ListPrompts and ListSkills are
	// the objects of a kind the caller sees.
	ListResources(ctx context.Context, who engine.Caller) []mcp.Resource
	ListResourceTemplates(ctx context.Context, who engine.Caller) []mcp.ResourceTemplate
	ListPrompts(ctx context.Context, who engine.Caller) []mcp.Prompt
	ListSkills(ctx context.Context, who engine.Caller) []mcp.Skill
	// DiscoverCache is the caching hint of server/discover for a caller
	// with auth data auth.
	DiscoverCache(auth any) engine.Cache
	// GetSkill returns the skill whose SKILL.md is uri.
	GetSkill(ctx context.Context, who engine.Caller, uri string) (mcp.Skill, error)
	// ReadSkillDirectory returns the direct children of a skills
	// directory.
	ReadSkillDirectory(ctx context.Context, who engine.Caller, uri string) ([]mcp.Resource, error)

	// TrackSessions gives the server the engine's way to tell whether it
	// holds a session (live reports it), until stop is called: the server
	// asks before it keeps anything for one session alone.
	TrackSessions(live func(id string) bool) (stop func())
	// SessionEnded tells the server the engine let the session id go:
	// what was registered for that session alone is dropped.
	SessionEnded(id string)
	// UseCallerRules gives the server the handler's store of the callers'
	// own rules (mcp.Server.CallerRegistry), until stop is called.
	UseCallerRules(st engine.CallerRules) (stop func())
	// CallerChanged tells the server another replica changed the lists of
	// the caller whose identity key is key: what it read of the caller's
	// rules is stale.
	CallerChanged(key string)
	// Watch calls fn for every change of the registry until stop is
	// called; fn must not block.
	Watch(fn func(change)) (stop func())
	// Routes returns the custom routes in registration order.
	Routes() []engine.Route

	// Offers reports whether the server advertises the extension id
	// (mcp.Server.AddExtension; skills; apps, its own or a mounted
	// server's).
	Offers(id string) bool
	// Extensions returns the extensions the server advertises (ID →
	// encoded settings, read-only) and a number that changes whenever
	// they do.
	Extensions() (settings map[string]json.RawMessage, gen uint64)
	// ExtensionMethod returns the handler of a method an extension added,
	// or nil.
	ExtensionMethod(method string) mcp.CallHandler
	// ExtensionWrap returns the extensions' wrappers of method composed
	// (the first added outermost), or nil.
	ExtensionWrap(method string) mcp.Interceptor
}

// viewOf is package mcp's engine.View, asserted to its type once.
var viewOf = engine.View.(func(*mcp.Server) any)

// opsOf returns the engine's view of srv.
func opsOf(srv *mcp.Server) serverOps { return viewOf(srv).(serverOps) }

// mcpPeer is the way back to the client for one request.
type mcpPeer = engine.Peer

// The kinds of change the server's registry reports.
const (
	changeTools           = engine.ToolsChanged
	changeResources       = engine.ResourcesChanged
	changePrompts         = engine.PromptsChanged
	changeResourceUpdated = engine.ResourceUpdated
	changeLog             = engine.LogBroadcast
)
