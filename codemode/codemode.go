package codemode

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/toolname"
)

// DefaultTool is the name of the script tool.
const DefaultTool = "run_script"

// The defaults of [Options].
const (
	defaultMaxSteps       = 1_000_000
	defaultTimeout        = 10 * time.Second
	defaultMaxCalls       = 50
	defaultMaxOutputBytes = 64 << 10
	defaultMaxAllocBytes  = 64 << 20
	// maxScriptBytes bounds a script's source.
	maxScriptBytes = 64 << 10
	// maxDepth bounds the nesting of a value crossing the sandbox's edge
	// (a tool's arguments, its result, the script's result).
	maxDepth = 64
	// maxRange bounds the length of a range: range(n) is lazy, but
	// list(range(n)) and sorted(range(n)) build it in one step.
	maxRange = 1_000_000
)

// Options configure a [Runner]. The zero value is usable: every limit
// has a default, and a negative limit is refused by [New].
type Options struct {
	// Tool names the script tool (default [DefaultTool]).
	Tool string
	// MaxSteps bounds the execution steps of one script (Starlark
	// bytecode instructions, tool calls included). Default 1,000,000,
	// about a tenth of a second of computation.
	MaxSteps uint64
	// Timeout bounds one script's wall time, its tool calls included; the
	// request's own deadline applies too when it is sooner. Default 10s.
	Timeout time.Duration
	// MaxCalls bounds the tool calls of one script. Default 50.
	MaxCalls int
	// MaxOutputBytes bounds what a script prints plus its result as JSON,
	// and the arguments of each tool call it makes. Default 64 KiB.
	MaxOutputBytes int
	// MaxAllocBytes bounds the bytes of the values one script builds, in
	// total over its run: each string, list, dict or int an operator, a
	// built-in, a method or a tool's result makes is counted when it is
	// made (an element of a list as 16 bytes, an entry of a dict as 64),
	// freed or not. Default 64 MiB.
	MaxAllocBytes int64
}

// Runner is code mode installed on a server (see the package
// documentation). Its [Runner.Middleware] must wrap the handler that
// serves the server.
type Runner struct {
	srv      *mcp.Server
	name     string
	maxSteps uint64
	timeout  time.Duration
	maxCalls int
	maxOut   int
	maxAlloc int64
	programs *programCache
}

// New registers the script tool on srv and returns the Runner whose
// Middleware lets scripts call tools. It fails, registering nothing, for
// a negative limit or an invalid tool name, or when srv already has a
// tool of that name (an error wrapping mcp.ErrAlreadyRegistered).
func New(srv *mcp.Server, opts *Options) (*Runner, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout < 0 || o.MaxCalls < 0 || o.MaxOutputBytes < 0 || o.MaxAllocBytes < 0 {
		return nil, errors.New("codemode: a limit of Options is negative")
	}
	r := &Runner{srv: srv, name: o.Tool, maxSteps: o.MaxSteps, timeout: o.Timeout, maxCalls: o.MaxCalls, maxOut: o.MaxOutputBytes, maxAlloc: o.MaxAllocBytes,
		programs: newProgramCache(programCacheSize)}
	if r.name == "" {
		r.name = DefaultTool
	}
	if !toolname.Valid(r.name) {
		return nil, fmt.Errorf("codemode: tool %q: %w", r.name, mcp.ErrInvalidToolName)
	}
	if r.maxSteps == 0 {
		r.maxSteps = defaultMaxSteps
	}
	if r.timeout == 0 {
		r.timeout = defaultTimeout
	}
	if r.maxCalls == 0 {
		r.maxCalls = defaultMaxCalls
	}
	if r.maxOut == 0 {
		r.maxOut = defaultMaxOutputBytes
	}
	if r.maxAlloc == 0 {
		r.maxAlloc = defaultMaxAllocBytes
	}
	if err := mcp.TryAddTool(srv.Registry(), r.toolDef(), r.runTool); err != nil {
		return nil, fmt.Errorf("codemode: the script tool: %w", err)
	}
	return r, nil
}

