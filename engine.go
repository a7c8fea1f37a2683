package mcp

import "github.com/mcpchain/mcp/internal/engine"

// init hands the transport-only operations to package mcphttp through
// package engine (see its documentation for why they are hooks).
func init() {
	engine.NewContext = newContext
	engine.ContextInfo = contextInfo
	engine.WithContext = withContext
	engine.InterceptorFrom = interceptorFrom
	engine.ListRoots = listRoots
	engine.CallTool = (*Server).callTool
	engine.ReadResource = (*Server).readResource
	engine.GetPrompt = (*Server).getPrompt
	engine.Complete = (*Server).complete
	engine.LookupTool = (*Server).lookupTool
	engine.ListToolsJSON = (*Server).listToolsJSON
	engine.ListResources = (*Server).listResources
	engine.ListResourceTemplates = (*Server).listResourceTemplates
	engine.ListPrompts = (*Server).listPrompts
	engine.TrackSessions = (*Server).trackSessions
	engine.SessionEnded = (*Server).sessionEnded
	engine.Watch = (*Server).watch
	engine.Routes = (*Server).routeList
	engine.HasSkills = (*Server).hasSkills
	engine.GetSkill = (*Server).getSkill
	engine.ReadSkillDirectory = (*Server).readSkillDirectory
}
