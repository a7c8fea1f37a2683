// Package mcphttp is the MCP protocol engine as an http.Handler, and the
// ways to run it.
//
// [New] returns the Streamable HTTP endpoint of an mcp.Server: JSON-RPC
// decoding (strict: duplicate and case-variant members are refused),
// method dispatch, capability and version negotiation (2024-11-05,
// 2025-03-26 with batches, 2025-06-18, 2025-11-25), JSON or SSE responses,
// the GET stream, DELETE, sessions, DNS-rebinding protection, pings and a
// body limit. It never reads the URL path, so it mounts under any prefix
// of any mux, behind any middleware, and stays safe when mounted bare:
//
//	mux.Handle("/mcp", alice.New(middleware.Recover(nil)).Then(mcphttp.New(srv, nil)))
//
// [NewMux] adds what needs routes of its own: the health endpoint, the
// server's custom routes, the OAuth discovery documents and the auth
// provider's endpoints, and with Options.LegacySSE the deprecated HTTP+SSE
// transport of revision 2024-11-05 for old clients; it mounts under a
// prefix with http.StripPrefix.
// [Start] runs a server the way the TypeScript fastmcp's start does: over
// stdio (the default) or Streamable HTTP on 0.0.0.0:8000 (NewMux behind
// an http.Server, graceful Close). [Embed] opens an in-process session
// through the same chain, for tests and agents.
//
// # Design
//
// One engine, three ways in. Every message, whatever carried it, becomes
// an *http.Request that goes through a middleware chain and ends in
// [Handler.ServeHTTP]; the engine then does the same work for all of
// them. The paths, outermost first:
//
// Streamable HTTP ([Start] with [TransportHTTPStream], or NewMux in your server):
//
//  1. http.Server accepts the connection (it sets http.LocalAddrContextKey,
//     which is how the engine tells a network request from an in-process
//     one) and hands the request to the mux of [NewMux].
//  2. The endpoint's chain, built in NewMux: middleware.Recover, the
//     server's authentication ([Handler.AuthMiddleware]: mcp.Options.Authenticate
//     or Auth through middleware.CheckCredentials), then MuxOptions.Middleware
//     (or StartOptions.Middleware) — the user's own, say a tenant lookup,
//     which sees the caller's auth data.
//  3. [Handler.ServeHTTP] runs the engine's own chain (Handler.newChain):
//     middleware.CheckOrigin with Options.Allow (DNS rebinding: Host on a
//     loopback listener, Origin always; skipped when
//     Options.DisableDNSRebindingProtection), the server's authentication
//     unless step 2 already admitted the request (so an endpoint mounted
//     bare is never open, and the check runs once: NewMux's endpoint ends
//     in the chain without this step, Handler.admitted, and a chain of the
//     user's with Handler.AuthMiddleware marks the request), middleware.SessionID (the
//     Mcp-Session-Id header, checked with session.ValidID and put in the
//     context; the engine reads it only from there), and, for requests
//     that came over the network, the Ping middleware built from
//     mcp.Options.Ping (middleware.NewPing with the handler as its
//     Pinger: a GET stream's client is pinged; one that stops answering
//     is ended with [EndLost]).
//  4. Handler.serve dispatches on the HTTP method: servePost, serveGet
//     (the session's stream for server-initiated messages, or a resumed
//     request stream: serveResume), serveDelete (ends the session:
//     [EndDeleted]).
//  5. servePost checks Content-Type, Accept, the body limit and its
//     read deadline (readPostBody: Options.BodyReadTimeout) and
//     MCP-Protocol-Version; decodes the envelope
//     (jsonrpc.Decode, or jsonrpc.DecodeBatch and serveBatch for
//     2025-03-26 batches); finds or makes the session (Handler.resolve,
//     which also checks the session belongs to the caller, and for
//     initialize counts the new session against Options.MaxSessions and
//     MaxSessionsPerClient: limits.go); then a request waits for a slot
//     of Options.MaxSessionRequests and MaxConcurrentRequests (a batch's
//     requests one at a time, in its loop) and goes to handleRequest (or
//     serveResumable, on its own goroutine, when Options.Resumable), a
//     notification to handleNotification, a response to the server
//     request waiting for it (conn.deliver).
//  6. handleRequest looks the method up in the methods table (dispatch.go)
//     and runs it, through the mcp.Interceptor of the request's context
//     when a middleware installed one (mcp.WithInterceptor:
//     telemetry.Recorder, ratelimit.New; they get the decoded
//     method, id and params, and may refuse with an error or pass a
//     context on): doInitialize (registers the session: OnStart),
//     listMethod (tools/list, resources/list, resources/templates/list,
//     prompts/list: one generic handler and pagination), doToolsCall,
//     doResourcesRead, doPromptsGet, doComplete, and the rest. Handlers
//     that run user code build the tool's *mcp.Context
//     (Handler.context) and call the mcp.Server through its engine
//     hooks (hooks.go: callTool, readResource, getPrompt, complete),
//     which validate, apply CanAccess and a tool's Timeout.
//  7. The answer goes out through a responder (sessionstate.go): plain JSON when
//     the result is all there is, an SSE stream (startSSE) as soon as the
//     work sends something first (progress, logs, a sampling,
//     elicitation or roots request: requestPeer). Messages that belong to
//     no request (list changes from the registry watch: onChange, log
//     broadcasts, pings, the roots/list after initialization:
//     fetchRoots) are queued on the session (conn.enqueue, streamPeer)
//     and written by serveGet. Every server-to-client request passes
//     conn.call, which is where mcp.Options.Roots.Disabled is enforced.
//
// stdio ([Start] with [TransportStdio], the default): stdio.Serve reads one
// message per line and feeds it through the in-process client
// (internal/inproc) as a synthesized POST (requests concurrently, notifications and responses
// in order), opens the session's GET stream with Client.Listen after
// initialize, and writes every message the engine sends as one line. The
// chain in front of the Handler is middleware.Recover, Handler.AuthMiddleware
// (the synthesized requests carry StartOptions.Header, so a token given
// there is checked like an HTTP one; a failure is a JSON-RPC error),
// middleware.FixedAuth(StartOptions.SessionAuth) and StartOptions.Middleware;
// from ServeHTTP on, the path is steps 3 to 7. The reader decodes each
// line once and hands its id and method on with it (inproc.Client.Post),
// and the synthesized request's ResponseWriter is an inproc.MessageWriter,
// which the responder finds through the Unwrap chain of the middleware
// around it: every message goes to it whole (after the headers and status,
// as over HTTP), never framed as SSE or JSON text to be parsed back; a
// handler or middleware that writes text instead is still understood.
// Synthesized requests have
// no network connection, so the Host check and pings do not apply: a
// stdio client's liveness is its pipe. When input ends the session ends
// ([EndDeleted]; a failed pipe: [EndLost]).
//
// Embedded ([Embed]): the same in-process session as stdio without the
// pipes: EmbeddedSession.Request sends a message through the chain
// (Recover, Handler.AuthMiddleware with EmbedOptions.Header,
// FixedAuth(EmbedOptions.SessionAuth), EmbedOptions.Middleware)
// and decodes the answer; notifications go to EmbedOptions.OnNotification.
// Not pinged; Close ends the session with DELETE ([EndDeleted]).
//
// Legacy HTTP+SSE (Options.LegacySSE; NewMux mounts GET /sse and POST
// /messages; legacysse.go): the deprecated transport of revision
// 2024-11-05 is a front end over the Streamable HTTP path, not a path of
// its own. GET /sse passes recovery, middleware.CheckOrigin, the server's
// authentication and MuxOptions.Middleware, opens a stream bound to the
// caller's auth data, and sends the endpoint event (messages?sessionId=…,
// relative to the stream's URL, so it holds under any prefix). POST
// /messages checks what only it can: the stream its sessionId names (404
// once closed), Content-Type (415), the body limit (413), the envelope
// (400; no batches). The message then becomes a synthesized Streamable
// HTTP POST (the legacy POST's headers and context values, plus the
// engine session's Mcp-Session-Id and negotiated MCP-Protocol-Version)
// that runs through the same chain: recovery, CheckOrigin, the server's
// authentication, MuxOptions.Middleware, then admit (the caller must be
// the stream's: 403), then [Handler.ServeHTTP], so steps 3 to 7 apply
// unchanged. A refusal before admit (401 with its challenge, 403) is the
// legacy POST's answer; once admitted, the POST is answered 202 at once
// and the request runs on, its context tied to the stream rather than to
// the POST's connection. Whatever the engine writes for it (a JSON answer,
// or the SSE events of progress, logs and server requests) is relayed to
// the stream, and so is the session's own GET stream, which a synthesized
// GET opens once initialize made the session (list changes, roots/list,
// pings: a client that stops answering them is ended with [EndLost]). The
// session lives as long as the stream: the client closing it ends the
// session as DELETE would ([EndDeleted]), a failed write as a lost client
// ([EndLost]), and the engine ending the session closes the stream. On a
// graceful shutdown the stream takes no new messages, lets the calls in
// flight answer, then closes. Nothing resumes.
//
// # Protocol revisions
//
// One endpoint serves both eras, with the same registrations, and chooses
// per POST (servePost, isModern in rev20260728.go). A request whose
// MCP-Protocol-Version header names a 2025-era revision (or 2024-11-05)
// takes the path above: initialize, sessions, everything in steps 5 to 7.
// One whose header is 2026-07-28 is served the modern way, and so is one
// without the header (or with one the engine does not know) whose
// params._meta carries "io.modelcontextprotocol/protocolVersion", so that
// it gets the revision's errors; without either, a request is 2025-era (the
// transport's rule: no header means 2025-03-26). A modern request
// (serveModern) has no session: Mcp-Session-Id is ignored and never
// issued, and initialize, ping, logging/setLevel and resources/subscribe
// are unknown methods (404, -32601). It is checked in the revision's
// order, the first failure answering with HTTP 400 and the request's id:
// _meta's protocolVersion and clientCapabilities (-32602), the header
// against _meta (-32020), the version (-32022, data naming the supported
// and requested ones), Mcp-Method and, for tools/call, prompts/get and
// resources/read, Mcp-Name against the body (-32020; the =?base64?…?=
// form is decoded), then the method (404), then a tool's x-mcp-header
// arguments against their Mcp-Param-* headers (-32020). It then runs the
// same handlers as a 2025 request on a throw-away session made from
// _meta (the client's capabilities and info, its logLevel: without one no
// log message is sent), one slot of Options.MaxConcurrentRequests, and
// the same responder, which commits to SSE only at the first
// notification, so an error a tool raises with -32020, -32021 or -32022
// is still a 400. Every result carries resultType and the server's
// identity in _meta, and lists, reads and server/discover carry ttlMs (0)
// and cacheScope ("private" when the request carried auth data). A GET
// or DELETE with a 2026 header and no session is answered 405; a batch
// with one, 400. subscriptions/listen (rev20260728_listen.go) is a POST answered with
// a stream that starts with the acknowledgement and carries the list
// changes and resource updates its filter asked for, tagged with the
// subscription ID; like the GET stream, it hears of this process's
// registry only.
//
// Over stdio and embedded sessions a 2026-07-28 message is served the
// same way: internal/inproc sees _meta's protocolVersion, synthesizes the
// POST with that MCP-Protocol-Version and without the client's session,
// and marks its context (inproc.Modern), so checkModernHeaders checks
// only the method (stdio has no Mcp-Method, Mcp-Name or Mcp-Param-*
// headers); every other check and the handlers are the HTTP path's. There
// being no session to hear it, inproc itself turns a notifications/cancelled
// naming such a request into the cancellation of its context (nothing more
// is sent for it). EmbedOptions.ProtocolVersion = Version20260728 opens an
// embedded session that speaks the revision.
//
// One tool serves both eras. The revision has no server-to-client
// requests: a tool's questions (mcp.Context's Ask, Elicit, Sample, Roots)
// become a multi round-trip request (rev20260728_mrtr.go). handleRequest runs a modern
// request as one round (runRound): openRound reads the request's
// requestState and inputResponses, and the tool's Context gets a peer
// (inputPeer, an mcpInputPeer) that answers questions from them. A
// question without an answer ends the round (mcp.ErrInputRequired; a
// tool that swallows it changes nothing) and the request is answered
// with an input-required result, a normal JSON-RPC result: the open
// questions under their keys, and a new requestState carrying the answers
// the handler took. The client sends the request again with the answers
// and the state, and the handler runs again from the start. Elicit,
// Sample and Roots ask under "elicitation-1", "sampling-1", "roots-1", …,
// counted per handler call, so a handler asks the same keys every round;
// Ask takes keys of its own. Only tools/call, prompts/get and
// resources/read may end that way; a question while serving any other
// method fails with ErrInputNotAllowed. A question needs the capability
// the request's _meta declared (else mcp.ErrCapability, before anything
// is asked). inputResponses must be an object of objects, and an answer
// must have its method's result shape (an elicitation's action, a
// sampling's role and content, a roots list's roots), else -32602;
// unknown keys are ignored; a missing key is asked again. requestState is
// sealed with AES-256-GCM under a key derived from Options.StateKey
// (random per process when unset: replicas must share one) and binds the
// method, a SHA-256 of the params without inputResponses, requestState
// and _meta, the caller (its mcp.Subject, else its auth data), an expiry
// (Options.StateTTL) and the answers so far; one that was altered,
// expired, or issued for another method, params or caller is -32602
// saying which. On a 2025 session the same tool's questions are
// server-to-client requests on the call's stream, as before.
//
// A server with skills (mcp.Server.AddSkills; ext_skills.go) declares the
// extension io.modelcontextprotocol/skills with directoryRead in
// server/discover and answers skills/list, skills/get and
// resources/directory/read, at both revisions (-32601 without skills).
//
// # Tasks
//
// The tasks extension of revision 2026-07-28 (io.modelcontextprotocol/tasks,
// ext_tasks.go) runs a tool declared with mcp.Tool.Task in the background.
// server/discover advertises it under capabilities.extensions. A modern
// tools/call of such a tool (doToolsCall → callAsTask) becomes a task
// when its _meta client capabilities carry the extension (per request;
// a client's task param is ignored): the task (a session.Task, status
// working) is written to the task store before the answer, a flat
// CreateTaskResult (resultType "task", taskId, ttlMs, pollIntervalMs,
// timestamps); the tool then runs on a context detached from the request
// (its values kept), cancelled by tasks/cancel and by Close (the task
// then ends failed), and counted in the handler's WaitGroup, so Close and
// Instance.Wait wait for it. Without the opt-in, an optional task runs as
// an ordinary call and a required one is -32021 with
// data.requiredCapabilities.extensions; the 2025 revisions never make
// tasks. The tool's peer is a taskPeer: its questions (Elicit, Sample,
// Ask) are written to the task as inputRequests (status input_required;
// a key asked again gets a suffix, so keys are unique over the task's
// life) and it waits for the answers in the store; progress and logs are
// dropped. tasks/get returns the task (resultType "complete"; its
// questions, its CallToolResult once completed, its JSON-RPC error once
// failed; never requestState). tasks/update moves the answers of
// outstanding keys into the task (others are ignored; the status stays
// input_required until none is left) and answers {"resultType":"complete"};
// tasks/cancel settles a running task cancelled and answers the same way,
// also for an ended task. The three need the opt-in (-32021, checked
// before the taskId is looked up) and Mcp-Name equal to the taskId
// (-32020); an unknown task, or one another caller made (its identity,
// as for sessions), is -32602; tasks/result and tasks/list are unknown
// methods (404). Tasks live in Options.Sessions when it is a
// session.TaskStore (MemoryStore, RedisStore; else an in-memory store of
// the handler) for their TTL after creation, so with Redis any replica
// answers for a task another runs: tasks/update and tasks/cancel write
// to the store, wake the runner at once when it is on this replica, and
// otherwise its watcher, which reads the task every 100 ms, sees them.
// The watcher also writes the task's heartbeat every 2 s; a task that is
// not terminal and whose heartbeat is 10 s old was left behind by a
// replica that stopped, and the next tasks/* call about it, on any
// replica, settles it failed (settleLost).
// With TaskOptions.Deferred the tool runs first as part of the request,
// with the request's own peer (so its questions are an input-required
// result and a second round), and the task is made when it calls
// Context.StartTask (phasePeer); a tool that returns before that answers
// the request as an ordinary call.
//
// # Sessions
//
// A session is a working copy of its state (internal/sessionstate: what
// the client said; its session.Record is stored in Options.Sessions) and
// a conn (its in-flight
// requests, pending server requests, GET queue and roots, in this
// process). resolve touches the stored record on every request (which
// restarts its idle TTL and takes what other replicas wrote; on the
// default session.MemoryStore, without copying the record: TouchApply), adopts a
// session another replica made when the caller's identity matches, and
// answers a store failure with 503; changes (log level, subscriptions,
// initialized) are written back with Store.Update, and a failed write
// fails the request with -32603. With a shared store (Redis), any
// replica serves any session and, with Options.Events, resumes any
// stream; with Options.Relay, the answer to a server-to-client request
// that reaches another replica is relayed to the one that asked (IDs
// carry its tag), and without it dropped with a warning and answered 202 (docs/deploy.md,
// "Several replicas"). [SessionHooks] hear of
// its start, its end (DELETE, idle expiry by the reaper, a lost client,
// the server) and roots changes; [Handler.Sessions] lists the live ones.
//
// # Stateless mode
//
// With Options.Stateless a handler keeps no session for 2025 clients
// either: each POST gets a throw-away session, no Mcp-Session-Id is
// issued (one a client sends is ignored), no hooks are called, and any
// replica can answer any request. Revision 2026-07-28 is served as
// always (it has no sessions; subscriptions/listen included). A 2025
// client loses what a session holds (docs/deploy.md, "Several replicas",
// lists it; stateless_test.go checks each point): what initialize said
// (later requests know no client info or capabilities, so Sample, Elicit
// and Roots fail with mcp.ErrCapability, and the initialize result
// promises no listChanged or subscribe); the GET stream (405: no list
// changes, resource updates, broadcasts or pings) and DELETE (405);
// resumption (Resumable is ignored, no event IDs); logging/setLevel and
// resources/subscribe (acknowledged, not kept); notifications/cancelled
// (it reaches no request; closing the connection still cancels). What
// stays: every request/response method, progress and logs on the
// call's own SSE response, pagination cursors, 2025-03-26 batches,
// authentication per request.
//
// # Panics
//
// Recovered in one documented place per layer, and logged with a stack:
//
//   - the tool layer: mcp.Server recovers a panicking tool and answers an
//     isError result (so the model sees it);
//   - the engine: handleRequest, the one function every request passes,
//     also on goroutines of their own (batches, resumable requests) where
//     no HTTP middleware could catch it; the client gets -32603;
//   - the HTTP layer: middleware.Recover, first in every chain NewMux,
//     Start and Embed build, for the middleware and everything before
//     handleRequest; the client gets a 500 with a -32603 body.
//
// Session hooks are called on the engine's goroutines and are not
// recovered: a hook must not panic.
package mcphttp
