package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpchain/mcp/internal/engine"
)

// The transport-only operations, exported to the tests of package
// mcp_test, which exercise the registry without a transport. Programs
// reach them only through a transport (mcphttp), which authenticates the
// caller first.

// RequestInfo is what a transport knows about a request.
type RequestInfo = requestInfo

// Change is a change of the registry.
type Change = change

// The kinds of [Change].
const (
	ToolsChanged     = engine.ToolsChanged
	ResourcesChanged = engine.ResourcesChanged
	PromptsChanged   = engine.PromptsChanged
	ResourceUpdated  = engine.ResourceUpdated
	LogBroadcast     = engine.LogBroadcast
)

// NewContext is newContext.
func NewContext(ctx context.Context, info RequestInfo) *Context { return newContext(ctx, info) }

// WithContext is withContext.
func WithContext(ctx context.Context, c *Context) context.Context { return withContext(ctx, c) }

// InterceptorFrom is interceptorFrom.
func InterceptorFrom(ctx context.Context) Interceptor { return interceptorFrom(ctx) }

// CallTool is callTool.
func (s *Server) CallTool(ctx context.Context, c *Context, name string, args json.RawMessage) (*ContentResult, error) {
	return s.callTool(ctx, c, name, args)
}

// ReadResource is readResource.
func (s *Server) ReadResource(ctx context.Context, c *Context, uri string) (*ReadResourceResult, error) {
	return s.readResource(ctx, c, uri)
}

// GetPrompt is getPrompt.
func (s *Server) GetPrompt(ctx context.Context, c *Context, name string, args map[string]string) (*PromptResult, error) {
	return s.getPrompt(ctx, c, name, args)
}

// Complete is complete.
func (s *Server) Complete(ctx context.Context, c *Context, ref CompletionRef, arg, value string, args map[string]string) (*CompletionResult, error) {
	return s.complete(ctx, c, ref, arg, value, args)
}

// LookupTool is lookupTool.
func (s *Server) LookupTool(ctx context.Context, auth any, name string) (Tool, bool) {
	return s.lookupTool(ctx, auth, "", name)
}

// ListToolsJSON is listToolsJSON.
func (s *Server) ListToolsJSON(ctx context.Context, auth any) []json.RawMessage {
	return s.listToolsJSON(ctx, auth, "", nil)
}

// Watch is watch.
func (s *Server) Watch(fn func(Change)) (stop func()) { return s.watch(fn) }

// Routes is routeList.
func (s *Server) Routes() []engine.Route { return s.routeList() }

// HasSkills is hasSkills.
func (s *Server) HasSkills() bool { return s.hasSkills() }

// GetSkill is getSkill.
func (s *Server) GetSkill(ctx context.Context, auth any, uri string) (Skill, error) {
	return s.getSkill(ctx, auth, uri)
}

// ReadSkillDirectory is readSkillDirectory.
func (s *Server) ReadSkillDirectory(ctx context.Context, auth any, uri string) ([]Resource, error) {
	return s.readSkillDirectory(ctx, auth, uri)
}

// ListPrompts is listPrompts for the session of ctx: what prompts/list
// answers the caller.
func (s *Server) ListPrompts(ctx context.Context, auth any) []Prompt {
	return s.listPrompts(ctx, auth, sessionIDOf(ctx), nil)
}

// ListResources is listResources for the session of ctx.
func (s *Server) ListResources(ctx context.Context, auth any) []Resource {
	return s.listResources(ctx, auth, sessionIDOf(ctx), nil)
}

// ListResourceTemplates is listResourceTemplates for the session of ctx.
func (s *Server) ListResourceTemplates(ctx context.Context, auth any) []ResourceTemplate {
	return s.listResourceTemplates(ctx, auth, sessionIDOf(ctx), nil)
}

// ListSkills is listSkills.
func (s *Server) ListSkills(context.Context, any) []Skill { return s.listSkills() }
