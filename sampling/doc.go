// Package sampling asks the client's model for a completion from inside a
// request (sampling/createMessage), and runs the tool loop of sampling
// with tools (revision 2025-11-25), in which the model may call tools the
// server offers before it answers.
//
//	func summarize(ctx context.Context, c *mcp.Context, in struct{ Text string }) (string, error) {
//		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 200,
//			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("Summarize: " + in.Text)}}})
//		if err != nil {
//			return "", err // mcp.ErrInputRequired at 2026-07-28: return it
//		}
//		return res.Content.(mcp.TextContent).Text, nil
//	}
//
// [Create] needs the client's sampling capability (else an error wrapping
// mcp.ErrCapability) and a way back to the client (else mcp.ErrNoPeer: a
// Context that did not come from a request has none). Over the 2025
// revisions it is a server-to-client request on the call's stream; at
// revision 2026-07-28, and inside a task, it is a question of an
// input-required round under the key "sampling-1", "sampling-2", … (see
// mcp.Context.Ask), and it returns mcp.ErrInputRequired until the
// client's answer is in: the handler should return that error, and runs
// again from the start with the answer.
//
// [RunLoop] offers the model the tools of an *mcp.Server ([Loop]), runs
// each tool the model asks for ([ToolUse]) as tools/call would for the
// same caller, sends the results back ([ToolResult]) and asks again, until
// the model answers without a tool or [Loop.MaxRounds] requests were
// sent. It needs the client's sampling.tools capability, checked before
// anything is sent.
//
// The client's side is the Sample handler of package client's Options,
// which gets a [Request] and answers a [Result]; the types here are what
// both sides send.
package sampling
