package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// errSamplingTools is what Sample returns for a request with tools to a
// client that did not declare sampling.tools.
var errSamplingTools = fmt.Errorf("mcp: sampling with tools (tools or toolChoice in sampling/createMessage) needs the client's sampling.tools capability, which it did not declare: %w", ErrCapability)

// ErrToolLoopLimit is what [Context.SampleWithTools] returns, with the
// transcript so far, when the model still asks for tools in the loop's
// last round (whose toolChoice is "none").
var ErrToolLoopLimit = errors.New("mcp: the model still asked for tools in the last round of the tool loop")

// defaultToolLoopRounds is ToolLoop.MaxRounds when zero.
const defaultToolLoopRounds = 10

// ToolLoop is what [Context.SampleWithTools] offers the client's model.
type ToolLoop struct {
	// Tools holds the tools: the server the request is served by (to
	// offer some of its own tools), or a server made only to hold the
	// loop's tools, registered with [AddTool] as usual. The tools run as
	// they would for tools/call by the same caller: arguments validated,
	// CanAccess and Timeout applied, a panic or error turned into an
	// isError result the model sees. Required.
	Tools *Server
	// Names are the tools of Tools to offer; empty offers every tool the
	// caller may see. A name the caller cannot see is an error.
	Names []string
	// MaxRounds bounds the sampling requests of the loop; 0 means 10. The
	// last round asks with toolChoice "none", so the model answers.
	MaxRounds int
}

// ToolLoopResult is the outcome of [Context.SampleWithTools].
type ToolLoopResult struct {
	// Result is the model's last answer, which uses no tool.
	Result *CreateMessageResult
	// Messages is the whole conversation: the request's messages, then
	// each answer of the model and the user message with the results of
	// the tools it asked for.
	Messages []SamplingMessage
	// Rounds counts the sampling requests sent.
	Rounds int
}

// SampleWithTools runs the tool loop of sampling with tools (revision
// 2025-11-25): it asks the client's model (sampling/createMessage with p
// and the tools of loop), runs the tools the model asks for
// ([ToolUseContent] items) one after the other, sends their results back
// ([ToolResultContent] items in a user message, after the model's
// message), and asks again, until the model answers without a tool use
// or loop.MaxRounds requests were sent. p's Tools are replaced by
// loop's; its other members (MaxTokens, SystemPrompt, ToolChoice, …)
// are sent on every round.
//
// It fails with an error wrapping [ErrCapability] when the client did not
// declare sampling with its tools member (sampling.tools), before
// anything is sent. At revision 2026-07-28 each sampling request is a
// question of an input-required round ("sampling-1", "sampling-2", …),
// and the handler runs again from the start with each answer: the tools
// of the earlier rounds run again too, so they should be safe to repeat
// (the tools of a sampling loop mostly read).
func (c *Context) SampleWithTools(ctx context.Context, p *CreateMessageParams, loop ToolLoop) (*ToolLoopResult, error) {
	if err := c.checkToolLoop(loop); err != nil {
		return nil, err
	}
	if p == nil {
		p = &CreateMessageParams{}
	}
	tools, err := loop.offered(ctx, c.Session)
	if err != nil {
		return nil, err
	}
	offered := make(map[string]bool, len(tools))
	for _, t := range tools {
		offered[t.Name] = true
	}
	rounds := loop.MaxRounds
	if rounds <= 0 {
		rounds = defaultToolLoopRounds
	}
	msgs := append([]SamplingMessage(nil), p.Messages...)
	for round := 1; ; round++ {
		q := *p
		q.Messages, q.Tools = msgs, tools
		if round == rounds {
			q.ToolChoice = &ToolChoice{Mode: ToolChoiceNone}
		}
		res, err := c.Sample(ctx, &q)
		if err != nil {
			return nil, err
		}
		role := res.Role
		if role == "" {
			role = RoleAssistant
		}
		msgs = append(msgs, SamplingMessage{Role: role, Content: res.Content, Blocks: res.Blocks})
		out := &ToolLoopResult{Result: res, Messages: msgs, Rounds: round}
		uses := res.ToolUses()
		if len(uses) == 0 {
			return out, nil
		}
		if round == rounds {
			return out, ErrToolLoopLimit
		}
		results, err := c.runLoopTools(ctx, loop.Tools, offered, uses)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, SamplingMessage{Role: RoleUser, Blocks: results})
	}
}

