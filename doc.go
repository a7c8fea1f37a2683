// Package mcp declares what a Model Context Protocol server offers: its
// tools (typed Go functions whose JSON Schema comes from the argument type),
// resources, resource templates (RFC 6570) and prompts, and the [Context]
// a tool gets for logging, progress, streamed content, sampling,
// elicitation and roots.
//
// A [Server] is a registry; serve it with package
// github.com/mcpchain/mcp/mcphttp, which turns it into an http.Handler
// (Streamable HTTP), runs it over stdio, or embeds it in-process:
//
//	srv := mcp.NewServer(mcp.Options{Name: "hello", Version: "1.0.0"})
//	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Say hello"},
//		func(ctx context.Context, c *mcp.Context, in struct {
//			Name string `json:"name" jsonschema:"who to greet"`
//		}) (string, error) {
//			return "Hello, " + in.Name + "!", nil
//		})
//
// Errors follow the newest revision of the specification: a failing tool
// (its error, a panic, a timeout, or arguments that do not match the
// schema) is a result with isError set and a message naming the tool, so
// the model can correct itself; an unknown tool, prompt or resource is a
// JSON-RPC error with code -32602, and so is a resource loader's error
// that wraps [ErrResourceNotFound] (the spec's "Resource not found").
// A loader returns a value of its own as JSON with [JSONContents]; a tool
// reads its server's resources, with its caller's access, through
// [Context.ReadResource].
//
// # Registration
//
// AddTool, AddRawTool, AddResource, AddResourceTemplate, AddPrompt and
// AddTypedPrompt panic on a programmer error (a tool name outside the
// spec's rule, a duplicate, a missing Load): at start-up that is the
// quickest way to find it. What is registered, removed, hidden or shown
// while the server runs goes through a [Registry]: the server's
// ([Server.Registry]) or one session's ([Server.SessionRegistry]), whose
// methods, with [TryAddTool] and [TryAddTypedPrompt], return the same
// error instead ([ErrInvalidToolName], [ErrAlreadyRegistered],
// [ErrInvalidDefinition], [ErrNoSession]).
//
// # Access
//
// Every object can carry a CanAccess [access.Check]: it gets the request's
// context.Context (with whatever the application's middleware put there,
// such as a tenant) and the caller's auth data, and a refused object is
// invisible. Package access holds the ready-made checks
// ([access.Authenticated], [access.Scopes], [access.Roles], [access.All],
// [access.Any]).
//
// # Extensions
//
// A protocol extension of your own (SEP-2133) is an [Extension]: an
// identifier and settings the server advertises, the methods it adds and
// wrappers of methods the server serves. [Server.AddExtension] registers
// it; the engine serves it on every transport and revision, as it serves
// the server's own extensions (MCP Apps, skills).
package mcp
