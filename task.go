package mcp

import (
	"context"
	"time"

	"github.com/mcpchain/mcp/internal/engine"
)

// TasksExtension is the identifier of the tasks extension of revision
// 2026-07-28 in capabilities.extensions: a server declares it, and a
// request whose client capabilities carry it may run a tool as a task
// ([TaskOptions]).
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskOptions make a tool runnable as a task (the extension
// io.modelcontextprotocol/tasks of revision 2026-07-28): when the request
// opts in (its client capabilities carry the extension), tools/call answers
// at once with a task, the tool runs on in the background, and the client
// polls tasks/get for its status and result, answers its questions with
// tasks/update and stops it with tasks/cancel. Set them as [Tool].Task.
// The same options serve the experimental tasks of revision 2025-11-25
// (execution.taskSupport "optional", or "required" with Required): a
// tools/call with params.task makes the task, and tasks/get, tasks/result,
// tasks/list and tasks/cancel follow it.
//
// A running task's context is not the HTTP request's: it ends when the
// client cancels the task, when the server shuts down, or with the tool's
// Timeout. Its [Context] asks the client through the task (package
// elicit's and package sampling's Create, [Context.Ask]: the task's status becomes input_required
// until tasks/update answers, or at 2025-11-25 until the client answers the
// request tasks/result sends it); progress and log messages go on the
// session's stream at 2025-11-25 and are dropped at 2026-07-28, which has
// no stream for them. On the older 2025 revisions, and without the opt-in
// when the task is optional, the tool runs as an ordinary call; so does a
// call from a script of package codemode, Required or not, which waits
// for the result inside the script's request.
type TaskOptions struct {
	// Required: the tool runs only as a task. Without the client's opt-in
	// (revision 2026-07-28) a call gets -32021 naming the extension in
	// data.requiredCapabilities; the 2025 revisions, which have no tasks,
	// run it as an ordinary call.
	Required bool
	// Deferred: the task is created when the tool calls
	// [Context.StartTask], not before the tool runs. Until then the tool
	// runs as part of the request, so what it asks the client goes on the
	// request (with revision 2026-07-28, an input-required result and a
	// second round); a tool that returns without calling StartTask answers
	// the request as an ordinary call.
	Deferred bool
	// TTL is how long the task and its result stay readable after it was
	// created; a task still running then is cancelled (it can no longer
	// be read, answered or cancelled). Zero: one hour.
	TTL time.Duration
	// PollInterval is the interval between tasks/get polls suggested to
	// the client. Zero: 500 ms.
	PollInterval time.Duration
}

// StartTask turns the call into a task, for a tool with
// [TaskOptions].Deferred: the task is created (and the request answered
// with it) now, and from here on the tool runs in the background as the
// task, asking the client through it. Everything the tool asked before
// went on the request itself. Where the call is not to be a task (a 2025
// revision, no opt-in, a tool without Deferred, or a task already
// started) StartTask does nothing and returns nil: the tool just goes on.
func (c *Context) StartTask(ctx context.Context) error {
	if s, ok := c.req.peer.(engine.TaskStarter); ok {
		return s.StartTask(ctx)
	}
	return nil
}

// lookupTool returns the named tool as the caller (its request context,
// auth data and session sid) sees it, and whether there is one.
func (s *Server) lookupTool(ctx context.Context, auth any, sid, name string) (Tool, bool) {
	e, ok := find(s, ctx, auth, sid, name, s.reg.Load().tools, ownTools)
	if !ok {
		if h, ok := findMounted(s, ctx, auth, sid, name, toolOps); ok {
			return mountedTool(h), true
		}
		return Tool{}, false
	}
	return e.tool, true
}
