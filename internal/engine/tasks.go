package engine

import (
	"context"
	"time"
)

// The defaults of mcp.TaskOptions' TTL and PollInterval, which the
// engine applies and package client falls back on when a task names no
// poll interval.
const (
	DefaultTaskTTL          = time.Hour
	DefaultTaskPollInterval = 500 * time.Millisecond
)

// ListToolsJSONTasks is ListToolsJSON with each tool that may run as a
// task carrying execution.taskSupport ("optional" or "required"), the
// form tools/list takes at revision 2025-11-25:
// func(*mcp.Server, context.Context, any, sessionID string) []json.RawMessage.
var ListToolsJSONTasks any

// awaitedKey marks a context whose tools/call requests are awaited by
// their caller within one request of its own (WithAwaited).
type awaitedKey struct{}

// WithAwaited returns a copy of ctx whose tools/call requests, handed to
// the rest of the chain by an interceptor, run every tool as an ordinary
// call, whatever its mcp.TaskOptions: a tool that runs only as a task is
// not refused, and none becomes a task, whatever the request's params or
// client capabilities say. Package codemode marks a script's calls so:
// the script waits for each call's result inside the request that runs
// it, so a task would be a detached run whose ID no one learns and whose
// questions no one answers. Clients cannot set it; only server code that
// hands calls to the chain can.
func WithAwaited(ctx context.Context) context.Context {
	return context.WithValue(ctx, awaitedKey{}, true)
}

// Awaited reports whether ctx was marked by WithAwaited.
func Awaited(ctx context.Context) bool {
	v, _ := ctx.Value(awaitedKey{}).(bool)
	return v
}
