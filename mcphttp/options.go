package mcphttp

import (
	"log/slog"
	"time"

	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/session"
)

// Options configure a [Handler]. The zero value (or nil) is a stateful
// handler with DNS-rebinding protection, a 4 MiB body limit, 30 minute
// session expiry, and pings every 5 s.
type Options struct {
	// Stateless keeps no session: no Mcp-Session-Id is issued, every POST
	// stands alone, GET and DELETE answer 405. It is how one scales out.
	// Server-to-client requests (sampling, elicitation, roots) need a
	// session and fail with mcp.ErrCapability in this mode.
	Stateless bool
	// JSONResponse answers every request with application/json, never
	// SSE; notifications a tool sends during a request are then dropped
	// (and logged at debug level).
	JSONResponse bool
	// MaxBodyBytes bounds a POST body (413 beyond). Default 4 MiB.
	MaxBodyBytes int64
	// MaxDepth bounds how deeply one message nests objects and arrays
	// (the message object is level 1, params 2, a tool's arguments 3).
	// A deeper message is refused with -32600, naming the limit, after one
	// linear scan and before anything recursive reads it. Default 64
	// ([DefaultMaxDepth]); [Start] passes it to stdio.Options.MaxDepth.
	MaxDepth int
	// MaxBatch bounds the number of messages in a JSON-RPC batch (protocol
	// revision 2025-03-26 only); a longer batch is refused whole with 400
	// and -32600, naming the limit. Default 100 ([DefaultMaxBatch]).
	MaxBatch int
	// AllowVersionMismatch accepts, on a session, an MCP-Protocol-Version
	// header that names a supported version other than the one the session
	// negotiated; by default such a request gets 400 naming both. The
	// request is still served as the negotiated version, so the header
	// unlocks nothing (batches follow the negotiated version either way).
	// Turn it on only for clients that send a fixed header whatever they
	// negotiated (the official conformance suite's SSE scenarios do).
	AllowVersionMismatch bool
	// SessionIdleTimeout ends sessions idle that long. Default 30 min;
	// negative means never. What it costs: an idle session holds about
	// 1 KB (with its entry in the in-memory store; more while messages wait
	// for its GET stream), and it holds it for the whole timeout, so
	// memory is about 1 KB × the sessions opened per timeout: MaxSessions
	// (10,000) idle sessions hold about 10 MB; without that cap, a client
	// opening 100 sessions a second holds 180,000 (about 180 MB) at the
	// 30 minute default.
	SessionIdleTimeout time.Duration
	// Sessions stores session state. Default: an in-memory store.
	Sessions session.Store
	// MaxStateValue bounds one value of the tools' state (state.Set),
	// as JSON, in bytes; MaxSessionState bounds the whole state of one
	// scope (every key and value): a session's, a caller's or a
	// handle's. A session's state is part of its record, which a shared
	// store (Redis) reads on every request of the session, so keep it
	// small. A write beyond either fails with *mcp.StateSizeError.
	// Defaults DefaultMaxStateValue and DefaultMaxSessionState; negative
	// means no limit.
	MaxStateValue, MaxSessionState int
	// CallerStateTTL is how long a caller's own state (mcp.Context.Caller)
	// lives after its last write. Default 7 days; negative: until the
	// store drops it.
	CallerStateTTL time.Duration
	// StateHandleTTL is how long a state handle (state.NewHandle)
	// and its state live from the handle's creation, whether it is used
	// or not (a leaked bearer handle stops working then). Default 24
	// hours.
	StateHandleTTL time.Duration
	// MaxStateHandles bounds the live state handles of one signed-in
	// caller (its subject). A NewHandle beyond it fails with an error
	// matching mcp.ErrStateTooLarge. Default 100; negative means no limit.
	MaxStateHandles int
	// AnonymousHandles is how many live state handles anonymous callers
	// may hold together. Default 0: none, and an anonymous NewHandle fails
	// with an error matching mcp.ErrNoCaller. Anonymous callers cannot be
	// told apart, so they share this one allowance, and a single client
	// can fill it for everyone until its handles expire: a server that
	// sets it should limit each client's rate in front of it
	// (middleware/ratelimit) and keep StateHandleTTL short. Negative
	// means no limit.
	AnonymousHandles int
	// PageSize is the number of items per page of the list methods.
	// Default 500.
	PageSize int
	// KeepAlive is the interval of SSE comment lines on idle GET streams.
	// Default 25 s; negative disables.
	KeepAlive time.Duration
	// Allow lists the Host values accepted besides loopback names and
	// the address the connection arrived on (Hosts: the names clients
	// reach the server by, as "mcp.example.com" or "*.tenants.example"),
	// and the Origins accepted besides those whose host is accepted so.
	// The handler and every route of NewMux check both, on every
	// listener; a request with another gets 403 naming the setting (see
	// middleware.CheckOrigin for the rules). The host of the server's own
	// protected-resource URL (Options.OAuth, or the OAuth metadata of
	// mcp.Options.Auth) is accepted too, and [Start] adds the entries of
	// MCP_ALLOWED_HOSTS. A server behind a reverse proxy that passes the
	// public Host must list that name. Pass the same list to
	// middleware.CORSOptions.Allow when browsers call the endpoint.
	Allow *middleware.AllowList
	// DisableDNSRebindingProtection turns the Host and Origin checks off,
	// on the endpoint and on every route of NewMux. Set it only when a
	// proxy in front enforces them.
	DisableDNSRebindingProtection bool
	// Hooks are told when a session starts and ends and when its roots
	// change (see [SessionHooks]); [Handler.Sessions] lists the live ones.
	Hooks *SessionHooks
	// Resumable makes request streams resumable (the transport's
	// "Resumability and Redelivery"; SSE polling, SEP-1699): every request
	// but initialize is answered on an SSE stream whose events carry IDs,
	// the stream's events are kept until its response is written, and a
	// client whose connection broke resumes it with GET and Last-Event-ID.
	// A broken connection then no longer cancels the request (the client
	// cancels with notifications/cancelled). Clients speaking 2025-11-25
	// or later first get a priming event (an ID, the retry interval, empty
	// data), and a tool may close its connection early with
	// [CloseSSEStream]. Streams live in this process's memory, and in
	// Events when set. Ignored when Stateless or JSONResponse.
	Resumable bool
	// Events, with Resumable, also keeps every request stream's events
	// in a shared store (redisstore.NewEventStore), so that a client
	// whose GET with Last-Event-ID lands on another replica resumes there:
	// that replica replays the stream from the store and follows it until
	// its response, while the request goes on on the replica that runs
	// it. nil: streams resume only on the replica that made them (another
	// one answers an empty stream).
	Events session.EventStore
	// Relay carries the answers to server-to-client requests (sampling,
	// elicitation, roots, pings) between replicas: an answer posted to a
	// replica other than the one that sent the request is relayed to it
	// (redisstore.NewRelay: Redis pub/sub, at most once). nil: such an
	// answer is dropped with a warning and answered 202 (an error status
	// ends the session of clients such as the official Go SDK), and the
	// tool that asked waits until its timeout.
	//
	// The relay also carries the server's changes (list changes, resource
	// updates, mcp.Server.ListChangedFor) to the subscriptions/listen
	// streams of every replica sharing it, stateless ones included; nil:
	// a listen stream hears of its own process's changes only.
	Relay session.Relay
	// RetryInterval is the SSE retry field of priming events and of
	// CloseSSEStream: how long a client waits before it reconnects.
	// Default 1 s.
	RetryInterval time.Duration
	// Logger receives diagnostics. Default: the server's logger.
	Logger *slog.Logger
	// LegacySSE makes [NewMux] (so [Start] too) also serve the deprecated
	// HTTP+SSE transport of revision 2024-11-05 for old clients: GET
	// /sse opens a stream, POST /messages?sessionId=… carries the client's
	// messages, through the endpoint's chain. Off by default. See
	// "Legacy HTTP+SSE" in docs/architecture.md.
	LegacySSE bool
	// ServerCard makes [NewMux] (so [Start] too) serve a Server Card
	// (SEP-2127's draft) at GET <endpoint>/server-card: the server's name,
	// version, description and remote endpoint, for clients and crawlers
	// that look before they connect. nil (the default): no card. See
	// [ServerCardOptions] for what it holds and who may read it.
	ServerCard *ServerCardOptions
	// Health configures the health endpoint that [NewMux] (so [Start]
	// too) serves. Default: GET and HEAD /health answer 200 "ok".
	Health *HealthOptions
	// OAuth configures the OAuth discovery documents that [NewMux]
	// serves and the WWW-Authenticate challenge of 401 answers. Default
	// (nil): the documents of an mcp.Options.Auth provider that implements
	// discovery.MetadataProvider, else none.
	OAuth *discovery.Options
	// Ping configures server-to-client pings (see middleware.PingOptions
	// for which sessions are pinged). Default: every 5 s, a session ended
	// after 3 unanswered pings in a row.
	Ping *middleware.PingOptions

	// Limits: what clients can make the handler hold (docs/deploy.md,
	// "Limits"). For each, zero means the default and a negative value
	// means no limit.

	// MaxConcurrentRequests bounds the requests the handler runs at once,
	// over all sessions: a POST's request or each request of a batch.
	// More wait, in arrival order, on the goroutine of their POST (a
	// batch's requests one after another, never a goroutine each) until a
	// slot frees, and are answered 503 if their client goes away or their
	// session ends first. A task's tool (mcp.Tool.Task) holds a slot of
	// its own from the tools/call that starts it until it returns; when
	// none is free the call is refused (-32000) rather than queued.
	// Default 1024.
	MaxConcurrentRequests int
	// MaxSessionRequests bounds the requests one session runs at once,
	// the same way; it is what keeps one client's batches from taking
	// every slot of MaxConcurrentRequests. Default 64.
	MaxSessionRequests int
	// MaxSessions bounds the live sessions: an initialize beyond it is
	// answered 503 with Retry-After and a JSON-RPC error naming this
	// option. Sessions that end (DELETE, idle expiry, a lost client,
	// EndSession) free their slot. It bounds, apart, the open
	// subscriptions/listen streams and the open legacy SSE streams (503).
	// Default 10,000.
	MaxSessions int
	// MaxSessionsPerClient bounds the live sessions of one client: the
	// subject of its auth data when it implements mcp.Subject (a
	// non-empty subject), else its remote address (an IPv6 address by its /64). An initialize beyond it
	// is answered 429 with Retry-After. Requests from a loopback address
	// (a local reverse proxy brings every client from there) and
	// in-process ones (stdio, embedded) are not counted per client; behind
	// a proxy, authenticate, or set r.RemoteAddr from its X-Forwarded-For
	// in a middleware. It bounds, apart, one client's open
	// subscriptions/listen streams and legacy SSE streams (429).
	// Default 100.
	MaxSessionsPerClient int
	// BodyReadTimeout bounds reading a POST body, from the moment the
	// handler starts on the request: a client that sends it slower is
	// answered 408 and its connection closed. It is a read deadline on
	// the connection for the body alone (cleared once read, so SSE
	// answers of any length are not cut; never set on GET streams).
	// Default 30 s.
	BodyReadTimeout time.Duration
	// MaxTasksPerClient bounds the live (not yet ended) tasks of one
	// caller: its subject (mcp.Subject), or, anonymous or with auth data
	// without a subject, its 2025 session. A tools/call that would start
	// one more is answered -32000 naming this option. An anonymous caller
	// without a session (revision 2026-07-28, a stateless handler) is
	// bounded by MaxConcurrentRequests only.
	// Default 32.
	MaxTasksPerClient int

	// StateKey is the secret that seals the requestState of the
	// input-required results of revision 2026-07-28 (AES-256-GCM under a
	// key derived from it; at least 16 bytes, 32 random ones
	// recommended). Unset, each process draws a random one: replicas
	// behind one endpoint must share it, or a client's next round that
	// lands on another replica is refused (-32602). See "Protocol
	// revisions" in docs/architecture.md.
	StateKey []byte
	// StateTTL is how long a requestState is accepted after it was
	// issued. Default DefaultStateTTL (10 minutes).
	StateTTL time.Duration
}