// scriptArgs are the script tool's arguments.
type scriptArgs struct {
	Script string `json:"script" jsonschema:"the Starlark (Python-like) program to run"`
}

func (r *Runner) toolDef() mcp.Tool {
	return mcp.Tool{
		Name:  r.name,
		Title: "Run a script that calls tools",
		Description: "Run a short Starlark program (a Python dialect: def, for, if, list and dict comprehensions; " +
			"no imports, try/except, classes, files, network or clock) that calls this server's tools and combines their results, " +
			"to do in one step what would take many tool calls.\n" +
			`call("tool_name", {"arg": 1}) calls a tool and returns its structured content (dicts, lists, numbers, strings) ` +
			"or, for a tool without one, its text; a tool error stops the script with its message. " +
			`try_call("tool_name", {...}) returns {"ok": True, "value": ...} or {"ok": False, "error": "..."} instead. ` +
			"Set the variable result to what you want back (it is returned as JSON), or print(...) it.\n" +
			fmt.Sprintf("Limits: %d tool calls, %d execution steps, %s, %d bytes of output; no recursion; %s cannot call itself.",
				r.maxCalls, r.maxSteps, r.timeout, r.maxOut, r.name),
	}
}

// Middleware installs the Runner's interceptor on every request through
// next (mcp.WithInterceptor), on every transport mcphttp serves. Put it
// outermost in a chain of middleware that install interceptors
// (toolsearch, telemetry, rate limits), so that each tool a script calls
// passes through theirs as a call of its own, and a script may use
// toolsearch's call_tool.
func (r *Runner) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(w, req.WithContext(mcp.WithInterceptor(req.Context(), r.intercept)))
	})
}

// chain is where a script's tool calls go: the rest of the chain after
// the Runner's interceptor, and the request that ran the script, whose
// copy with other params each call is.
type chain struct {
	next mcp.CallHandler
	call *mcp.Call
}

type chainKey struct{}

// runningKey marks the context of a script's tool calls, so that the
// script tool refuses to run inside one, however it is reached.
type runningKey struct{}

// intercept is the mcp.Interceptor: a call that may be of the script tool
// carries the rest of the chain in its context, to the script tool's
// function, which the engine runs with all its checks as any tool.
func (r *Runner) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		// A name spelled with escapes is carried too.
		if c.Method == "tools/call" && c.ID != nil &&
			(bytes.Contains(c.Params, []byte(r.name)) || bytes.Contains(c.Params, []byte(`\u`))) {
			cp := *c // the engine's Call is not to be kept past the return
			ctx = context.WithValue(ctx, chainKey{}, &chain{next: next, call: &cp})
		}
		return next(ctx, c)
	}
}

// runTool is the script tool's function.
func (r *Runner) runTool(ctx context.Context, c *mcp.Context, in scriptArgs) (*mcp.ContentResult, error) {
	if ctx.Value(runningKey{}) != nil {
		return nil, mcp.UserErrorf("%s cannot run from a script", r.name)
	}
	ch, _ := ctx.Value(chainKey{}).(*chain)
	if ch == nil {
		r.srv.Logger().Error("codemode: a script reached the tool without its middleware: wrap the server's handler with Runner.Middleware", "tool", r.name)
		return nil, mcp.UserErrorf("%s is not available on this server (its middleware is not installed)", r.name)
	}
	var meta json.RawMessage
	var outer struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(ch.call.Params, &outer) == nil {
		meta = outer.Meta
	}
	// The script waits for each call's result: a tool that may or must
	// run as a task runs as an ordinary call inside this request (a task
	// would run detached, its ID and questions unknown to the client).
	ctx = engine.WithAwaited(context.WithValue(ctx, runningKey{}, true))
	ctx = context.WithValue(ctx, partitionKey{}, partitionOf(c.Session))
	callTool := func(ctx context.Context, name string, args json.RawMessage) (any, error) {
		params, err := marshalCall(name, args, meta)
		if err != nil {
			return nil, err
		}
		inner := *ch.call
		inner.Params = params
		return ch.next(ctx, &inner)
	}
	return r.run(ctx, in.Script, callTool), nil
}

