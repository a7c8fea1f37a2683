// Package client is an MCP client: it connects to an MCP server over
// stdio ([Command], [Stdio]), Streamable HTTP ([HTTP]), the HTTP+SSE
// transport of 2024-11-05 ([LegacySSE]) or in process ([InProcess]: an
// MCP http.Handler in the same program, such as mcphttp.Local's chain, for
// agents that embed a server and for tests), initializes the
// session, and calls the server: tools (also as tasks, [Client.StartTool]),
// resources and templates, prompts, completions, logging, ping. It answers the server's own requests
// (sampling, elicitation, roots) with the handlers of [Options], passes
// its notifications (list changes, resource updates, log messages,
// progress) to callbacks, and cancels a call whose context ends with
// notifications/cancelled. At revision 2026-07-28 it hears list changes
// and resource updates on a subscriptions/listen stream, which it opens
// again when it ends (see Options.OnToolsChanged and Client.Subscribe).
//
//	c, err := client.Connect(ctx, client.HTTP("https://example.com/mcp", nil), nil)
//	if err != nil { … }
//	defer c.Close()
//	res, err := c.CallTool(ctx, "add", map[string]int{"a": 1, "b": 2}, nil)
//
// What the server sends is read leniently (unknown members are ignored,
// ids echoed as strings are matched) and bounded (32 MiB a message);
// errors name the server and the method, and a server's JSON-RPC error is
// its *mcp.Error (errors.As). The protocol's types are package mcp's:
// mcp.InitializeResult, mcp.Skill, the revisions (mcp.Version20251125,
// the default; mcp.Version20260728).
package client
