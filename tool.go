package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/argschema"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/schemajson"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/internal/toolname"
)

// Tool describes a tool. Register it with [AddTool] (typed) or
// [Server.AddRawTool] (raw JSON).
type Tool struct {
	// Name is the unique identifier clients call. Required: 1 to 128
	// characters of A-Z, a-z, 0-9, _, - and . (the 2025-11-25 rule);
	// [TryAddTool] reports another name as [ErrInvalidToolName].
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
	// Icons are images a client may show for the tool (see [Icon]).
	Icons []Icon
	// CanAccess, when set, decides per request (its context and the
	// caller's auth data) whether the tool exists: a denied tool is neither
	// listed nor callable, and a call to it reads as an unknown tool.
	CanAccess access.Check
	// Timeout bounds one execution; zero means no limit. It is a deadline
	// on the tool's context: when it passes, ctx is cancelled (its cause
	// says the tool timed out) and the client at once gets an isError
	// result naming the tool and the limit. A tool that ignores its
	// context is not stopped (Go cannot stop a goroutine): it runs on in
	// the background until it returns, and then its result is dropped, as
	// is anything it sends through its [Context] after the limit. So a tool
	// with a Timeout should return soon after ctx.Done() closes.
	Timeout time.Duration
	// Task, when set, lets the tool run as a task (the tasks extension of
	// revision 2026-07-28): see [TaskOptions]. Nil: always an ordinary call.
	Task *TaskOptions
	// Tags group tools for [Registry.Disable] and [Registry.Enable] (and
	// their per-session forms) and for an [access.Policy]. They are
	// the server's own: tools/list does not send them.
	Tags []string
	// UI, when set, links the tool to the view of an MCP App (see
	// [apps.ToolUI]); it goes out as _meta.ui.
	UI *apps.ToolUI
	// Version, when set, makes this definition one version of the tool:
	// several may be registered under one Name, each with its own Version
	// (1 to 64 letters, digits, '.', '-', '+' and '_'; ordered by
	// [CompareVersions]), and a name is versioned in all its registrations
	// or in none. A caller gets the newest version its CanAccess and the
	// request's filters ([WithVersionFilter]) admit, or the one a call
	// asks for with params._meta "mcpchain/version"; tools/list shows that
	// version with _meta "mcpchain/version" and the caller's choice in
	// "mcpchain/versions", newest first. The versions share one Task and
	// one UI, and their Tags select them together.
	Version string
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

// toolWire is the tools/list form of a tool, both ways.
type toolWire struct {
	Name         string             `json:"name"`
	Title        string             `json:"title,omitempty"`
	Description  string             `json:"description,omitempty"`
	InputSchema  *jsonschema.Schema `json:"inputSchema"`
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations   `json:"annotations,omitempty"`
	Icons        []Icon             `json:"icons,omitempty"`
	Meta         map[string]any     `json:"_meta,omitempty"`
	// Execution is read, never written here: tools/list adds it at
	// 2025-11-25 (task_wire.go).
	Execution *toolExecution `json:"execution,omitempty"`
}

// MarshalJSON writes the tools/list form of the tool.
func (t Tool) MarshalJSON() ([]byte, error) {
	in := t.InputSchema
	if in == nil {
		in = &jsonschema.Schema{Type: "object"}
	}
	// The schemas are written by schemajson, which encodes a deep schema in
	// one pass where jsonschema-go's own MarshalJSON costs its size times
	// its depth (the tools of a large OpenAPI document).
	inJSON, err := schemajson.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	var outJSON json.RawMessage
	if t.OutputSchema != nil {
		if outJSON, err = schemajson.Marshal(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", t.Name, err)
		}
	}
	return json.Marshal(toolWireOut{t.Name, t.Title, t.Description, inJSON, outJSON, t.Annotations, t.Icons, t.Meta})
}

// toolWireOut is toolWire as MarshalJSON writes it, its schemas encoded.
type toolWireOut struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
}