// marshalCall encodes the params of a tools/call of name.
func marshalCall(name string, args, meta json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	n, err := json.Marshal(name)
	if err != nil {
		return nil, err
	}
	b.Write(n)
	b.WriteString(`,"arguments":`)
	b.Write(args)
	if len(meta) > 0 && meta[0] == '{' {
		b.WriteString(`,"_meta":`)
		b.Write(meta)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// callFunc runs a tools/call of name with args (a JSON object) through
// the server's chain; it returns what the chain returns.
type callFunc func(ctx context.Context, name string, args json.RawMessage) (any, error)

// fileOptions are the Starlark dialect of scripts: top-level statements,
// while loops, sets and reassigned globals, as a model writes Python;
// recursion stays refused (a runtime error), which bounds the stack.
var fileOptions = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true}

// scriptFile is the name a script's positions carry.
const scriptFile = "script"

// run runs src in the sandbox, its tool calls made by call, and returns
// the tool result: the script's output and result, or a tool error
// saying what stopped it and where.
func (r *Runner) run(ctx context.Context, src string, call callFunc) *mcp.ContentResult {
	if len(src) > maxScriptBytes {
		return toolError(fmt.Sprintf("the script is %d bytes; at most %d are allowed", len(src), maxScriptBytes))
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	s := &session{r: r, ctx: ctx, call: call}
	thread := &starlark.Thread{Name: r.name, Print: s.print}
	// thread.Load stays nil: load statements fail, no module is reachable.
	thread.SetMaxExecutionSteps(r.maxSteps)
	stop := context.AfterFunc(ctx, func() { thread.Cancel(r.cancelReason(ctx)) })
	defer stop()
	predeclared := s.guards()
	predeclared["call"] = starlark.NewBuiltin("call", s.callBuiltin)
	predeclared["try_call"] = starlark.NewBuiltin("try_call", s.tryCallBuiltin)
	globals, err := r.execScript(ctx, thread, src, predeclared)
	if err != nil {
		return toolError(s.describe(err, thread))
	}
	if s.outErr != "" {
		return toolError(s.outErr)
	}
	res := &mcp.ContentResult{}
	if s.out.Len() > 0 {
		res.Content = append(res.Content, mcp.Text(s.out.String()))
	}
	if v, ok := globals["result"]; ok {
		b, err := toJSON(v, r.maxOut-s.out.Len())
		if err != nil {
			return toolError("result: " + err.Error())
		}
		res.Content = append(res.Content, mcp.Text(string(b)))
		res.StructuredContent = json.RawMessage(append(append([]byte(`{"result":`), b...), '}'))
	}
	if len(res.Content) == 0 {
		res.Content = []mcp.Content{mcp.Text("The script finished without printing anything or setting result.")}
	}
	return res
}

// cancelReason says why ctx, a script's context, is done.
func (r *Runner) cancelReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("the script ran longer than its time limit (%s, or the request's deadline)", r.timeout)
	}
	return "the request was cancelled"
}

// execScript runs src: its compiled form when the Runner keeps one, else
// src parsed, its operators guarded and compiled (and kept, when it is
// short). Every run's predeclared names are the same, which the compiled
// form relies on.
func (r *Runner) execScript(ctx context.Context, thread *starlark.Thread, src string, predeclared starlark.StringDict) (starlark.StringDict, error) {
	part := partitionFrom(ctx)
	keep := part.cacheable && len(src) <= maxCachedScriptBytes
	var key [sha256.Size]byte
	if keep {
		key = programKey(part, src)
		if prog, ok := r.programs.get(key); ok {
			return prog.Init(thread, predeclared)
		}
	}
	f, err := fileOptions.Parse(scriptFile, src, 0)
	if err != nil {
		return nil, err
	}
	guardOperators(f)
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return nil, err
	}
	if keep {
		r.programs.put(key, prog)
	}
	return prog.Init(thread, predeclared)
}

