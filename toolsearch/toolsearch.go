package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/internal/toolname"
)

// The defaults of [Options].
const (
	// DefaultSearchTool is the name of the search tool.
	DefaultSearchTool = "search_tools"
	// DefaultCallTool is the name of the call tool.
	DefaultCallTool = "call_tool"
)

const (
	// defaultResults is the number of tools a search returns when the
	// caller gives no limit, and maxResults the most it may ask for.
	defaultResults = 5
	maxResults     = 50
	// maxQueryBytes bounds a query; maxQueryTerms bounds the distinct
	// terms of one that are looked up.
	maxQueryBytes = 1000
	maxQueryTerms = 32
)

// Options configure a [Search]. The zero value is usable.
type Options struct {
	// Pinned are the names of tools listed as they are beside the search
	// and call tools, for tools a model needs at once (a help or status
	// tool, a code-mode tool). Search does not return them. A name no
	// tool has is ignored.
	Pinned []string
	// MaxResults is the most tools one search returns (the caller's limit
	// argument may ask for fewer). Default 5; at most 50.
	MaxResults int
	// SearchTool and CallTool name the two tools (defaults
	// [DefaultSearchTool] and [DefaultCallTool]), for a server that has
	// tools of those names already.
	SearchTool, CallTool string
}

// Search is tool search installed on a server (see the package
// documentation). Its [Search.Middleware] must wrap the handler that
// serves the server.
type Search struct {
	srv        *mcp.Server
	searchName string
	callName   string
	limit      int
	surface    map[string]bool // listed: pinned, search and call tools
	idx        *index
}

// New registers the search and call tools on srv and returns the Search
// whose Middleware hides the rest of the catalog from tools/list. It
// fails, registering nothing, for a bad option, or when srv already has a
// tool named as the search or call tool (an error wrapping
// mcp.ErrAlreadyRegistered).
func New(srv *mcp.Server, opts *Options) (*Search, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Search{srv: srv, searchName: cmpOr(o.SearchTool, DefaultSearchTool), callName: cmpOr(o.CallTool, DefaultCallTool),
		limit: o.MaxResults, idx: newIndex()}
	switch {
	case s.limit == 0:
		s.limit = defaultResults
	case s.limit < 0 || s.limit > maxResults:
		return nil, fmt.Errorf("toolsearch: MaxResults %d is not between 1 and %d", o.MaxResults, maxResults)
	}
	if s.searchName == s.callName {
		return nil, fmt.Errorf("toolsearch: the search and call tools are both named %q", s.searchName)
	}
	s.surface = map[string]bool{s.searchName: true, s.callName: true}
	for _, p := range o.Pinned {
		if !toolname.Valid(p) {
			return nil, fmt.Errorf("toolsearch: pinned tool %q: %w", p, mcp.ErrInvalidToolName)
		}
		s.surface[p] = true
	}
	if err := mcp.TryAddTool(srv.Registry(), s.searchToolDef(), s.search); err != nil {
		return nil, fmt.Errorf("toolsearch: the search tool: %w", err)
	}
	if err := mcp.TryAddTool(srv.Registry(), s.callToolDef(), s.callFallback); err != nil {
		srv.Registry().Remove(access.KindTool, s.searchName)
		return nil, fmt.Errorf("toolsearch: the call tool: %w", err)
	}
	return s, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Middleware installs the Search's interceptor on every request through
// next (mcp.WithInterceptor), on every transport mcphttp serves. Put it
// first (outermost) in a chain of middleware that install interceptors
// (telemetry, rate limits), so that theirs see the tool a call_tool call
// runs under its own name.
func (s *Search) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), s.intercept)))
	})
}

// intercept is the mcp.Interceptor: tools/list answers the surface, a
// call of the call tool becomes a call of the tool it names.
func (s *Search) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		switch c.Method {
		case "tools/list":
			if c.ID != nil {
				return s.list(ctx, c, next)
			}
		case "tools/call":
			// A name spelled with escapes is decoded too.
			if bytes.Contains(c.Params, []byte(s.callName)) || bytes.Contains(c.Params, []byte(`\u`)) {
				return s.call(ctx, c, next)
			}
		}
		return next(ctx, c)
	}
}

// maxPages bounds the pages of the engine's tools/list that list reads.
const maxPages = 10000

// list answers tools/list with the tools of the surface the caller sees,
// in one page: it reads the engine's own listing for the caller (every
// page), so each surface tool is listed exactly when tools/list would
// list it, as the engine encodes it.
func (s *Search) list(ctx context.Context, c *mcp.Call, next mcp.CallHandler) (any, error) {
	params, err := listParams(c.Params)
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	cursor := ""
	for range maxPages {
		inner := *c
		if cursor != "" {
			params["cursor"], _ = json.Marshal(cursor)
			inner.Params, _ = json.Marshal(params)
		}
		res, err := next(ctx, &inner)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return nil, fmt.Errorf("toolsearch: reading the engine's tools/list: %w", err)
		}
		for _, t := range page.Tools {
			if s.surface[toolName(t)] {
				out = append(out, t)
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return toolsResult(out), nil
}

// listParams reads the params of a tools/list: an object (refused here,
// not left to the engine, when it is not one: whatever the engine would
// answer, it must not be the whole catalog), without a cursor, since the
// list has one page.
func listParams(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var params map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: tools/list params must be an object"}
		}
	}
	if cur, ok := params["cursor"]; ok && string(cur) != `""` && string(cur) != "null" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: cursor " + strictjson.Quote(string(cur)) +
			" is not one this server issued (its tools/list has one page)"}
	}
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	return params, nil
}

