package engine

// ListToolsJSONTasks is ListToolsJSON with each tool that may run as a
// task carrying execution.taskSupport ("optional" or "required"), the
// form tools/list takes at revision 2025-11-25:
// func(*mcp.Server, context.Context, any, sessionID string) []json.RawMessage.
var ListToolsJSONTasks any