func toolError(msg string) *mcp.ContentResult {
	return &mcp.ContentResult{IsError: true, Content: []mcp.Content{mcp.Text(msg)}}
}

// session is the state of one script's run.
type session struct {
	r     *Runner
	ctx   context.Context
	call  callFunc
	calls int
	// allocated is what the script's values have cost (MaxAllocBytes).
	allocated int64
	out       strings.Builder
	outErr    string // why the output was cut, when it was
}

// describe turns the error a script ended with into the text the model
// reads: the message and the line, with the calls that led there.
func (s *session) describe(err error, thread *starlark.Thread) string {
	var se syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at line %d, column %d: %s", se.Pos.Line, se.Pos.Col, se.Msg)
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		msg := strings.TrimPrefix(ee.Msg, "Starlark computation cancelled: ")
		switch {
		case s.outErr != "":
			msg = s.outErr
		case msg == "too many steps":
			msg = fmt.Sprintf("the script exceeded its %d execution steps (an endless loop?)", s.r.maxSteps)
		}
		line := 0
		if n := len(ee.CallStack); n > 0 {
			// The innermost frame of the script (a builtin has no line).
			for i := n - 1; i >= 0; i-- {
				if p := ee.CallStack[i].Pos; p.Line > 0 {
					line = int(p.Line)
					break
				}
			}
		}
		if line > 0 {
			return fmt.Sprintf("error at line %d: %s\n%s", line, msg, ee.Backtrace())
		}
		return "error: " + msg
	}
	// A resolver error list, or any other.
	return "error: " + err.Error()
}

// print is the thread's print: lines go to the output, which stops the
// script when it exceeds MaxOutputBytes.
func (s *session) print(thread *starlark.Thread, msg string) {
	if s.outErr != "" {
		return
	}
	if s.out.Len()+len(msg)+1 > s.r.maxOut {
		s.outErr = fmt.Sprintf("the script printed more than %d bytes", s.r.maxOut)
		thread.Cancel(s.outErr)
		return
	}
	s.out.WriteString(msg)
	s.out.WriteByte('\n')
}

func (s *session) callBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, toolErr, err := s.callTool(thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	if toolErr != "" {
		return nil, errors.New(toolErr)
	}
	return v, nil
}

func (s *session) tryCallBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, toolErr, err := s.callTool(thread, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	d := starlark.NewDict(2)
	if toolErr != "" {
		_ = d.SetKey(starlark.String("ok"), starlark.False)
		_ = d.SetKey(starlark.String("error"), starlark.String(toolErr))
	} else {
		_ = d.SetKey(starlark.String("ok"), starlark.True)
		_ = d.SetKey(starlark.String("value"), v)
	}
	return d, nil
}

// callTool runs one tool call of the script: err ends the script (a
// limit reached, bad arguments), toolErr is the tool's own failure (or
// the server's refusal), which call raises and try_call returns.
func (s *session) callTool(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (v starlark.Value, toolErr string, err error) {
	var name string
	var argv starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name, &argv); err != nil {
		return nil, "", err
	}
	if name == s.r.name {
		return nil, "", fmt.Errorf("%s cannot call %s: a script cannot run a script", b.Name(), name)
	}
	if s.calls >= s.r.maxCalls {
		return nil, "", fmt.Errorf("the script made more than %d tool calls", s.r.maxCalls)
	}
	s.calls++
	var argJSON []byte
	switch argv.(type) {
	case starlark.NoneType:
		argJSON = []byte("{}")
	case *starlark.Dict:
		if argJSON, err = toJSON(argv, s.r.maxOut); err != nil {
			return nil, "", fmt.Errorf("%s(%q): arguments: %v", b.Name(), name, err)
		}
	default:
		return nil, "", fmt.Errorf("%s(%q): the arguments must be a dict, not %s", b.Name(), name, argv.Type())
	}
	res, err := s.call(s.ctx, name, argJSON)
	if s.ctx.Err() != nil {
		// The tool's own answer to the cancellation is not the story.
		return nil, "", fmt.Errorf("%s(%q): %s", b.Name(), name, s.r.cancelReason(s.ctx))
	}
	if err != nil {
		var je *mcp.Error
		if errors.As(err, &je) {
			return nil, fmt.Sprintf("%s: %s", name, je.Message), nil
		}
		return nil, fmt.Sprintf("%s: %v", name, err), nil
	}
	v, toolErr, err = decodeResult(name, res)
	if err == nil && v != nil {
		err = s.chargeBytes(rendered(v, s.r.maxAlloc-s.allocated, 0))
	}
	return v, toolErr, err
}