// offered is the definitions of the tools the loop offers, as the caller
// sees them.
func (loop ToolLoop) offered(ctx context.Context, auth any) ([]Tool, error) {
	if len(loop.Names) == 0 {
		tools := loop.Tools.ListTools(ctx, auth)
		if len(tools) == 0 {
			return nil, errors.New("mcp: SampleWithTools: ToolLoop.Tools has no tool this caller may see")
		}
		return tools, nil
	}
	reg := loop.Tools.reg.Load()
	sid := ""
	if c := FromContext(ctx); c != nil {
		sid = c.SessionID
	}
	tools := make([]Tool, 0, len(loop.Names))
	for _, name := range loop.Names {
		e, ok := find(loop.Tools, ctx, auth, sid, name, reg.tools, ownTools)
		if !ok {
			if h, ok := findMounted(loop.Tools, ctx, auth, sid, name, toolOps); ok { // compose.go
				tools = append(tools, mountedTool(h))
				continue
			}
			return nil, fmt.Errorf("mcp: SampleWithTools: ToolLoop.Tools has no tool %s this caller may see", strictjson.Quote(name))
		}
		tools = append(tools, e.tool)
	}
	return tools, nil
}

// runLoopTool runs the tool u asks for, as tools/call would for the same
// caller, and returns its result for the model. Only a cancelled context
// and [ErrInputRequired] (the tool asked the client something at revision
// 2026-07-28: the round ends) end the loop; every other failure is an
// isError result, which the model can act on.
// checkToolLoop refuses, before anything is sent, a loop the client
// cannot take (no sampling, or sampling without tools) or that has no
// tools.
func (c *Context) checkToolLoop(loop ToolLoop) error {
	if c.ClientCapabilities.Sampling == nil {
		return ErrCapability
	}
	if c.ClientCapabilities.Sampling.Tools == nil {
		return errSamplingTools
	}
	if loop.Tools == nil {
		return errors.New("mcp: SampleWithTools: ToolLoop.Tools is nil")
	}
	return nil
}

// runLoopTools runs the tool uses of one round, in order, and returns
// their results.
func (c *Context) runLoopTools(ctx context.Context, s *Server, offered map[string]bool, uses []ToolUseContent) ([]Content, error) {
	results := make([]Content, 0, len(uses))
	for _, u := range uses {
		r, err := c.runLoopTool(ctx, s, offered, u)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

func (c *Context) runLoopTool(ctx context.Context, s *Server, offered map[string]bool, u ToolUseContent) (ToolResultContent, error) {
	out := ToolResultContent{ToolUseID: u.ID}
	fail := func(msg string) (ToolResultContent, error) {
		out.Content, out.IsError = []Content{TextContent{Text: msg}}, true
		return out, nil
	}
	e, ok := find(s, ctx, c.Session, c.SessionID, u.Name, s.reg.Load().tools, ownTools)
	owner := s // the server that registered the tool
	if !ok {
		var h hit[*toolEntry]
		if h, ok = findMounted(s, ctx, c.Session, c.SessionID, u.Name, toolOps); ok { // compose.go
			e, owner = h.e, h.owner
		}
	}
	if !ok || !offered[u.Name] {
		return fail("Unknown tool: " + strictjson.Quote(u.Name) + "; the tools offered are those of the request.")
	}
	args, err := e.prepare(u.Input)
	if err != nil {
		res, err := invalidArguments(u.Name, err)
		if err != nil {
			return fail(errorText(err))
		}
		out.Content, out.IsError = res.Content, res.IsError
		return out, nil
	}
	// The tool gets a Context of its own (its name in log messages, its
	// own deadline), which asks the client under the keys of c.
	tc := newContext(ctx, contextInfo(c))
	tc.keyParent = c
	tc.toolName = u.Name
	res, err := owner.runTool(withContext(ctx, tc), tc, e, args)
	if err != nil {
		if errors.Is(err, ErrInputRequired) {
			return out, err
		}
		if ctx.Err() != nil {
			return out, context.Cause(ctx)
		}
		var ferr error
		if res, ferr = toolFailure(u.Name, e, err); ferr != nil {
			return fail(errorText(ferr))
		}
	}
	out.Content, out.StructuredContent, out.IsError = res.Content, res.StructuredContent, res.IsError
	if out.Content == nil {
		out.Content = []Content{}
	}
	return out, nil
}

// errorText is an error's text for the model: a JSON-RPC error's message.
func errorText(err error) string {
	if je := (*Error)(nil); errors.As(err, &je) {
		return je.Message
	}
	return err.Error()
}