// toolsResult is the tools/list result of the tools' definitions.
func toolsResult(tools []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for i, t := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.Bytes())
}

// toolName reads the name of an encoded tool: at once when it comes
// first (as the engine encodes tools), else by decoding it.
func toolName(t json.RawMessage) string {
	const head = `{"name":"`
	if rest, ok := bytes.CutPrefix(t, []byte(head)); ok {
		if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			return string(rest[:i])
		}
	}
	var v struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(t, &v)
	return v.Name
}

// callArgs are the call tool's arguments.
type callArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// call runs a tools/call of the call tool as a tools/call of the tool it
// names, through next: the engine checks that tool as for a direct call
// (access checks, visibility rules, the session's own tools, validation,
// tasks), and interceptors inside this one see it under its own name. A
// call the engine refuses as invalid (an unknown or hidden tool) comes
// back as a tool error the model can read. Arguments that do not fit the
// call tool's schema go to the engine as they are, which refuses them
// with the call tool's own validation.
func (s *Search) call(ctx context.Context, c *mcp.Call, next mcp.CallHandler) (any, error) {
	var params map[string]json.RawMessage
	if json.Unmarshal(c.Params, &params) != nil {
		return next(ctx, c)
	}
	var name string
	if json.Unmarshal(params["name"], &name) != nil || name != s.callName {
		return next(ctx, c)
	}
	a, ok := s.forwardedCall(params["arguments"])
	if !ok {
		return next(ctx, c) // the call tool's schema or handler answers
	}
	params["name"], _ = json.Marshal(a.Name)
	params["arguments"] = a.Arguments
	inner := *c
	var err error
	if inner.Params, err = marshalParams(params); err != nil {
		return next(ctx, c)
	}
	res, err := next(ctx, &inner)
	var je *mcp.Error
	if errors.As(err, &je) && je.Code == mcp.CodeInvalidParams {
		return &mcp.ContentResult{IsError: true, Content: []mcp.Content{mcp.Text(je.Message +
			". " + s.searchName + " finds the tools you can call.")}}, nil
	}
	return res, err
}

// forwardedCall reads the call tool's arguments raw: the tool to call (a
// surface tool, not the search or call tool) and its arguments (an
// object; none is {}). False when they are not that, and the call tool's
// schema or handler answers.
func (s *Search) forwardedCall(raw json.RawMessage) (callArgs, bool) {
	var a callArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if len(raw) == 0 || raw[0] != '{' || dec.Decode(&a) != nil ||
		a.Name == "" || a.Name == s.callName || a.Name == s.searchName {
		return a, false
	}
	switch {
	case len(a.Arguments) == 0 || string(a.Arguments) == "null":
		a.Arguments = json.RawMessage("{}")
	case a.Arguments[0] != '{':
		return a, false
	}
	return a, true
}