// decodeResult turns a tools/call result into the value call returns:
// the structured content, else the text of the content, or the tool's
// error text.
func decodeResult(name string, res any) (starlark.Value, string, error) {
	if r, ok := res.(*mcp.ContentResult); ok {
		// What the engine returns: read as it is, not encoded to be
		// decoded again, unless it holds what only its JSON shows.
		if v, toolErr, done, err := decodeContentResult(name, r); done {
			return v, toolErr, err
		}
	}
	b, err := resultJSON(res)
	if err != nil {
		return nil, "", fmt.Errorf("%s: reading its result: %v", name, err)
	}
	var out struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, "", fmt.Errorf("%s: reading its result: %v", name, err)
	}
	var text strings.Builder
	for _, c := range out.Content {
		if c.Type == "text" {
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(c.Text)
		}
	}
	if out.IsError {
		return nil, toolFailure(name, text.String()), nil
	}
	if len(out.StructuredContent) > 0 && string(out.StructuredContent) != "null" {
		v, err := fromJSON(out.StructuredContent)
		if err != nil {
			return nil, "", fmt.Errorf("%s: reading its structured content: %v", name, err)
		}
		return v, "", nil
	}
	return starlark.String(text.String()), "", nil
}

// resultJSON is the JSON form of a tool's result: as it is when it is
// JSON already, else encoded.
func resultJSON(res any) ([]byte, error) {
	switch r := res.(type) {
	case json.RawMessage:
		return r, nil
	case []byte:
		return r, nil
	}
	return json.Marshal(res)
}

// toolFailure is the error text of tool name whose error result says
// text.
func toolFailure(name, text string) string {
	if text == "" {
		text = "the tool failed"
	}
	return name + ": " + text
}

// itemText is the text of a text content item read in place; false when
// it is not an mcp.TextContent of valid UTF-8.
func itemText(c mcp.Content) (string, bool) {
	var t string
	switch x := c.(type) {
	case mcp.TextContent:
		t = x.Text
	case *mcp.TextContent:
		if x == nil {
			return "", false
		}
		t = x.Text
	default:
		return "", false
	}
	return t, utf8.ValidString(t)
}

// decodeContentResult is decodeResult of a *mcp.ContentResult read in
// place; done is false when a text item is not an mcp.TextContent of
// valid UTF-8 (its JSON form is what the text is then).
func decodeContentResult(name string, r *mcp.ContentResult) (v starlark.Value, toolErr string, done bool, err error) {
	var text strings.Builder
	for _, c := range r.Content {
		if c == nil || c.ContentType() != "text" {
			continue
		}
		t, ok := itemText(c)
		if !ok {
			return nil, "", false, nil
		}
		if text.Len() > 0 {
			text.WriteByte('\n')
		}
		text.WriteString(t)
	}
	if r.IsError {
		return nil, toolFailure(name, text.String()), true, nil
	}
	if r.StructuredContent != nil {
		b, raw := r.StructuredContent.(json.RawMessage)
		if !raw {
			if b, err = json.Marshal(r.StructuredContent); err != nil {
				return nil, "", true, fmt.Errorf("%s: reading its result: %v", name, err)
			}
		}
		if len(b) > 0 && string(b) != "null" {
			if v, err = fromJSON(b); err != nil {
				return nil, "", true, fmt.Errorf("%s: reading its structured content: %v", name, err)
			}
			return v, "", true, nil
		}
	}
	return starlark.String(text.String()), "", true, nil
}
