package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// taskSupport is what a tool declares as execution.taskSupport in
// tools/list at revision 2025-11-25, derived from [Tool].Task: "forbidden"
// without one, "required" when [TaskOptions].Required, else "optional".
func taskSupport(t Tool) string {
	switch {
	case t.Task == nil:
		return "forbidden"
	case t.Task.Required:
		return "required"
	}
	return "optional"
}

// listToolsJSONTasks is listToolsJSON with execution.taskSupport added to
// the tools that may run as tasks (the others omit it, which means
// "forbidden"): tools/list at revision 2025-11-25.
func (s *Server) listToolsJSONTasks(ctx context.Context, auth any, sid string, pc *bool) []json.RawMessage {
	return listAll(s, ctx, auth, sid, toolOps, func(e *toolEntry) json.RawMessage { return withTaskSupport(e.tool, e.encoded) },
		func(h hit[*toolEntry]) json.RawMessage { return withTaskSupport(h.e.tool, mountedToolJSON(h)) }, pc)
}

// withTaskSupport adds execution.taskSupport to enc, the encoded tool t,
// when t may run as a task.
func withTaskSupport(t Tool, enc json.RawMessage) json.RawMessage {
	if t.Task == nil {
		return enc
	}
	// enc is a JSON object: {…}
	b := make([]byte, 0, len(enc)+48)
	b = append(b, enc[:len(enc)-1]...)
	b = append(b, `,"execution":{"taskSupport":"`...)
	b = append(b, taskSupport(t)...)
	return append(b, `"}}`...)
}

// refuseUntasked is the error of an ordinary call, at revision 2025-11-25,
// of a tool that runs only as a task: -32601, as that revision's tool-level
// negotiation has it. A task's run has a peer that starts tasks
// (engine.TaskStarter); other revisions decide before the tool is looked
// up (2026-07-28) or have no tasks (the older 2025 ones: the tool runs).
// A call its caller awaits within its own request (engine.WithAwaited: a
// script's) runs as an ordinary one.
func refuseUntasked(ctx context.Context, c *Context, name string) error {
	if c.ProtocolVersion != Version20251125 || engine.Awaited(ctx) {
		return nil
	}
	if _, ok := c.req.peer.(engine.TaskStarter); ok {
		return nil
	}
	return &Error{Code: CodeMethodNotFound, Message: "Method not found: tool " + strictjson.Quote(name) +
		" runs only as a task (its execution.taskSupport is required); call it with params.task"}
}

// toolExecution is a tool's execution member in tools/list (2025-11-25).
type toolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// task is the TaskOptions a listed tool's taskSupport stands for: nil
// for "forbidden" or none (and for a value this revision does not
// define).
func (e *toolExecution) task() *TaskOptions {
	switch {
	case e == nil:
		return nil
	case e.TaskSupport == "required":
		return &TaskOptions{Required: true}
	case e.TaskSupport == "optional":
		return &TaskOptions{}
	}
	return nil
}
