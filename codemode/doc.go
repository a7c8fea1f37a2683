// Package codemode lets a model do in one tool call what would take many:
// it sends a short script that calls the server's tools and combines
// their results, and gets back only what the script keeps ("code mode",
// as Python FastMCP and Cloudflare's Code Mode offer it).
//
//	srv := mcp.NewServer(…)
//	r, err := codemode.New(srv, &codemode.Options{MaxCalls: 20})
//	s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{codemode.DefaultTool}}) // optional
//	h := r.Middleware(s.Middleware(mcphttp.New(srv, nil)))   // codemode outermost
//
// The script tool (run_script, [DefaultTool]) takes a Starlark program, a
// dialect of Python. call("tool_name", {"arg": 1}) calls a tool and
// returns its structured content as dicts, lists, numbers and strings (or,
// for a tool without structured content, its text); a tool's error ends
// the script with the tool's message, and try_call returns
// {"ok": False, "error": …} instead, for a script that handles it. The
// script sets the variable result, returned as JSON (text and structured
// content {"result": …}), or prints.
//
// # Every call takes the path of a direct call
//
// A script's tool call is not run by this package: the Runner's
// interceptor (installed by [Runner.Middleware]) hands the script tool's
// function the rest of the chain, and each call is a copy of the script's
// own tools/call request with other params (the name and arguments, and
// the request's _meta, so a progress token reaches the client) handed to
// it, as toolsearch's call_tool is. The engine checks it as a direct call
// of the same caller: authentication, CanAccess checks, access policies,
// Disable and Enable rules (a hidden tool is an "Unknown tool"), argument
// validation; interceptors inside the Runner's (telemetry, rate limits)
// see each call under its tool's name. The script tool itself is a tool
// like any other: the same checks decide who may run scripts.
//
// # Why Starlark
//
// go.starlark.net rather than goja (JavaScript): Starlark is hermetic by
// construction. A program reaches nothing but the values and functions
// the host predeclares: there is no file, network, clock, random or
// environment access to take away, and no load statement here (the
// thread has no loader). It counts execution steps and cancels a thread
// between two of them ([starlark.Thread.SetMaxExecutionSteps],
// [starlark.Thread.Cancel]), which bounds loops and wall time without a
// watchdog goroutine interrupting foreign code; it refuses recursion by
// default, which bounds the stack; and it has no eval, no JIT, no
// prototype chain or global object for a script to alter. goja runs
// ECMAScript 5.1+ with an interrupt, but its standard library (Date,
// Math.random, eval, Function) would have to be taken apart to make it
// hermetic, and a model's JavaScript would expect async tool calls it
// cannot have. Python is also the language models write most readily.
//
// # Limits
//
// Each script runs with bounds ([Options]): MaxSteps execution steps
// (default 1,000,000), Timeout of wall time (default 10 s; a call in
// progress is cancelled with it), MaxCalls tool calls (default 50),
// MaxOutputBytes of printed output plus result (default 64 KiB, which
// also bounds each call's arguments), MaxAllocBytes of values built. The
// source is at most 64 KiB; values crossing the sandbox's edge are
// nested at most 64 deep; range is at most 1,000,000 long. A script
// cannot run a script: call refuses the script tool's name, and the
// script tool refuses to run inside a script's call however it is
// reached (through toolsearch's call_tool, say). Every limit ends the
// script with a tool error saying which limit and at which line; so does
// a syntax or runtime error.
//
// Starlark counts steps, not memory, and one step can build a huge value
// ("s = s + s", "l.extend(l)", str of a list that holds one large string
// a million times). So a script is compiled with its +, *, %, <<, += and
// *= operators and every attribute it reads turned into calls of guards,
// and the built-ins that build values are wrapped: each refuses a result
// over the bounds of one value (a 4 MiB string; 1,000,000 elements; an
// int of 65,536 bits) before building it, and charges what it built to
// MaxAllocBytes (default 64 MiB over the run).
package codemode
