// Package engine is the passage between package mcp, which holds what a
// server author declares, and the packages that serve it (mcphttp): the
// types a transport fills and the operations only a transport may call,
// such as running a tool for a caller it authenticated. Keeping them here
// keeps them out of package mcp's API, where any code could call a tool
// with a made-up session and skip authentication and access checks.
//
// The hooks are function values typed any, the pattern of gRPC's internal
// package: package mcp sets each in its init (its functions name mcp
// types, which this package, imported by mcp, cannot) and package mcphttp
// asserts each to its function type once, at its own initialisation. A
// call through a hook is one indirect call: no allocation, no reflection.
//
// The types that mention mcp types take them as type parameters, for the
// same reason; package mcp and package mcphttp instantiate them with the
// same arguments, so both sides see one type.
package engine

import (
	"context"
	"encoding/json"
	"net/http"
)

// Peer is the way back to the client for one request: notifications go on
// the request's own stream, requests (sampling, elicitation, roots) wait
// for the client's answer. Transports implement it.
type Peer interface {
	// Notify sends a notification related to the request.
	Notify(ctx context.Context, method string, params any) error
	// Call sends a request to the client and waits for its result.
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// InputPeer is a [Peer] that puts several questions (Req is
// mcp.InputRequest) to the client at once and returns the answers by key.
// Revision 2026-07-28 has no server-to-client requests: its peers
// implement InputPeer and turn the questions into an input-required result
// or, for a task, into the task's input_required status. Keys are chosen
// by the server, unique within the request and the same on every round.
type InputPeer[Req any] interface {
	Peer
	// Inputs asks every request in reqs and returns the raw results by the
	// same keys. A peer that must end the current round first returns
	// mcp.ErrInputRequired or another error the transport recognises.
	Inputs(ctx context.Context, reqs map[string]Req) (map[string]json.RawMessage, error)
}

// TaskStarter is implemented by the [Peer] of a tool whose task is
// deferred (mcp.TaskOptions.Deferred): mcp.Context.StartTask calls it.
type TaskStarter interface {
	// StartTask creates the task and answers the request with it; the
	// tool then runs on as the task.
	StartTask(ctx context.Context) error
}

// RequestInfo is what a transport knows about a request; the NewContext
// hook builds the tool's mcp.Context from it. The type arguments are
// mcp.Implementation, mcp.ClientCapabilities, mcp.LogLevel and mcp.Root.
type RequestInfo[Impl, Caps, Level, Root any] struct {
	// Session is the caller's auth data (mcp.Context.Session).
	Session any
	// SessionID identifies the session (mcp.Context.SessionID).
	SessionID string
	// RequestID is the JSON-RPC id of the request, as text.
	RequestID string
	// Client is the clientInfo of the session's initialize.
	Client Impl
	// ClientCapabilities are the capabilities the client declared.
	ClientCapabilities Caps
	// ProtocolVersion is the MCP revision the request speaks.
	ProtocolVersion string
	// ProgressToken is params._meta.progressToken; nil when absent.
	ProgressToken any
	// Meta is params._meta as the client sent it; nil when absent.
	Meta map[string]json.RawMessage
	// LogLevel is the client's minimum log level; "" sends every level.
	LogLevel Level
	// Peer is the way back to the client; nil when there is none.
	Peer Peer
	// Roots returns the client's current roots (cached by the session);
	// nil asks the peer each time.
	Roots func(ctx context.Context) ([]Root, error)
}

// SessionState is implemented by the [Peer] of a request that has a
// session: it reads and writes the per-session state of tools
// (mcp.SetState), kept in the session's stored record; values are JSON.
// A peer, not a field of [RequestInfo], so that a request that does not
// use the state costs nothing for it.
type SessionState interface {
	// GetState returns the value of key and whether it is set.
	GetState(ctx context.Context, key string) (json.RawMessage, bool, error)
	// SetState sets key to value atomically (no concurrent write of
	// another key is lost), or deletes it when value is nil, within the
	// transport's size limits.
	SetState(ctx context.Context, key string, value json.RawMessage) error
}

// ChangeKind says what changed in a [Change].
type ChangeKind int

// The kinds of change a server reports to its watchers.
const (
	ToolsChanged     ChangeKind = iota + 1 // a tool was added or removed
	ResourcesChanged                       // a resource or template was added or removed
	PromptsChanged                         // a prompt was added or removed
	ResourceUpdated                        // the contents of URI changed
	LogBroadcast                           // a log message for every session
	SessionNotify                          // a notification for one session
)

// Change is a change of a server's registry that transports turn into
// notifications. Log is *mcp.LogMessage.
type Change[Log any] struct {
	// Kind says what changed.
	Kind ChangeKind
	// URI is the resource whose contents changed, for ResourceUpdated.
	URI string
	// Log is the message to send, for LogBroadcast.
	Log Log
	// SessionID, when set, is the one session the change concerns (an
	// object registered, disabled or enabled for it alone, or the session
	// a SessionNotify is for); empty: every session.
	SessionID string
	// Method and Params are SessionNotify's notification.
	Method string
	Params any
}

// Route is a custom HTTP route served beside the MCP endpoint by the HTTP
// transport's mux.
type Route struct {
	// Method is the HTTP method, upper case.
	Method string
	// Path is the ServeMux pattern's path ("/users/{id}").
	Path string
	// Handler serves the route.
	Handler http.Handler
	// Public routes skip authentication.
	Public bool
}

// The hooks package mcp sets in its init. Each comment gives the function
// type the value has; Info is RequestInfo[mcp.Implementation,
// mcp.ClientCapabilities, mcp.LogLevel, mcp.Root].
var (
	// NewContext builds the tool's Context for one request; ctx is the
	// request's own context.
	// func(ctx context.Context, info Info) *mcp.Context
	NewContext any
	// ContextInfo returns the Info a Context was built from, for a
	// transport that derives a Context of its own (a task's).
	// func(c *mcp.Context) Info
	ContextInfo any
	// WithContext returns a copy of ctx carrying c, for mcp.FromContext.
	// func(ctx context.Context, c *mcp.Context) context.Context
	WithContext any
	// InterceptorFrom returns the interceptors of ctx composed into one,
	// or nil.
	// func(ctx context.Context) mcp.Interceptor
	InterceptorFrom any
	// ListRoots asks the client for its roots with roots/list.
	// func(ctx context.Context, p Peer) ([]mcp.Root, error)
	ListRoots any

	// CallTool runs the named tool for the caller c describes, after its
	// access check.
	// func(s *mcp.Server, ctx context.Context, c *mcp.Context, name string, args json.RawMessage) (*mcp.ContentResult, error)
	CallTool any
	// ReadResource reads a resource for the caller c describes.
	// func(s *mcp.Server, ctx context.Context, c *mcp.Context, uri string) (*mcp.ReadResourceResult, error)
	ReadResource any
	// GetPrompt loads a prompt for the caller c describes.
	// func(s *mcp.Server, ctx context.Context, c *mcp.Context, name string, args map[string]string) (*mcp.PromptResult, error)
	GetPrompt any
	// Complete answers completion/complete for the caller c describes.
	// func(s *mcp.Server, ctx context.Context, c *mcp.Context, ref mcp.CompletionRef, arg, value string, args map[string]string) (*mcp.CompletionResult, error)
	Complete any
	// LookupTool returns the named tool as the caller (in session sid)
	// sees it.
	// func(s *mcp.Server, ctx context.Context, auth any, sid, name string) (mcp.Tool, bool)
	LookupTool any
	// ListToolsJSON is the tools visible to the caller in session sid,
	// each encoded once at registration: what tools/list sends. The bytes
	// are read-only.
	// func(s *mcp.Server, ctx context.Context, auth any, sid string) []json.RawMessage
	ListToolsJSON any
	// ListResources, ListResourceTemplates and ListPrompts are the objects
	// visible to the caller in session sid.
	// func(s *mcp.Server, ctx context.Context, auth any, sid string) []mcp.Resource
	ListResources any
	// func(s *mcp.Server, ctx context.Context, auth any, sid string) []mcp.ResourceTemplate
	ListResourceTemplates any
	// func(s *mcp.Server, ctx context.Context, auth any, sid string) []mcp.Prompt
	ListPrompts any
	// TrackSessions gives the server a transport's way to tell whether it
	// holds a session (live reports it), until stop is called; the
	// server asks before it keeps anything for one session alone.
	// func(s *mcp.Server, live func(id string) bool) (stop func())
	TrackSessions any
	// SessionEnded tells the server a transport let the session id go:
	// what was registered for the session alone is dropped.
	// func(s *mcp.Server, id string)
	SessionEnded any
	// Watch calls fn for every change until stop is called; fn must not
	// block.
	// func(s *mcp.Server, fn func(Change[*mcp.LogMessage])) (stop func())
	Watch any
	// Routes returns the custom routes in registration order.
	// func(s *mcp.Server) []Route
	Routes any
	// HasSkills reports whether the server serves any skill.
	// func(s *mcp.Server) bool
	HasSkills any
	// GetSkill returns the skill whose SKILL.md is uri.
	// func(s *mcp.Server, ctx context.Context, auth any, uri string) (mcp.Skill, error)
	GetSkill any
	// ReadSkillDirectory returns the direct children of a skills
	// directory.
	// func(s *mcp.Server, ctx context.Context, auth any, uri string) ([]mcp.Resource, error)
	ReadSkillDirectory any
	// HasApps reports whether the server has an MCP App's view, so that it
	// declares the extension.
	// func(s *mcp.Server) bool
	HasApps any
	// AppsFallback is the access policy for a client without the MCP Apps
	// extension (nil when the server has no apps).
	// func(s *mcp.Server) mcp.AccessPolicy
	AppsFallback any
)
