package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// SamplingCapability is the client's sampling capability: its presence
// says the client accepts sampling/createMessage, its members what more
// it takes.
type SamplingCapability struct {
	// Context is non-nil when the client takes includeContext values
	// other than "none".
	Context *struct{} `json:"context,omitempty"`
	// Tools is non-nil when the client takes tools and toolChoice in a
	// sampling request and may answer with tool_use content (revision
	// 2025-11-25, SEP-1577). Package sampling refuses a request with
	// tools to a client that did not declare it.
	Tools *struct{} `json:"tools,omitempty"`
}

// decodeSamplingCapability reads the sampling capability leniently: any
// value but null declares sampling; "context" and "tools" count when
// present and neither null nor false, whatever their shape.
func decodeSamplingCapability(raw json.RawMessage) *SamplingCapability {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	s := &SamplingCapability{}
	var w struct {
		Context json.RawMessage `json:"context"`
		Tools   json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &w) == nil {
		if declared(w.Context) {
			s.Context = &struct{}{}
		}
		if declared(w.Tools) {
			s.Tools = &struct{}{}
		}
	}
	return s
}

// declared reports whether a capability member is present and means yes.
func declared(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null" && string(raw) != "false"
}

// The engine's operations for package sampling, which sends sampling
// requests and runs the tools of a sampling loop as the request's caller.
// They are methods of the engine's view (see engine.go), not of Context
// or Server, so that no code outside the module calls a tool with a
// Context it made up.

// AskNext puts one question of kind to the client c answers for and
// decodes the answer into res, a pointer: over an input peer under the
// handler's next key of kind ("sampling-1", …; an answer that does not
// decode is a -32602 error naming the key), else as a server-to-client
// request. It fails with ErrCapability when declared is false and
// ErrNoPeer when the request has no way back to the client. The receiver
// is not used.
func (*engineView) AskNext(ctx context.Context, c *Context, declared bool, kind, method string, params, res any) error {
	return askClientInto(ctx, c, declared, kind, method, params, res)
}

// LoopTools returns the definitions of the named tools of the server
// (every tool when names is empty) as c's caller sees them.
func (v *engineView) LoopTools(ctx context.Context, c *Context, names []string) ([]Tool, error) {
	s := v.server()
	if len(names) == 0 {
		tools := s.ListTools(ctx, c.Session)
		if len(tools) == 0 {
			return nil, errors.New("mcp: the sampling loop's server has no tool this caller may see")
		}
		return tools, nil
	}
	tools := make([]Tool, 0, len(names))
	for _, name := range names {
		t, ok := s.lookupTool(ctx, c.Session, c.SessionID, name)
		if !ok {
			return nil, errors.New("mcp: the sampling loop's server has no tool " + strictjson.Quote(name) + " this caller may see")
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// RunLoopTool runs the named tool of the server for c's caller, as
// tools/call would, and returns its result for the model. Only a
// cancelled context and [ErrInputRequired] (the tool asked the client
// something at revision 2026-07-28: the round ends) are errors; every
// other failure, an unknown tool included, is an isError result.
func (v *engineView) RunLoopTool(ctx context.Context, c *Context, name string, input json.RawMessage) (*ContentResult, error) {
	s := v.server()
	fail := func(msg string) (*ContentResult, error) {
		return &ContentResult{Content: []Content{TextContent{Text: msg}}, IsError: true}, nil
	}
	e, ok := find(s, ctx, c.Session, c.SessionID, name, s.reg.Load().tools, ownTools)
	owner := s // the server that registered the tool
	if !ok {
		var h hit[*toolEntry]
		if h, ok = findMounted(s, ctx, c.Session, c.SessionID, name, toolOps); ok { // compose.go
			e, owner = h.e, h.owner
		}
	}
	if !ok {
		return fail("Unknown tool: " + strictjson.Quote(name) + "; the tools offered are those of the request.")
	}
	args, err := e.prepare(input)
	if err != nil {
		res, err := invalidArguments(name, err)
		if err != nil {
			return fail(errorText(err))
		}
		return res, nil
	}
	// The tool gets a Context of its own (its name in log messages, its
	// own deadline), which asks the client under the keys of c.
	tc := newContext(ctx, contextInfo(c))
	tc.keyParent = c
	tc.toolName = name
	res, err := owner.runTool(withContext(ctx, tc), tc, e, args)
	if err != nil {
		if errors.Is(err, ErrInputRequired) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var ferr error
		if res, ferr = toolFailure(name, e, err); ferr != nil {
			return fail(errorText(ferr))
		}
	}
	return res, nil
}

// errorText is an error's text for the model: a JSON-RPC error's message.
func errorText(err error) string {
	if je := (*Error)(nil); errors.As(err, &je) {
		return je.Message
	}
	return err.Error()
}
