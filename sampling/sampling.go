package sampling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// errTools is what Create returns for a request with tools to a client
// that did not declare sampling.tools.
var errTools = fmt.Errorf("sampling: sampling with tools (tools or toolChoice in sampling/createMessage) needs the client's sampling.tools capability, which it did not declare: %w", mcp.ErrCapability)

// ErrLoopLimit is what [RunLoop] returns, with the transcript so far,
// when the model still asks for tools in the loop's last round (whose
// toolChoice is "none").
var ErrLoopLimit = errors.New("sampling: the model still asked for tools in the last round of the tool loop")

// defaultRounds is Loop.MaxRounds when zero.
const defaultRounds = 10

// contextOps is what this package needs of a request's mcp.Context and
// of a server that package mcp's API does not offer: operations of the
// engine's view (package mcp's engine.go, reached through engine.View,
// as package mcphttp reaches it), named here with their types so that
// the compiler checks the calls.
type contextOps interface {
	// AskNext puts one question of kind ("sampling") to the client c
	// answers for and decodes the answer into res, a pointer: over an
	// input peer (revision 2026-07-28, a task) under the handler's next
	// key of kind, else as a server-to-client request. It fails with
	// mcp.ErrCapability when declared is false.
	AskNext(ctx context.Context, c *mcp.Context, declared bool, kind, method string, params, res any) error
	// LoopTools returns the definitions of the named tools (every tool
	// when names is empty) as c's caller sees them, an error for a name
	// it cannot see or for none at all.
	LoopTools(ctx context.Context, c *mcp.Context, names []string) ([]mcp.Tool, error)
	// RunLoopTool runs the named tool for c's caller as tools/call would
	// and returns its result; a failure of the tool is an isError
	// result. Only a cancelled context and mcp.ErrInputRequired are
	// errors.
	RunLoopTool(ctx context.Context, c *mcp.Context, name string, input json.RawMessage) (*mcp.ContentResult, error)
}

// viewOf is package mcp's engine.View, asserted to its type once.
var viewOf = engine.View.(func(*mcp.Server) any)

// opsOf returns the engine's view of srv; AskNext uses no server, so nil
// serves for it.
func opsOf(srv *mcp.Server) contextOps { return viewOf(srv).(contextOps) }

