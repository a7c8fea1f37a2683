// Package mcpjson connects to the servers of an mcp.json: the file in
// which Claude Desktop, Claude Code, Cursor, VS Code, Gemini CLI and
// `mcpchain install` list MCP servers.
//
// # The file
//
// A JSON object whose "mcpServers" object (or "servers", VS Code's
// name for it) maps each server's name to its entry:
//
//	{
//	  "mcpServers": {
//	    "files": {"command": "files-server", "args": ["--root", "."], "env": {"LOG": "debug"}},
//	    "docs":  {"type": "http", "url": "https://docs.example.com/mcp",
//	              "headers": {"Authorization": "Bearer …"}}
//	  }
//	}
//
// An entry with a "command" is a stdio server: the command is started
// with "args", with "env" added to this process's environment, in "cwd"
// when set. An entry with a "url" (Gemini CLI's "httpUrl" too) is
// reached over Streamable HTTP, sending "headers" with every request.
// "type" (or "transport") may say so: "stdio", "http" (or
// "streamable-http"), or "sse" for the deprecated HTTP+SSE transport.
// An entry with "disabled": true is kept in the [Config] but not
// connected. Values are taken as written: "${VAR}" is not expanded.
//
// [Parse] is strict about what decides where a server is (a transport
// it does not know, a command and a URL in one entry, a URL that is
// not http or https, a name given twice are errors naming the server)
// and ignores the members it does not know, of which clients write
// many ("alwaysAllow", "timeout", VS Code's "inputs").
//
// A server's name prefixes its tools, as [mcp.Server.Mount] prefixes a
// mounted server's: it is 1 to 64 ASCII letters, digits and hyphens,
// so that "files_read" finds server "files" and tool "read" again.
//
// # Several servers as one client
//
//	cfg, err := mcpjson.Load("mcp.json")
//	if err != nil { … }
//	cs, err := mcpjson.Connect(ctx, cfg, nil)
//	if err != nil { … } // a *ConnectError naming each server that failed
//	defer cs.Close()
//	tools, err := cs.ListTools(ctx)            // "files_read", "docs_search", …
//	res, err := cs.CallTool(ctx, "docs_search", map[string]any{"q": "mount"}, nil)
//
// [Connect] connects to every server at once and is all or nothing:
// when one fails it closes the others. With [ConnectOptions.Partial] it
// keeps those that connected and returns them with the error.
// [Clients.Client] is one server's own [client.Client], for everything
// but tools.
//
// # One server for all of them
//
// proxy.NewConfigGateway serves every server of a Config as one
// [mcp.Server], each mounted under its name, so that a client configured
// with one server reaches all of them.
package mcpjson
