// Package toolsearch lets a model use a server of hundreds or thousands
// of tools without paying for all of them in context: the client lists a
// small fixed surface, a search tool, a call tool and the tools the
// author pins, and the model finds the rest on demand (as Python
// FastMCP's search transforms and Anthropic's tool search tool do).
//
//	srv := mcp.NewServer(…)                 // any server: local tools,
//	openapi.Register(srv, spec, opts)        // OpenAPI operations, mounted
//	s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{"status"}})
//	h := s.Middleware(mcphttp.New(srv, nil)) // servers, gateway mirrors
//
// tools/list then answers status, search_tools and call_tool. The model
// calls search_tools with query, words saying what it wants to do, ranked
// by BM25 over each tool's name, title, description, argument names and
// descriptions, and tags (weighted in that order of importance, the
// words cut at camelCase and snake_case joints and reduced by a light
// stemmer); or with pattern, a regular expression (RE2, case-insensitive)
// matched against the same text, tools whose name matches first. The
// result holds each tool found as tools/list would list it (name, title,
// description, input schema, annotations; not the output schema nor
// icons, which cost context and are not needed to call it), best first,
// at most [Options.MaxResults]. The model then calls
// call_tool{name, arguments}, or the tool directly by its name: the
// tools are hidden from the listing, not from calls.
//
// # What a caller finds is what it may call
//
// Search lists the caller's tools through the server's own listing
// ([mcp.Server.ListTools] with the request's context): CanAccess checks,
// access policies, Disable and Enable rules (server-wide and the
// session's), the session's own tools, mounted servers and gateway
// mirrors, as they are at that moment; of a tool with versions
// ([mcp.Tool].Version), the version the caller gets, as the request's
// version filters ([mcp.WithVersionFilter]) choose it. A tool the caller could not list
// is never found; tools only an MCP App's view may call are left out too
// (a host keeps them from the model, and it does not filter a tool's
// result). call_tool does not run the tool itself: its interceptor hands
// the engine a tools/call of the named tool (see below), which the
// engine checks as a direct call, so a hidden tool is an "Unknown tool"
// the model reads as a tool error, and validation, timeouts, tasks and
// the MCP Apps fallback apply as usual.
//
// The index follows the catalog without being told: each search compares
// the caller's listing with the snapshots of recent listings, tool by
// tool (a tool that did not change costs a few comparisons), and builds
// a new snapshot when the list differs, reusing the analysis of every
// tool that did not change. A snapshot is shared only by callers who
// list exactly the same tools, so a session's own tools never appear in
// another caller's results, nor weigh in the statistics that rank them.
//
// # Why an interceptor and a tool
//
// The surface has two halves that need different places in the chain.
// Hiding the catalog from tools/list, and turning call_tool into a call
// of another tool, need to see and change requests: an [mcp.Interceptor]
// (installed by [Search.Middleware]) sees every JSON-RPC request on every
// transport after the envelope is decoded, and when it hands next a call
// with other params the engine runs those with all its checks, the same
// path as a direct call, rather than a second way into the tools that
// would have to repeat them. Searching needs the caller's exact view of
// the catalog, its session's tools and rules included, which only the
// request's [mcp.Context] carries: so search_tools is a tool, registered
// on the server, whose function lists through it. Interceptors installed
// inside this one (telemetry, rate limits) see a call_tool call as a
// call of the tool it names.
//
// # Limits
//
// A query is at most 1,000 bytes (32 distinct terms are looked up); a
// pattern at most 200 bytes, and one whose compiled program exceeds
// 1,000 instructions (counted repeats) is refused. Go's regular
// expressions run in linear time, and one search by pattern stops after
// 250 ms with what it found and a note saying so. A search lists the
// caller's tools each time, the cost of seeing exactly what the caller
// may call; BENCHMARKS.md has the figures at 10,000 tools.
//
// A tool of code mode (a script that calls tools) sits beside the search
// and call tools by being pinned.
package toolsearch
