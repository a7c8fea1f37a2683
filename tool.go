package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool describes a tool. Register it with [AddTool] (typed) or
// [Server.AddRawTool] (raw JSON).
type Tool struct {
	// Name is the unique identifier clients call. Required.
	Name string
	// Title is an optional display name.
	Title string
	// Description tells the model what the tool does.
	Description string
	// InputSchema is the JSON Schema of the arguments (type object).
	// AddTool infers it from the argument type when nil.
	InputSchema *jsonschema.Schema
	// OutputSchema is the JSON Schema of structuredContent. AddTool infers
	// it when the tool returns a struct (or map) rather than content.
	OutputSchema *jsonschema.Schema
	// Annotations are behaviour hints for clients.
	Annotations *ToolAnnotations
	// Meta is sent as _meta in tools/list.
	Meta map[string]any
	// CanAccess, when set, decides per caller (its auth session data)
	// whether the tool exists: a denied tool is neither listed nor
	// callable, and a call to it reads as an unknown tool.
	CanAccess func(auth any) bool
	// Timeout bounds one execution. When it expires the tool's context is
	// cancelled and the client gets an isError result naming the tool and
	// the limit. Zero means no limit.
	Timeout time.Duration
}

// ToolAnnotations are hints about a tool's behaviour. Clients must not rely
// on them for security decisions.
type ToolAnnotations struct {
	// Title is a display name.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint: the tool does not modify its environment.
	ReadOnlyHint bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint: the tool may perform destructive updates (default
	// true when nil and the tool is not read-only).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint: calling the tool again with the same arguments has
	// no further effect.
	IdempotentHint bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint: the tool interacts with an open world of external
	// entities (default true when nil).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// MarshalJSON writes the tools/list form of the tool.
func (t Tool) MarshalJSON() ([]byte, error) {
	in := t.InputSchema
	if in == nil {
		in = &jsonschema.Schema{Type: "object"}
	}
	return json.Marshal(struct {
		Name         string             `json:"name"`
		Title        string             `json:"title,omitempty"`
		Description  string             `json:"description,omitempty"`
		InputSchema  *jsonschema.Schema `json:"inputSchema"`
		OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
		Annotations  *ToolAnnotations   `json:"annotations,omitempty"`
		Meta         map[string]any     `json:"_meta,omitempty"`
	}{t.Name, t.Title, t.Description, in, t.OutputSchema, t.Annotations, t.Meta})
}

// UnmarshalJSON reads the tools/list form of a tool.
func (t *Tool) UnmarshalJSON(data []byte) error {
	var w struct {
		Name         string             `json:"name"`
		Title        string             `json:"title"`
		Description  string             `json:"description"`
		InputSchema  *jsonschema.Schema `json:"inputSchema"`
		OutputSchema *jsonschema.Schema `json:"outputSchema"`
		Annotations  *ToolAnnotations   `json:"annotations"`
		Meta         map[string]any     `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Tool{Name: w.Name, Title: w.Title, Description: w.Description, InputSchema: w.InputSchema,
		OutputSchema: w.OutputSchema, Annotations: w.Annotations, Meta: w.Meta}
	return nil
}

// ToolFunc is the body of a typed tool. It receives the request's context
// (cancelled when the client cancels, the connection drops or the tool's
// Timeout expires), the MCP [Context] and the decoded, validated arguments.
//
// What it returns decides the result: a string is one text item; a
// [Content] is one item; a []Content is the list; a *[ContentResult] (or
// ContentResult) is sent as is; any other type is structured output: the
// value becomes structuredContent (its JSON also the text), and the tool's
// output schema is inferred from Out. An error becomes an isError result
// (see [UserError]); an *[Error] becomes a JSON-RPC error.
type ToolFunc[In, Out any] func(ctx context.Context, c *Context, in In) (Out, error)

// RawToolFunc is the body of a raw tool: it gets the arguments as JSON,
// already validated against the tool's InputSchema.
type RawToolFunc func(ctx context.Context, c *Context, args json.RawMessage) (*ContentResult, error)

type outKind int

const (
	outStructured outKind = iota
	outString
	outContent
	outContents
	outResult
	outResultValue
	outDynamic
)

var (
	contentType    = reflect.TypeFor[Content]()
	contentsType   = reflect.TypeFor[[]Content]()
	resultPtrType  = reflect.TypeFor[*ContentResult]()
	resultType     = reflect.TypeFor[ContentResult]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	errToolTimeout = errors.New("tool timeout")
)

func classifyOut(t reflect.Type) outKind {
	switch {
	case t.Kind() == reflect.String:
		return outString
	case t == resultPtrType:
		return outResult
	case t == resultType:
		return outResultValue
	case t == contentsType:
		return outContents
	case t.Kind() == reflect.Interface:
		return outDynamic
	case t.Implements(contentType):
		return outContent
	}
	return outStructured
}

// AddTool registers a typed tool. The input schema is inferred from In (a
// struct: `json` tags name the arguments, `jsonschema:"…"` tags describe
// them, `enum:"a,b"` and `default:"…"` tags constrain them, fields without
// omitempty are required) unless t.InputSchema is set. Arguments are
// validated against the schema and defaults applied before fn runs, so fn
// only sees valid input. It panics on a duplicate name, an empty name or a
// type that has no JSON Schema.
func AddTool[In, Out any](s *Server, t Tool, fn ToolFunc[In, Out]) {
	if t.InputSchema == nil {
		sch, err := inferSchema(reflect.TypeFor[In]())
		if err != nil {
			panic(fmt.Sprintf("mcp: AddTool %q: input type %v: %v", t.Name, reflect.TypeFor[In](), err))
		}
		t.InputSchema = sch
	}
	kind := classifyOut(reflect.TypeFor[Out]())
	if kind == outStructured && t.OutputSchema == nil {
		sch, err := inferSchema(reflect.TypeFor[Out]())
		if err != nil {
			panic(fmt.Sprintf("mcp: AddTool %q: output type %v: %v", t.Name, reflect.TypeFor[Out](), err))
		}
		if sch.Type == "object" {
			t.OutputSchema = sch
		}
	}
	isRaw := reflect.TypeFor[In]() == rawMessageType
	s.addTool(t, func(ctx context.Context, c *Context, args json.RawMessage) (*ContentResult, error) {
		var in In
		if isRaw {
			*any(&in).(*json.RawMessage) = args
		} else if err := json.Unmarshal(args, &in); err != nil {
			return nil, &argError{msg: err.Error()}
		}
		out, err := fn(ctx, c, in)
		if err != nil {
			return nil, err
		}
		return toResult(any(out), kind)
	})
}

// AddRawTool registers a tool whose arguments reach fn as raw JSON, for
// tools defined at run time. t.InputSchema (nil: any object) is resolved
// now and enforced on every call. It panics like [AddTool].
func (s *Server) AddRawTool(t Tool, fn RawToolFunc) {
	if t.InputSchema == nil {
		t.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	s.addTool(t, func(ctx context.Context, c *Context, args json.RawMessage) (*ContentResult, error) {
		return fn(ctx, c, args)
	})
}

// argError is a failure to decode validated arguments into the Go type.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func toResult(out any, kind outKind) (*ContentResult, error) {
	switch kind {
	case outString:
		return &ContentResult{Content: []Content{TextContent{Text: reflect.ValueOf(out).String()}}}, nil
	case outResult:
		r := out.(*ContentResult)
		if r == nil {
			return &ContentResult{}, nil
		}
		return r, nil
	case outResultValue:
		r := out.(ContentResult)
		return &r, nil
	case outContents:
		return &ContentResult{Content: out.([]Content)}, nil
	case outContent:
		return &ContentResult{Content: []Content{out.(Content)}}, nil
	case outDynamic:
		switch v := out.(type) {
		case nil:
			return &ContentResult{}, nil
		case string:
			return toResult(v, outString)
		case *ContentResult, ContentResult, []Content:
			return toResult(v, classifyOut(reflect.TypeOf(v)))
		case Content:
			return toResult(v, outContent)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return &ContentResult{Content: []Content{TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

type toolEntry struct {
	tool        Tool
	resolved    *jsonschema.Resolved
	flat        *flatSchema // a reflection-free validator, when the schema allows
	hasDefaults bool
	run         RawToolFunc
}

func (s *Server) addTool(t Tool, run RawToolFunc) {
	if t.Name == "" {
		panic("mcp: AddTool: Tool.Name is required")
	}
	if t.InputSchema.Type != "object" {
		panic(fmt.Sprintf("mcp: AddTool %q: the input schema must have type \"object\", not %q", t.Name, t.InputSchema.Type))
	}
	res, err := t.InputSchema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcp: AddTool %q: input schema: %v", t.Name, err))
	}
	e := &toolEntry{tool: t, resolved: res, flat: compileFlat(t.InputSchema), hasDefaults: schemaHasDefaults(t.InputSchema), run: run}
	s.update(Change{Kind: ToolsChanged}, func(r *registry) error {
		if _, dup := r.toolByName[t.Name]; dup {
			return fmt.Errorf("mcp: AddTool: a tool named %q is already registered", t.Name)
		}
		r.tools = append(r.tools, e)
		r.toolByName[t.Name] = e
		return nil
	})
}

// RemoveTools removes the named tools; unknown names are ignored. Clients
// are sent notifications/tools/list_changed.
func (s *Server) RemoveTools(names ...string) {
	s.update(Change{Kind: ToolsChanged}, func(r *registry) error {
		for _, n := range names {
			if e, ok := r.toolByName[n]; ok {
				delete(r.toolByName, n)
				r.tools = removeEntry(r.tools, e)
			}
		}
		return nil
	})
}

func removeEntry[E comparable](s []E, e E) []E {
	out := s[:0:0]
	for _, x := range s {
		if x != e {
			out = append(out, x)
		}
	}
	return out
}

func allowed(check func(any) bool, auth any) bool { return check == nil || check(auth) }

// ListTools returns the tools visible to a caller with the given auth data
// (and the access policy in ctx), in registration order.
func (s *Server) ListTools(ctx context.Context, auth any) []Tool {
	r := s.reg.Load()
	out := make([]Tool, 0, len(r.tools))
	for _, e := range r.tools {
		if allowed(e.tool.CanAccess, auth) && policyAllows(ctx, auth, KindTool, e.tool.Name) {
			out = append(out, e.tool)
		}
	}
	return out
}

// CallTool runs the named tool for the caller described by c. Failures of
// the tool itself (an error, a panic, a timeout, invalid arguments) are an
// isError result; an unknown or hidden tool is an *[Error] with
// [CodeInvalidParams].
func (s *Server) CallTool(ctx context.Context, c *Context, name string, args json.RawMessage) (*ContentResult, error) {
	e, ok := s.reg.Load().toolByName[name]
	if !ok || !allowed(e.tool.CanAccess, c.Session) || !policyAllows(ctx, c.Session, KindTool, name) {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown tool: %q", name)}
	}
	args, err := e.prepare(args)
	if err != nil {
		return errorResult(fmt.Sprintf("Invalid arguments for tool %q: %s", name, err)), nil
	}
	c.toolName = name
	var res *ContentResult
	if e.tool.Timeout > 0 {
		res, err = s.runWithTimeout(ctx, c, e, args)
	} else {
		res, err = s.run(ctx, c, e, args)
	}
	if err == nil {
		return res, nil
	}
	var ue *UserError
	var je *Error
	var ae *argError
	switch {
	case errors.As(err, &ue):
		r := errorResult(ue.Message)
		if ue.Extras != nil {
			r.StructuredContent = ue.Extras
		}
		return r, nil
	case errors.As(err, &je):
		return nil, je
	case errors.As(err, &ae):
		return errorResult(fmt.Sprintf("Invalid arguments for tool %q: %s", name, ae.msg)), nil
	case errors.Is(err, errToolTimeout):
		return errorResult(fmt.Sprintf("Tool %q timed out after %v. Consider raising its Timeout or making it faster.", name, e.tool.Timeout)), nil
	case errors.Is(err, errPanic):
		return errorResult(fmt.Sprintf("Tool %q failed with an internal error (see the server log).", name)), nil
	}
	return errorResult(fmt.Sprintf("Tool %q failed: %v", name, err)), nil
}

func errorResult(msg string) *ContentResult {
	return &ContentResult{Content: []Content{TextContent{Text: msg}}, IsError: true}
}

var errPanic = errors.New("tool panicked")

func (s *Server) run(ctx context.Context, c *Context, e *toolEntry, args json.RawMessage) (res *ContentResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("tool panicked", "tool", e.tool.Name, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, errPanic
		}
	}()
	return e.run(ctx, c, args)
}

func (s *Server) runWithTimeout(ctx context.Context, c *Context, e *toolEntry, args json.RawMessage) (*ContentResult, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, e.tool.Timeout, errToolTimeout)
	defer cancel()
	c.ctx = tctx
	type outcome struct {
		res *ContentResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := s.run(tctx, c, e, args)
		done <- outcome{r, err}
	}()
	select {
	case o := <-done:
		if o.err != nil && errors.Is(context.Cause(tctx), errToolTimeout) && ctx.Err() == nil {
			return nil, errToolTimeout
		}
		return o.res, o.err
	case <-tctx.Done():
		if errors.Is(context.Cause(tctx), errToolTimeout) && ctx.Err() == nil {
			return nil, errToolTimeout
		}
		return nil, context.Cause(ctx)
	}
}

// prepare validates args against the input schema and applies defaults.
// It returns the arguments to decode (re-encoded when defaults were added).
func (e *toolEntry) prepare(args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(v))
	}
	if e.hasDefaults {
		if err := e.resolved.ApplyDefaults(&m); err != nil {
			return nil, err
		}
	}
	var err error
	if e.flat != nil {
		err = e.flat.validate(m)
	} else {
		err = e.resolved.Validate(m)
	}
	if err != nil {
		return nil, errors.New(describeValidation(err))
	}
	if e.hasDefaults {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return args, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// describeValidation turns a jsonschema validation error chain
// ("validating root: validating /properties/a: type: …") into
// `argument "a": type: …`, which names the argument and the constraint.
func describeValidation(err error) string {
	msg := err.Error()
	var path string
	for {
		const p = "validating "
		i := strings.Index(msg, p)
		if i != 0 {
			break
		}
		rest := msg[len(p):]
		j := strings.Index(rest, ": ")
		if j < 0 {
			break
		}
		if seg := rest[:j]; seg != "root" {
			path = seg
		}
		msg = rest[j+2:]
	}
	if path == "" {
		return msg
	}
	arg := strings.TrimPrefix(strings.ReplaceAll(path, "/properties/", "."), ".")
	arg = strings.ReplaceAll(arg, "/items/", "[]")
	return fmt.Sprintf("argument %q: %s", arg, msg)
}