// UnmarshalJSON reads the tools/list form of a tool.
func (t *Tool) UnmarshalJSON(data []byte) error {
	var w toolWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Tool{Name: w.Name, Title: w.Title, Description: w.Description, InputSchema: w.InputSchema,
		OutputSchema: w.OutputSchema, Annotations: w.Annotations, Icons: w.Icons, Meta: w.Meta, Task: w.Execution.task()}
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
// them, `enum:"a,b"`, `default:"…"` and `mcp:"minimum=1,maxLength=80"`
// tags constrain them, fields without omitempty are required: present and
// not null) unless t.InputSchema is set. The mcp tag takes minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength,
// pattern (last: it takes the rest of the tag), format, minItems, maxItems
// and uniqueItems. Arguments are validated against the schema and defaults
// applied before fn runs, so fn only sees valid input. It panics when the
// name breaks the tool-name rule ([ErrInvalidToolName]) or is taken, when
// a tag is bad (an unknown keyword, a keyword on the wrong kind of field,
// a pattern that does not compile), or when a type cannot work (a field
// with no JSON form, such as a chan, or an argument of an interface type
// with methods): at start-up these are programmer errors. Tools
// made at run time use [TryAddTool], which returns the error instead.
func AddTool[In, Out any](s *Server, t Tool, fn ToolFunc[In, Out]) {
	must("AddTool", tryAddTool(s, "", t, fn))
}

// TryAddTool is [AddTool] for tools made while the server runs, registered
// in r: the server's registry ([Server.Registry]) or one session's
// ([Server.SessionRegistry]), where it shadows the server's tool of the
// same name. Instead of panicking it returns an error wrapping
// [ErrInvalidToolName], [ErrAlreadyRegistered], [ErrInvalidDefinition] or,
// for a session not live here, [ErrNoSession], and registers nothing. It
// is a function, not a method of [Registry], because a Go method cannot
// have type parameters.
func TryAddTool[In, Out any](r *Registry, t Tool, fn ToolFunc[In, Out]) error {
	if err := r.check(); err != nil {
		return err
	}
	return tryAddTool(r.s, r.sid, t, fn)
}

// tryAddTool is [TryAddTool] for the server (sid "") or for one session.
func tryAddTool[In, Out any](s *Server, sid string, t Tool, fn ToolFunc[In, Out]) error {
	t, run, err := typedTool(t, fn)
	if err != nil {
		return err
	}
	e, err := newToolEntry(t, run)
	if err != nil {
		return err
	}
	if in := reflect.TypeFor[In](); in != rawMessageType {
		e.inType = in // for guards (toolguard.go)
	}
	return s.addEntry(sid, e)
}

// typedTool returns t with its inferred schemas and the RawToolFunc that
// decodes a call's arguments into In and runs fn.
func typedTool[In, Out any](t Tool, fn ToolFunc[In, Out]) (Tool, RawToolFunc, error) {
	if fn == nil {
		return t, nil, invalid("tool %q: the tool function is nil", t.Name)
	}
	inferred := t.InputSchema == nil
	if inferred {
		sch, err := inferToolSchema(reflect.TypeFor[In](), true)
		if err != nil {
			return t, nil, invalid("tool %q: input type %v: %v", t.Name, reflect.TypeFor[In](), err)
		}
		t.InputSchema = sch
	}
	kind := classifyOut(reflect.TypeFor[Out]())
	if kind == outStructured && t.OutputSchema == nil {
		sch, err := inferToolSchema(reflect.TypeFor[Out](), false)
		if err != nil {
			return t, nil, invalid("tool %q: output type %v: %v", t.Name, reflect.TypeFor[Out](), err)
		}
		if sch.Type == "object" {
			t.OutputSchema = sch
		}
	}
	isRaw := reflect.TypeFor[In]() == rawMessageType
	// With a schema of its own the struct's fields may differ from the
	// schema's properties: decode strictly, so {"Query": …} never fills
	// the field "query" (an inferred schema has the fields' names, and
	// prepare already refused case variants of them).
	strict := !inferred
	name := t.Name
	var flat *flatDecoder
	if !isRaw {
		flat = newFlatDecoder(reflect.TypeFor[In]())
	}
	return t, func(ctx context.Context, c *Context, args json.RawMessage) (*ContentResult, error) {
		var in In
		switch {
		case isRaw:
			*any(&in).(*json.RawMessage) = args
		case flat != nil && flat.decode(args, reflect.ValueOf(&in).Elem()):
			// Decoded from the bytes, as encoding/json would have.
		default:
			in = *new(In) // what decode may have filled
			if err := decodeToolArgs(name, args, &in, strict); err != nil {
				return nil, err
			}
		}
		out, err := fn(ctx, c, in)
		if err != nil {
			return nil, err
		}
		return toResult(any(out), kind)
	}, nil
}

// decodeToolArgs decodes the arguments of a call of tool name into in
// with encoding/json, or strictly (member names case-sensitive) when
// strict. The error's message may name a map key of the client's: it is
// clipped.
func decodeToolArgs(name string, args json.RawMessage, in any, strict bool) error {
	if !strict {
		if err := json.Unmarshal(args, in); err != nil {
			return &argError{msg: strictjson.Clip(err.Error(), 4*strictjson.MaxQuoted)}
		}
		return nil
	}
	var ce *strictjson.CaseError
	if err := strictjson.Unmarshal(args, in); errors.As(err, &ce) {
		return caseVariantError(name, ce.Name, ce.Want)
	} else if err != nil {
		return &argError{msg: strictjson.Clip(err.Error(), 4*strictjson.MaxQuoted)}
	}
	return nil
}

// inferToolSchema checks that typ can be a tool's input (or output) type
// and infers its schema.
func inferToolSchema(typ reflect.Type, input bool) (*jsonschema.Schema, error) {
	if err := argschema.CheckType(typ, input); err != nil {
		return nil, err
	}
	return inferSchema(typ)
}

// AddRawTool registers a tool whose arguments reach fn as raw JSON.
// t.InputSchema (nil: any object) is resolved now and enforced on every
// call. It panics like [AddTool]; tools defined at run time (from a
// configuration, a remote catalogue) should use [Registry.AddRawTool].
func (s *Server) AddRawTool(t Tool, fn RawToolFunc) {
	must("AddRawTool", s.tryAddRawTool(t, fn))
}

// tryAddRawTool is [Server.AddRawTool] returning the error
// ([Registry.AddRawTool]).
func (s *Server) tryAddRawTool(t Tool, fn RawToolFunc) error {
	if fn == nil {
		return invalid("tool %q: the tool function is nil", t.Name)
	}
	if t.InputSchema == nil {
		t.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	return s.addTool(t, fn)
}

// argError is a failure to decode validated arguments into the Go type.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func toResult(out any, kind outKind) (*ContentResult, error) {
	switch kind {
	case outString:
		// The result and its one-item list in one allocation: the hot
		// path of every tool that returns text.
		r := &struct {
			res   ContentResult
			items [1]Content
		}{}
		r.items[0] = TextContent{Text: reflect.ValueOf(out).String()}
		r.res.Content = r.items[:]
		return &r.res, nil
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
	entryBase
	tool        Tool
	resolved    *jsonschema.Resolved
	flat        *flatSchema // a reflection-free validator, when the schema allows
	hasDefaults bool
	run         RawToolFunc
	inType      reflect.Type // the typed input of AddTool, for guards; nil for a raw tool
	// inNames maps an argument's name to its name in inType where they
	// differ: the arguments a transform renamed (transform.go).
	inNames map[string]string
	// guardedBy are the servers, other than the one holding the entry,
	// whose guards run for its calls: those it was imported from,
	// nearest first (compose.go), so that an import keeps them.
	guardedBy []*Server
	// encoded is the tool as tools/list sends it, encoded once at
	// registration: a list of 10,000 tools is not 10,000 schema
	// encodings per call.
	encoded json.RawMessage
	// vs are the versions registered under the name of a tool with a
	// Version; shown, the versions encoded lists; perCaller marks a copy
	// made for one caller, which no cache may keep (versions.go).
	vs        *toolVersions
	shown     []string
	perCaller bool
	// versionTags are a version's own tags (with those of the imports
	// that copied it), where entryBase.tags holds those of every version
	// of its name for the Disable and Enable rules; what a caller who
	// gets this version is shown (groupTags).
	versionTags []string
	// nsPath are the prefixes of the imports that copied the tool here,
	// outermost first: its namespaces (catalog.go).
	nsPath []string
}

// groupTags are the tags e is shown with to a caller who gets it: a
// version's own, not those its name's other versions lend it for rules
// (a version the caller may not use stays unseen, its tags too).
func (e *toolEntry) groupTags() []string {
	if e.vs != nil {
		return e.versionTags
	}
	return e.tags
}

func (s *Server) addTool(t Tool, run RawToolFunc) error { return s.addToolFor("", t, run) }

// addToolFor registers a tool for the server (sid "") or for one session.
func (s *Server) addToolFor(sid string, t Tool, run RawToolFunc) error {
	e, err := newToolEntry(t, run)
	if err != nil {
		return err
	}
	return s.addEntry(sid, e)
}

// addEntry registers e, made by newToolEntry, for the server (sid "") or
// for one session.
func (s *Server) addEntry(sid string, e *toolEntry) error {
	t := &e.tool
	if sid != "" {
		if t.UI != nil {
			if err := s.reg.Load().checkAppLink(t); err != nil {
				return err
			}
		}
		return s.updateSession(sid, func(o *overlay) ([]engine.ChangeKind, error) {
			return []engine.ChangeKind{engine.ToolsChanged}, addToolEntry(&o.tools, e, "session tool")
		})
	}
	return s.update(change{Kind: engine.ToolsChanged}, func(r *registry) error {
		if t.UI != nil {
			if err := r.checkAppLink(t); err != nil {
				return err
			}
		}
		return addToolEntry(&r.tools, e, "tool")
	})
}

// newToolEntry checks t and compiles what its calls need.
func newToolEntry(t Tool, run RawToolFunc) (*toolEntry, error) {
	switch {
	case t.Name == "":
		return nil, fmt.Errorf("Tool.Name is required: %w", ErrInvalidToolName)
	case !toolname.Valid(t.Name):
		return nil, fmt.Errorf("tool %q: %w", t.Name, ErrInvalidToolName)
	case t.InputSchema.Type != "object":
		return nil, invalid("tool %q: the input schema must have type \"object\", not %q", t.Name, t.InputSchema.Type)
	}
	if t.Version != "" {
		if err := checkVersion(t.Version); err != nil {
			return nil, invalid("tool %q: %v", t.Name, err)
		}
	}
	res, err := t.InputSchema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, invalid("tool %q: input schema: %v", t.Name, err)
	}
	if err := checkIcons("Tool.", t.Icons); err != nil {
		return nil, invalid("tool %q: %v", t.Name, err)
	}
	if t.UI != nil {
		if err := t.linkUI(); err != nil { // apps.go
			return nil, invalid("tool %q: %v", t.Name, err)
		}
	}
	enc, err := t.MarshalJSON() // compact already: json.Marshal would copy it again
	if err != nil {
		return nil, invalid("tool %q: encoding the definition: %v", t.Name, err)
	}
	return &toolEntry{entryBase: entryBase{key: t.Name, kind: access.KindTool, canAccess: t.CanAccess, tags: slices.Clone(t.Tags), appOnly: appOnly(t.UI)},
		tool: t, resolved: res, flat: compileFlat(t.InputSchema), hasDefaults: argschema.HasDefaults(t.InputSchema), run: run,
		encoded: enc}, nil
}

// removeTools removes the named tools; unknown names are ignored. Clients
// are sent notifications/tools/list_changed.
func (s *Server) removeTools(names []string) {
	_ = s.update(change{Kind: engine.ToolsChanged}, func(r *registry) error { r.tools.remove(names); return nil })
}

// ListTools returns the tools visible to the caller (its request context
// and auth data), in registration order, then those of the servers
// mounted in s ([Server.Mount]) under their prefixed names. Called with the context a tool
// got, it is the list of that tool's session (its own tools included).
func (s *Server) ListTools(ctx context.Context, auth any) []Tool {
	return listAll(s, ctx, auth, sessionIDOf(ctx), toolOps, func(e *toolEntry) Tool { return e.tool }, mountedTool, nil)
}

// listToolsJSON is [Server.ListTools] as JSON, each tool encoded once when
// it was registered (the definition must not change afterwards, as for
// the validation compiled then): what tools/list sends. The caller must not
// modify the returned bytes.
func (s *Server) listToolsJSON(ctx context.Context, auth any, sid string, pc *bool) []json.RawMessage {
	return listAll(s, ctx, auth, sid, toolOps, func(e *toolEntry) json.RawMessage { return e.encoded }, mountedToolJSON, pc)
}

// callTool runs the named tool for the caller described by c. Failures of
// the tool itself (an error, a panic, a timeout, invalid arguments) are an
// isError result; an unknown or hidden tool is an *[Error] with
// [CodeInvalidParams].
func (s *Server) callTool(ctx context.Context, c *Context, name string, args json.RawMessage) (*ContentResult, error) {
	if c.guardTop == nil {
		c.guardTop = s
	}
	var e *toolEntry
	var ok bool
	if !s.vis.active.Load() {
		e, ok = s.reg.Load().tools.lookup(ctx, c.Session, c.SessionID, name)
	} else {
		if s.vis.callerRules {
			if _, err := s.checkCallerRules(ctx, c.Session); err != nil {
				return nil, err
			}
		}
		e, ok = find(s, ctx, c.Session, c.SessionID, name, s.reg.Load().tools, ownTools)
	}
	if !ok || e.appOnly && c.withoutApps() {
		if s.hasMounts() {
			return s.callMountedTool(ctx, c, name, args) // compose.go
		}
		return nil, &Error{Code: CodeInvalidParams, Message: "Unknown tool: " + strictjson.Quote(name)}
	}
	return s.callEntry(ctx, c, name, e, args)
}

// callEntry runs the tool e, of s, called by the name the client used.
func (s *Server) callEntry(ctx context.Context, c *Context, name string, e *toolEntry, args json.RawMessage) (*ContentResult, error) {
	if e.vs != nil {
		var err error
		if e, err = chooseVersion(ctx, c, name, e); err != nil { // versions.go
			return nil, err
		}
	}
	if e.tool.Task != nil && e.tool.Task.Required {
		if err := refuseUntasked(ctx, c, name); err != nil { // task_wire.go
			return nil, err
		}
	}
	args, err := e.prepare(args)
	if err != nil {
		return invalidArguments(name, err)
	}
	c.toolName = name
	run := func() (*ContentResult, error) { return s.runTool(ctx, c, e, args) }
	if s.guarded(ctx, c, e) {
		call := &GuardedCall{Name: name, Tool: &e.tool, Arguments: args, InputType: e.inType, InputNames: e.inNames}
		run = func() (*ContentResult, error) {
			if err := s.guard(ctx, c, call, e.guardedBy); err != nil {
				return nil, err
			}
			return s.runTool(ctx, c, e, args)
		}
	}
	res, err := run()
	if err == nil {
		return res, nil
	}
	res, done, err := c.urlElicitationRequired(ctx, name, err, run)
	if done {
		return res, err
	}
	return toolFailure(name, e, err)
}

// toolFailure maps a tool's error to its result or protocol error.
func toolFailure(name string, e *toolEntry, err error) (*ContentResult, error) {
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

// invalidArguments is callTool's answer to arguments prepare refused.
func invalidArguments(name string, err error) (*ContentResult, error) {
	if je := (*Error)(nil); errors.As(err, &je) {
		return nil, je
	}
	return errorResult(fmt.Sprintf("Invalid arguments for tool %q: %s", name, err)), nil
}

func errorResult(msg string) *ContentResult {
	return &ContentResult{Content: []Content{TextContent{Text: msg}}, IsError: true}
}

// runTool runs the tool, under its Timeout when it has one.
func (s *Server) runTool(ctx context.Context, c *Context, e *toolEntry, args json.RawMessage) (*ContentResult, error) {
	if e.tool.Timeout <= 0 {
		return protect(s, "tool", e.tool.Name, func() (*ContentResult, error) { return e.run(ctx, c, args) })
	}
	return s.runToolTimeout(ctx, c, e, args)
}

// runToolTimeout runs a tool that has a Timeout in a goroutine of its own,
// so that the client gets its answer at the limit even when the tool
// ignores its context.
func (s *Server) runToolTimeout(ctx context.Context, c *Context, e *toolEntry, args json.RawMessage) (*ContentResult, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, e.tool.Timeout, errToolTimeout)
	defer cancel()
	c.ctx = tctx
	type outcome struct {
		res *ContentResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := protect(s, "tool", e.tool.Name, func() (*ContentResult, error) { return e.run(tctx, c, args) })
		done <- outcome{r, err}
	}()
	timedOut := func() bool { return errors.Is(context.Cause(tctx), errToolTimeout) && ctx.Err() == nil }
	select {
	case o := <-done:
		if o.err != nil && timedOut() {
			return nil, errToolTimeout
		}
		return o.res, o.err
	case <-tctx.Done():
		if timedOut() {
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
	if e.flat != nil && !e.hasDefaults && e.flat.validRaw(args) {
		// The common case: flat arguments that surely pass, read from
		// the bytes; the tool's own decode is then the only one.
		return args, nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(v))
	}
	if path, want := caseVariant(e.tool.InputSchema, m, 0); path != "" {
		return nil, caseVariantError(e.tool.Name, path, want)
	}
	// null for an optional argument is the argument left out (nullargs.go).
	if drop, path := optionalNulls(e.tool.InputSchema, m, 0); path != "" {
		return nil, &requiredNullError{path: path}
	} else if drop {
		args = withoutOptionalNulls(e.tool.InputSchema, args, 0)
		m = nil
		if err := json.Unmarshal(args, &m); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
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
		// The message may quote the client's argument names and values:
		// names are quoted capped, and the whole is cut at 1 KiB.
		return nil, errors.New(strictjson.Clip(describeValidation(err), 8*strictjson.MaxQuoted))
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

// inferSchema infers the schema of a tool's arguments or result type t.
func inferSchema(t reflect.Type) (*jsonschema.Schema, error) {
	return argschema.Infer(t)
}

// describeValidation words a validation error of a tool's arguments.
func describeValidation(err error) string { return argschema.DescribeValidation(err) }
