package mcphttp

import (
	"context"
	"encoding/json"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// requestInfo is what the engine knows about a request; it builds the
// tool's mcp.Context from it.
type requestInfo = engine.RequestInfo[mcp.Implementation, mcp.ClientCapabilities, mcp.LogLevel, mcp.Root]

// mcpInputPeer is a peer that puts several questions at once (revision
// 2026-07-28, tasks).
type mcpInputPeer = engine.InputPeer[mcp.InputRequest]

// change is a change of the server's registry.
type change = engine.Change[*mcp.LogMessage]

// hook holds package mcp's transport-only operations (see package
// engine), asserted to their types once, when the package is
// initialised; package mcp set them in its init, which runs first.
var hook = struct {
	newContext         func(ctx context.Context, info requestInfo) *mcp.Context
	contextInfo        func(c *mcp.Context) requestInfo
	withContext        func(ctx context.Context, c *mcp.Context) context.Context
	interceptorFrom    func(ctx context.Context) mcp.Interceptor
	listRoots          func(ctx context.Context, p engine.Peer) ([]mcp.Root, error)
	callTool           func(s *mcp.Server, ctx context.Context, c *mcp.Context, name string, args json.RawMessage) (*mcp.ContentResult, error)
	readResource       func(s *mcp.Server, ctx context.Context, c *mcp.Context, uri string) (*mcp.ReadResourceResult, error)
	getPrompt          func(s *mcp.Server, ctx context.Context, c *mcp.Context, name string, args map[string]string) (*mcp.PromptResult, error)
	complete           func(s *mcp.Server, ctx context.Context, c *mcp.Context, ref mcp.CompletionRef, arg, value string, args map[string]string) (*mcp.CompletionResult, error)
	lookupTool         func(s *mcp.Server, ctx context.Context, auth any, sid, name string) (mcp.Tool, bool)
	listToolsJSON      func(s *mcp.Server, ctx context.Context, auth any, sid string) []json.RawMessage
	listResources      func(s *mcp.Server, ctx context.Context, auth any, sid string) []mcp.Resource
	listTemplates      func(s *mcp.Server, ctx context.Context, auth any, sid string) []mcp.ResourceTemplate
	listPrompts        func(s *mcp.Server, ctx context.Context, auth any, sid string) []mcp.Prompt
	trackSessions      func(s *mcp.Server, live func(id string) bool) (stop func())
	sessionEnded       func(s *mcp.Server, id string)
	watch              func(s *mcp.Server, fn func(change)) (stop func())
	routes             func(s *mcp.Server) []engine.Route
	hasSkills          func(s *mcp.Server) bool
	getSkill           func(s *mcp.Server, ctx context.Context, auth any, uri string) (mcp.Skill, error)
	readSkillDirectory func(s *mcp.Server, ctx context.Context, auth any, uri string) ([]mcp.Resource, error)
}{
	newContext:         engine.NewContext.(func(context.Context, requestInfo) *mcp.Context),
	contextInfo:        engine.ContextInfo.(func(*mcp.Context) requestInfo),
	withContext:        engine.WithContext.(func(context.Context, *mcp.Context) context.Context),
	interceptorFrom:    engine.InterceptorFrom.(func(context.Context) mcp.Interceptor),
	listRoots:          engine.ListRoots.(func(context.Context, engine.Peer) ([]mcp.Root, error)),
	callTool:           engine.CallTool.(func(*mcp.Server, context.Context, *mcp.Context, string, json.RawMessage) (*mcp.ContentResult, error)),
	readResource:       engine.ReadResource.(func(*mcp.Server, context.Context, *mcp.Context, string) (*mcp.ReadResourceResult, error)),
	getPrompt:          engine.GetPrompt.(func(*mcp.Server, context.Context, *mcp.Context, string, map[string]string) (*mcp.PromptResult, error)),
	complete:           engine.Complete.(func(*mcp.Server, context.Context, *mcp.Context, mcp.CompletionRef, string, string, map[string]string) (*mcp.CompletionResult, error)),
	lookupTool:         engine.LookupTool.(func(*mcp.Server, context.Context, any, string, string) (mcp.Tool, bool)),
	listToolsJSON:      engine.ListToolsJSON.(func(*mcp.Server, context.Context, any, string) []json.RawMessage),
	listResources:      engine.ListResources.(func(*mcp.Server, context.Context, any, string) []mcp.Resource),
	listTemplates:      engine.ListResourceTemplates.(func(*mcp.Server, context.Context, any, string) []mcp.ResourceTemplate),
	listPrompts:        engine.ListPrompts.(func(*mcp.Server, context.Context, any, string) []mcp.Prompt),
	trackSessions:      engine.TrackSessions.(func(*mcp.Server, func(string) bool) func()),
	sessionEnded:       engine.SessionEnded.(func(*mcp.Server, string)),
	watch:              engine.Watch.(func(*mcp.Server, func(change)) func()),
	routes:             engine.Routes.(func(*mcp.Server) []engine.Route),
	hasSkills:          engine.HasSkills.(func(*mcp.Server) bool),
	getSkill:           engine.GetSkill.(func(*mcp.Server, context.Context, any, string) (mcp.Skill, error)),
	readSkillDirectory: engine.ReadSkillDirectory.(func(*mcp.Server, context.Context, any, string) ([]mcp.Resource, error)),
}

// mcpPeer is the way back to the client for one request.
type mcpPeer = engine.Peer

// The kinds of change the server's registry reports.
const (
	changeTools           = engine.ToolsChanged
	changeResources       = engine.ResourcesChanged
	changePrompts         = engine.PromptsChanged
	changeResourceUpdated = engine.ResourceUpdated
	changeLog             = engine.LogBroadcast
)