// Create asks the client's model for a completion (sampling/createMessage)
// on behalf of the request c serves. It fails with mcp.ErrCapability
// when the client did not declare sampling, and mcp.ErrNoPeer when the
// request has no way back to the client. Over an input peer (revision
// 2026-07-28) it is a question under the key "sampling-N" (see
// mcp.Context.Ask), and mcp.ErrInputRequired until the client answered.
//
// A request with Tools or ToolChoice (sampling with tools) also needs the
// client's sampling.tools capability (else an error wrapping
// mcp.ErrCapability); [RunLoop] runs the whole tool loop.
func Create(ctx context.Context, c *mcp.Context, r *Request) (*Result, error) {
	if r == nil {
		r = &Request{}
	}
	caps := c.ClientCapabilities.Sampling
	if (len(r.Tools) > 0 || r.ToolChoice != nil) && caps != nil && caps.Tools == nil {
		return nil, errTools
	}
	var res Result
	if err := opsOf(nil).AskNext(ctx, c, caps != nil, "sampling", "sampling/createMessage", r, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Loop is what [RunLoop] offers the client's model.
type Loop struct {
	// Tools holds the tools: the server the request is served by (to
	// offer some of its own tools), or a server made only to hold the
	// loop's tools, registered with mcp.AddTool as usual. The tools run
	// as they would for tools/call by the same caller: arguments
	// validated, CanAccess and Timeout applied, a panic or error turned
	// into an isError result the model sees. Required.
	Tools *mcp.Server
	// Names are the tools of Tools to offer; empty offers every tool the
	// caller may see. A name the caller cannot see is an error.
	Names []string
	// MaxRounds bounds the sampling requests of the loop; 0 means 10. The
	// last round asks with toolChoice "none", so the model answers.
	MaxRounds int
}

// LoopResult is the outcome of [RunLoop].
type LoopResult struct {
	// Result is the model's last answer, which uses no tool.
	Result *Result
	// Messages is the whole conversation: the request's messages, then
	// each answer of the model and the user message with the results of
	// the tools it asked for.
	Messages []Message
	// Rounds counts the sampling requests sent.
	Rounds int
}

// RunLoop runs the tool loop of sampling with tools (revision
// 2025-11-25): it asks the client's model (sampling/createMessage with r
// and the tools of loop), runs the tools the model asks for ([ToolUse]
// items) one after the other, sends their results back ([ToolResult]
// items in a user message, after the model's message), and asks again,
// until the model answers without a tool use or loop.MaxRounds requests
// were sent. r's Tools are replaced by loop's; its other members
// (MaxTokens, SystemPrompt, ToolChoice, …) are sent on every round. No
// tool runs before the client's model asked for it.
//
// It fails with an error wrapping mcp.ErrCapability when the client did
// not declare sampling with its tools member (sampling.tools), before
// anything is sent. At revision 2026-07-28 each sampling request is a
// question of an input-required round ("sampling-1", "sampling-2", …),
// and the handler runs again from the start with each answer: the tools
// of the earlier rounds run again too, so they should be safe to repeat
// (the tools of a sampling loop mostly read).
func RunLoop(ctx context.Context, c *mcp.Context, r *Request, loop Loop) (*LoopResult, error) {
	if err := checkLoop(c, loop); err != nil {
		return nil, err
	}
	if r == nil {
		r = &Request{}
	}
	ops := opsOf(loop.Tools)
	tools, err := ops.LoopTools(ctx, c, loop.Names)
	if err != nil {
		return nil, err
	}
	offered := make(map[string]bool, len(tools))
	for _, t := range tools {
		offered[t.Name] = true
	}
	rounds := loop.MaxRounds
	if rounds <= 0 {
		rounds = defaultRounds
	}
	msgs := append([]Message(nil), r.Messages...)
	for round := 1; ; round++ {
		q := *r
		q.Messages, q.Tools = msgs, tools
		if round == rounds {
			q.ToolChoice = &ToolChoice{Mode: ToolChoiceNone}
		}
		res, err := Create(ctx, c, &q)
		if err != nil {
			return nil, err
		}
		role := res.Role
		if role == "" {
			role = mcp.RoleAssistant
		}
		msgs = append(msgs, Message{Role: role, Content: res.Content, Blocks: res.Blocks})
		out := &LoopResult{Result: res, Messages: msgs, Rounds: round}
		uses := res.ToolUses()
		if len(uses) == 0 {
			return out, nil
		}
		if round == rounds {
			return out, ErrLoopLimit
		}
		results := make([]mcp.Content, 0, len(uses))
		for _, u := range uses {
			tr, err := runTool(ctx, ops, c, offered, u)
			if err != nil {
				return nil, err
			}
			results = append(results, tr)
		}
		msgs = append(msgs, Message{Role: mcp.RoleUser, Blocks: results})
	}
}

// checkLoop refuses, before anything is sent, a loop the client cannot
// take (no sampling, or sampling without tools) or that has no tools.
func checkLoop(c *mcp.Context, loop Loop) error {
	caps := c.ClientCapabilities.Sampling
	if caps == nil {
		return mcp.ErrCapability
	}
	if caps.Tools == nil {
		return errTools
	}
	if loop.Tools == nil {
		return errors.New("sampling: RunLoop: Loop.Tools is nil")
	}
	return nil
}

// runTool runs the tool u asks for, as tools/call would for the same
// caller, and returns its result for the model. Only a cancelled context
// and mcp.ErrInputRequired (the tool asked the client something at
// revision 2026-07-28: the round ends) end the loop; every other failure
// is an isError result, which the model can act on.
func runTool(ctx context.Context, ops contextOps, c *mcp.Context, offered map[string]bool, u ToolUse) (ToolResult, error) {
	out := ToolResult{ToolUseID: u.ID}
	if !offered[u.Name] {
		out.Content, out.IsError = []mcp.Content{mcp.Text("Unknown tool: " + strictjson.Quote(u.Name) + "; the tools offered are those of the request.")}, true
		return out, nil
	}
	res, err := ops.RunLoopTool(ctx, c, u.Name, u.Input)
	if err != nil {
		return out, err
	}
	out.Content, out.StructuredContent, out.IsError = res.Content, res.StructuredContent, res.IsError
	if out.Content == nil {
		out.Content = []mcp.Content{}
	}
	return out, nil
}