// Defaults of [Options].
const (
	DefaultMaxBodyBytes       = 4 << 20
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultPageSize           = 500
	DefaultKeepAlive          = 25 * time.Second
	// maxQueued bounds the messages waiting for a session's GET stream.
	maxQueued = 256
)

// Resource limits: what one client, or all of them, can make the engine
// hold. The defaults are those of [Options]; docs/deploy.md ("Limits")
// says what each costs.
const (
	// DefaultMaxConcurrentRequests is the default of
	// Options.MaxConcurrentRequests.
	DefaultMaxConcurrentRequests = 1024
	// DefaultMaxSessionRequests is the default of Options.MaxSessionRequests.
	DefaultMaxSessionRequests = 64
	// DefaultMaxSessions is the default of Options.MaxSessions.
	DefaultMaxSessions = 10000
	// DefaultMaxSessionsPerClient is the default of
	// Options.MaxSessionsPerClient.
	DefaultMaxSessionsPerClient = 100
	// DefaultBodyReadTimeout is the default of Options.BodyReadTimeout.
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultMaxStateValue is the default of Options.MaxStateValue.
	DefaultMaxStateValue = 16 << 10
	// DefaultMaxSessionState is the default of Options.MaxSessionState.
	DefaultMaxSessionState = 64 << 10
	// defaultMaxStateHandles, defaultCallerStateTTL and
	// defaultStateHandleTTL are the defaults of Options.MaxStateHandles,
	// CallerStateTTL and StateHandleTTL.
	defaultMaxStateHandles = 100
	defaultCallerStateTTL  = 7 * 24 * time.Hour
	defaultStateHandleTTL  = 24 * time.Hour
	// DefaultMaxTasksPerClient is the default of Options.MaxTasksPerClient.
	DefaultMaxTasksPerClient = 32
	// sessionRetryAfter is the Retry-After of an initialize refused by a
	// session cap: sessions end at unknown times, so a client is asked to
	// come back after a short while rather than at once.
	sessionRetryAfter = 10 * time.Second
)

// Defaults of [Options.MaxDepth] and [Options.MaxBatch].
const (
	DefaultMaxDepth = jsonrpc.DefaultMaxDepth
	DefaultMaxBatch = jsonrpc.DefaultMaxBatch
)

// HealthOptions configure the health endpoint (GET and HEAD) that
// [NewMux] serves.
type HealthOptions struct {
	// Disabled turns the endpoint off. Default: on.
	Disabled bool
	// Path of the endpoint. Default: /health.
	Path string
	// Message is the plain-text body. Default: ok.
	Message string
	// Status is the HTTP status. Default: 200.
	Status int
}
