// Package engine is the passage between package mcp, which holds what a
// server author declares, and the packages that serve it (mcphttp): the
// types a transport fills, and the hook (View) through which a transport
// reaches the operations only it may call, such as running a tool for a
// caller it authenticated. Keeping them here keeps them out of package
// mcp's API, where any code could call a tool with a made-up session and
// skip authentication and access checks.
//
// This package is imported by package mcp, so it cannot name mcp's types:
// View is typed any (package mcphttp asserts it once), and the types that
// mention mcp types take them as type parameters; package mcp and package
// mcphttp instantiate them with the same arguments, so both sides see one
// type.
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

// RequestInfo is what a transport knows about a request; the engine view's
// NewContext builds the tool's mcp.Context from it. The type arguments are
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
	// CapabilitiesUnknown: the transport does not know what the client
	// declared (a stateless 2025 request, whose initialize went to
	// another request): nothing is hidden from it for want of an
	// extension.
	CapabilitiesUnknown bool
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

// StateScope names a bucket of the tools' state (package state): the
// request's session, a caller's own state, or the state a handle names.
type StateScope struct {
	// Session: the request's own session (Owner and Handle unused).
	Session bool
	// Owner is the caller's key (internal/identity's Key), or "" for an
	// anonymous caller, who has no state of its own, only handles.
	Owner string
	// Handle is the handle the state belongs to, as the client passed it
	// back; "" for the owner's own state.
	Handle string
}

// State is implemented by the [Peer] of a request whose transport keeps
// the tools' state: it reads and writes the state of a [StateScope], and
// makes and ends handles. Values are JSON. A peer, not a field of
// [RequestInfo], so that a request that does not use the state costs
// nothing for it.
type State interface {
	// GetState returns the value of key in scope s and whether it is set.
	GetState(ctx context.Context, s StateScope, key string) (json.RawMessage, bool, error)
	// SetState sets key to value in s atomically (no concurrent write of
	// another key is lost), or deletes it when value is nil, within the
	// transport's size limits.
	SetState(ctx context.Context, s StateScope, key string, value json.RawMessage) error
	// NewHandle makes a handle owned by owner ("" anonymous) and returns
	// it.
	NewHandle(ctx context.Context, owner string) (string, error)
	// EndHandle ends the handle s names, and its state.
	EndHandle(ctx context.Context, s StateScope) error
}

// CallerRules is where a transport keeps the callers' own Disable and
// Enable rules (mcp.Server.CallerRegistry): in the store the tools' state
// lives in, so that every replica sharing it reads the same rules. The
// rules travel as package mcp encodes them; Owner is the caller's identity
// key (internal/identity's Key).
type CallerRules interface {
	// CallerRules returns owner's encoded rules, nil when it has none.
	CallerRules(ctx context.Context, owner string) (json.RawMessage, error)
	// UpdateCallerRules replaces owner's rules, atomically, by what fn
	// makes of them (nil: none); fn's nil deletes them. When fn fails,
	// nothing changes and its error is returned.
	UpdateCallerRules(ctx context.Context, owner string, fn func(json.RawMessage) (json.RawMessage, error)) error
}

// Methods are the requests the engine serves itself: the protocol's and
// those of the extensions it implements (skills, tasks). Package mcp
// refuses an extension's method of one of these names; mcphttp's
// TestMethodsAreTheTable checks the list against its method table.
var Methods = []string{
	"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
	"server/discover", "subscriptions/listen",
	"tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read",
	"prompts/list", "prompts/get", "completion/complete",
	"skills/list", "skills/get", "resources/directory/read",
	"tasks/get", "tasks/cancel", "tasks/result", "tasks/list", "tasks/update",
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
	// Caller, when set, is the one caller a list change concerns: its
	// identity key (internal/identity's Key). Transports send it to that
	// caller's streams only.
	Caller string
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
	// AnyHost routes skip the DNS-rebinding check
	// (RouteOptions.DisableDNSRebindingProtection).
	AnyHost bool
}

// Caller is who a lookup or a list is for.
type Caller struct {
	// Auth is the caller's auth data (nil when anonymous).
	Auth any
	// SessionID is the caller's session; "" when it has none (stateless
	// HTTP, revision 2026-07-28).
	SessionID string
	// NoApps: the client does not render MCP Apps, so what only an app's
	// view uses (the tools the model may not call, the views) is left out.
	NoApps bool
	// Cache, when not nil, receives the caching hint of a list made for
	// the caller (revision 2026-07-28 sends it as ttlMs and cacheScope);
	// nil for the revisions without one, so that their lists pay nothing
	// for it.
	Cache *Cache
}

// Cache is the caching hint of one cacheable result, as package mcp
// decided it for the request from the author's hint and what the result
// depends on (mcp.CacheHint says how).
type Cache struct {
	// Set: a list or read filled in the hint. Unset, the transport falls
	// back to a TTL of 0 and the scope of the request's authentication
	// (an interceptor answered without running the method).
	Set bool
	// TTLMs is ttlMs: whole milliseconds, never negative.
	TTLMs int64
	// Private is cacheScope "private"; false is "public".
	Private bool
}

// View is the one hook: package mcp sets it in its init to a
// func(*mcp.Server) any that returns the engine's view of a server, a
// value of an unexported type of package mcp with the operations only a
// transport may call. Package mcphttp asserts it once to that function
// type, and each view once to its serverOps interface, which lists them
// with their types: the calls are checked by the compiler there, and an
// editor follows them to package mcp's methods.
var View any