// marshalParams encodes params, leaving the members' text as the client
// sent it (no HTML escaping), but compact.
func marshalParams(params map[string]json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// callFallback is the call tool's own function: the interceptor runs the
// named tool instead, so only a call it leaves to the engine reaches
// here, one naming the search or call tool, or any call when the
// Middleware is not installed (a server set up wrong: logged).
func (s *Search) callFallback(ctx context.Context, c *mcp.Context, in callArgs) (*mcp.ContentResult, error) {
	switch in.Name {
	case s.searchName, s.callName:
		return nil, mcp.UserErrorf("%s cannot call %s: call %s directly", s.callName, in.Name, in.Name)
	case "":
		return nil, mcp.UserErrorf("name is empty: give the name of a tool %s found", s.searchName)
	}
	s.srv.Logger().Error("toolsearch: a call_tool call reached its fallback: wrap the server's handler with Search.Middleware", "tool", s.callName)
	return nil, mcp.UserErrorf("%s is not available on this server (its middleware is not installed); call %s directly", s.callName, in.Name)
}

// searchArgs are the search tool's arguments.
type searchArgs struct {
	Query   string `json:"query,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	Limit   int    `json:"limit,omitempty"`
}

// search is the search tool's function. It lists the tools the caller
// sees (the server's own listing: access checks, visibility rules, the
// session's own tools, mounted servers and gateway mirrors as they are
// now), leaves out the surface and the tools only an MCP App's view may
// call, and ranks or matches them.
func (s *Search) search(ctx context.Context, c *mcp.Context, in searchArgs) (*mcp.ContentResult, error) {
	query, pattern := strings.TrimSpace(in.Query), in.Pattern
	switch {
	case query == "" && pattern == "":
		return nil, mcp.UserErrorf("give query (words saying what you want to do) or pattern (a regular expression)")
	case query != "" && pattern != "":
		return nil, mcp.UserErrorf("give query or pattern, not both")
	}
	limit := s.limit
	if in.Limit > 0 {
		limit = min(in.Limit, s.limit)
	}
	var re *regexp.Regexp
	if pattern != "" {
		var err error
		if re, err = compilePattern(pattern); err != nil {
			return nil, mcp.UserErrorf("%v", err)
		}
	}
	snap := s.idx.snapshot(s.catalog(ctx, c))
	var hits []int
	note := ""
	if re != nil {
		var stopped bool
		hits, stopped = snap.regexSearch(ctx, re, limit, regexBudget)
		if stopped {
			note = "The search stopped before it tried every tool (the pattern is slow to match): a narrower pattern may find more."
		}
	} else {
		for _, sc := range snap.bm25(queryTerms(query), limit) {
			hits = append(hits, sc.doc)
		}
	}
	return s.answer(snap, hits, cmpOr(query, pattern), note), nil
}

// catalog is the caller's tools, less the surface and the tools only an
// app's view may call (a host keeps those from the model; a search result
// would not).
func (s *Search) catalog(ctx context.Context, c *mcp.Context) []mcp.Tool {
	tools := s.srv.ListTools(ctx, c.Session)
	return slices.DeleteFunc(tools, func(t mcp.Tool) bool {
		return s.surface[t.Name] || appOnly(&t)
	})
}

// appOnly reports whether only an MCP App's view may call t.
func appOnly(t *mcp.Tool) bool {
	return t.UI != nil && len(t.UI.Visibility) > 0 && !slices.Contains(t.UI.Visibility, apps.VisibleToModel)
}

// queryTerms are the distinct terms of a query, at most maxQueryTerms.
func queryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	terms(q, 0, func(t string) {
		if !seen[t] && len(out) < maxQueryTerms {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// answer is the search tool's result: the tools found, as
// {"tools":[{name, title, description, inputSchema, annotations}, …]},
// both as structured content and as its text.
func (s *Search) answer(snap *snapshot, hits []int, what, note string) *mcp.ContentResult {
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for i, h := range hits {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(snap.docs[h].encoded())
	}
	b.WriteString(`]}`)
	res := &mcp.ContentResult{StructuredContent: json.RawMessage(b.Bytes())}
	text := b.String()
	if len(hits) == 0 {
		text = "No tool matches " + strconv.Quote(what) + ". Try other words, fewer of them, or a pattern."
	}
	res.Content = []mcp.Content{mcp.Text(text)}
	if note != "" {
		res.Content = append(res.Content, mcp.Text(note))
	}
	return res
}

// searchToolDef is the search tool's definition.
func (s *Search) searchToolDef() mcp.Tool {
	return mcp.Tool{
		Name:  s.searchName,
		Title: "Search tools",
		Description: "Find the tools of this server that fit a task. The server has more tools than it lists: " +
			"this returns the best matches with their full definitions (name, description, input schema), best first. " +
			"Then call one with " + s.callName + " (name and arguments), or directly by its name.\n\n" +
			"Give query, words saying what you want to do (\"delete a message in a channel\"), ranked by relevance; " +
			"or pattern, a regular expression (RE2 syntax, case-insensitive) matched against tool names, " +
			"descriptions and argument names (\"^get_.*user\"), names matching first.",
		InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"query": {Type: "string", MaxLength: new(maxQueryBytes),
					Description: "What you want to do, in a few words; the tools are ranked by relevance (BM25)."},
				"pattern": {Type: "string", MaxLength: new(maxPatternBytes),
					Description: "Instead of query: a regular expression (RE2, case-insensitive) the tool's name, description or arguments must match."},
				"limit": {Type: "integer", Minimum: new(1.0), Maximum: new(float64(s.limit)),
					Description: fmt.Sprintf("The most tools to return (default and most: %d).", s.limit)},
			},
			PropertyOrder:        []string{"query", "pattern", "limit"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
		OutputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"tools": {Type: "array", Items: &jsonschema.Schema{Type: "object"},
					Description: "The tools found, best first, each as tools/list lists it (name, title, description, inputSchema, annotations)."},
			},
			Required: []string{"tools"},
		},
		Annotations: &mcp.ToolAnnotations{Title: "Search tools", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}
}

// callToolDef is the call tool's definition.
func (s *Search) callToolDef() mcp.Tool {
	return mcp.Tool{
		Name:  s.callName,
		Title: "Call a tool",
		Description: "Call a tool that " + s.searchName + " found, by its name, with its arguments " +
			"(an object that fits the tool's input schema). Returns what the tool returns.",
		InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name":      {Type: "string", MinLength: new(1), Description: "The tool's name, as " + s.searchName + " returned it."},
				"arguments": {Type: "object", Description: "The tool's arguments, as its inputSchema describes them."},
			},
			PropertyOrder:        []string{"name", "arguments"},
			Required:             []string{"name"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
	}
}
