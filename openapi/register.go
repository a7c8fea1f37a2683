package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

// Defaults of [Options].
const (
	DefaultTimeout          = 30 * time.Second
	DefaultBodyKey          = "body"
	DefaultURIPrefix        = "openapi://"
	DefaultMaxErrorExcerpt  = 1024
	DefaultMaxResponseBytes = 16 << 20
)

// Options configure [Register].
type Options struct {
	// BaseURL is where the API is served; the operation's path is
	// appended to it. Empty: the document's first server (its variables
	// set to their defaults); a relative server URL is an error then, and
	// so is one at a link-local, unspecified, multicast or cloud metadata
	// address or name (169.254.169.254, metadata.google.internal, …),
	// which the default client also refuses after DNS resolution: a
	// document cannot send the calls to the machine's metadata service.
	// BaseURL set is trusted as it is.
	BaseURL string
	// Client sends the requests. Nil: a client of its own with no
	// timeout of its own (Timeout bounds each call). Register uses a
	// copy whose CheckRedirect refuses a redirect to another origin than
	// the base URL's (see AllowCrossOriginRedirects) before it calls the
	// client's own.
	Client *http.Client
	// AllowCrossOriginRedirects follows a redirect of the API to another
	// origin (scheme, host and port) than the base URL's, without the
	// headers of Headers. Unset, such a redirect is a tool error: it would
	// take the call, and with the client's default policy some of its
	// headers, to a host the document does not name (an internal address,
	// say).
	AllowCrossOriginRedirects bool
	// Timeout bounds one call (request and response body). Zero:
	// [DefaultTimeout]; negative: no limit besides the MCP request's.
	Timeout time.Duration
	// Routes decide what each operation becomes (see [Route]); none
	// matching: a tool.
	Routes []Route
	// Headers, when set, returns headers to add to each request from the
	// MCP call (its auth data, session, the operator's API key); they are
	// set after the operation's own header parameters, so they win, and
	// go only to the base URL's origin: a redirect elsewhere goes without
	// them. By default nothing of the MCP caller reaches the API.
	Headers func(ctx context.Context, c *mcp.Context) http.Header
	// BodyKey is the argument that holds a request body that is not
	// flattened (see the package documentation). Empty: "body".
	BodyKey string
	// URIPrefix starts the URIs of resources and resource templates.
	// Empty: "openapi://".
	URIPrefix string
	// MaxErrorExcerpt bounds the bytes of an error answer's body quoted in
	// the tool error. Zero: [DefaultMaxErrorExcerpt].
	MaxErrorExcerpt int
	// MaxResponseBytes bounds the body of an answer; a larger one is a
	// tool error. Zero: [DefaultMaxResponseBytes].
	MaxResponseBytes int64
	// NoValidation skips the validation of each request against the
	// document (the MCP input schema is still enforced).
	NoValidation bool
	// Lenient loads the document with [LoadLenient] (no validation of
	// the document itself) rather than [Load].
	Lenient bool
}

// Register loads spec (see [Load]) and registers its operations on srv as
// tools, resources and resource templates (see the package documentation
// and [Options]). It registers all of them or, on error, none.
func Register(srv *mcp.Server, spec []byte, opts Options) error {
	doc, err := load(spec, opts.Lenient)
	if err != nil {
		return err
	}
	return RegisterDoc(srv, doc, opts)
}

// RegisterDoc is [Register] for a document already loaded (with [Load],
// or by kin-openapi's loader with its $refs resolved).
func RegisterDoc(srv *mcp.Server, doc *openapi3.T, opts Options) error {
	a, err := newAPI(doc, opts)
	if err != nil {
		return err
	}
	var tools, uris, templates []string
	undo := func() {
		srv.Registry().Remove(access.KindTool, tools...)
		srv.Registry().Remove(access.KindResource, uris...)
		srv.Registry().Remove(access.KindResource, templates...)
	}
	for _, o := range a.ops {
		var err error
		switch o.kind {
		case RouteExclude:
			continue
		case RouteTool:
			if err = srv.Registry().AddRawTool(a.tool(o), a.toolFunc(o)); err == nil {
				tools = append(tools, o.name)
			}
		case RouteResource:
			r := a.resource(o)
			if err = srv.Registry().AddResource(r); err == nil {
				uris = append(uris, r.URI)
			}
		case RouteResourceTemplate:
			t := a.template(o)
			if err = srv.Registry().AddResourceTemplate(t); err == nil {
				templates = append(templates, t.URITemplate)
			}
		}
		if err != nil {
			undo()
			return fmt.Errorf("openapi: %s %s: %w", o.method, o.path, err)
		}
	}
	return nil
}

// api is one registered document and its options, defaults applied.
type api struct {
	doc  *openapi3.T
	ops  []*operation
	base *url.URL
	opts Options
}

func newAPI(doc *openapi3.T, opts Options) (*api, error) {
	if doc == nil {
		return nil, errors.New("openapi: nil document")
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
		if opts.BaseURL == "" {
			opts.Client = documentClient() // servers.go
		}
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.BodyKey == "" {
		opts.BodyKey = DefaultBodyKey
	}
	if opts.URIPrefix == "" {
		opts.URIPrefix = DefaultURIPrefix
	}
	if opts.MaxErrorExcerpt <= 0 {
		opts.MaxErrorExcerpt = DefaultMaxErrorExcerpt
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	base, err := baseURL(doc, opts.BaseURL)
	if err != nil {
		return nil, err
	}
	opts.Client = guardRedirects(opts.Client, base, opts.AllowCrossOriginRedirects)
	routes, err := compileRoutes(opts.Routes)
	if err != nil {
		return nil, err
	}
	ops, err := operations(doc, opts.BodyKey)
	if err != nil {
		return nil, err
	}
	for _, o := range ops {
		if o.kind, err = route(routes, o); err != nil {
			return nil, err
		}
	}
	return &api{doc: doc, ops: ops, base: base, opts: opts}, nil
}

// baseURL is the explicit base, else the document's first server with its
// variables at their defaults.
func baseURL(doc *openapi3.T, explicit string) (*url.URL, error) {
	raw := explicit
	if raw == "" {
		if len(doc.Servers) == 0 || doc.Servers[0] == nil {
			return nil, errors.New("openapi: the document names no server: set Options.BaseURL")
		}
		s := doc.Servers[0]
		raw = s.URL
		for name, v := range s.Variables {
			if v != nil {
				raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
			}
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("openapi: base URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("openapi: base URL %q is not an absolute http(s) URL: set Options.BaseURL", raw)
	}
	if explicit == "" && forbiddenHost(u.Hostname()) {
		return nil, fmt.Errorf("openapi: the document's server %q is a link-local, unspecified, multicast or cloud metadata address, "+
			"which a document may not send the calls to: set Options.BaseURL to call it", raw)
	}
	return u, nil
}

// tool is the MCP tool of o.
func (a *api) tool(o *operation) mcp.Tool {
	t := mcp.Tool{Name: o.name, Description: o.description, InputSchema: o.input, OutputSchema: o.output,
		Annotations: annotations(o.method), Tags: o.op.Tags}
	if o.op.Summary != "" {
		t.Title = strings.TrimSpace(o.op.Summary)
	}
	return t
}

// annotations are the hints o's method implies: GET reads only, DELETE
// destroys, PUT is idempotent.
func annotations(method string) *mcp.ToolAnnotations {
	t := true
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return &mcp.ToolAnnotations{ReadOnlyHint: true}
	case "DELETE":
		return &mcp.ToolAnnotations{DestructiveHint: &t, IdempotentHint: true}
	case "PUT":
		return &mcp.ToolAnnotations{IdempotentHint: true}
	}
	return nil
}

// answer is an API's response, read.
type answer struct {
	status int
	ctype  string
	body   []byte
}

func (r *answer) isJSON() bool {
	mt, _, _ := mime.ParseMediaType(r.ctype)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// call validates and sends the request of o for args.
func (a *api) call(ctx context.Context, c *mcp.Context, o *operation, args map[string]any) (*answer, error) {
	if a.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.opts.Timeout)
		defer cancel()
	}
	req, pathParams, err := buildRequest(ctx, a.base, o, args)
	if err != nil {
		return nil, err
	}
	if !a.opts.NoValidation {
		if err := a.validate(req, o, pathParams); err != nil {
			return nil, err
		}
	}
	if a.opts.Headers != nil && c != nil {
		var names []string
		for k, vs := range a.opts.Headers(ctx, c) {
			k = http.CanonicalHeaderKey(k)
			req.Header[k] = vs
			names = append(names, k)
		}
		req = req.WithContext(context.WithValue(req.Context(), operatorHeadersKey{}, names))
	}
	resp, err := a.opts.Client.Do(req)
	if err != nil {
		return nil, a.callError(ctx, o, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, a.opts.MaxResponseBytes+1))
	if err != nil {
		return nil, a.callError(ctx, o, err)
	}
	if int64(len(data)) > a.opts.MaxResponseBytes {
		return nil, fmt.Errorf("%s %s: the answer is over the limit of %d bytes", o.method, o.path, a.opts.MaxResponseBytes)
	}
	return &answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: data}, nil
}

// operatorHeadersKey is the context key of the names of the headers
// Options.Headers set on a request, which a redirect to another origin
// drops.
type operatorHeadersKey struct{}

// guardRedirects returns a copy of c (a new client when nil) whose
// CheckRedirect refuses a redirect to another origin than base's, or,
// when allow, follows it without the operator's headers; then it applies
// c's own CheckRedirect, or net/http's default (10 redirects at most).
func guardRedirects(c *http.Client, base *url.URL, allow bool) *http.Client {
	var g http.Client
	if c != nil {
		g = *c
	}
	next := g.CheckRedirect
	home := origin(base)
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if to := origin(req.URL); to != home {
			if !allow {
				return &redirectError{to: to, home: home}
			}
			names, _ := req.Context().Value(operatorHeadersKey{}).([]string)
			for _, k := range names {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &g
}

// redirectError is a redirect to another origin, refused. It names the
// origin only: a redirect's path and query may hold a signature.
type redirectError struct{ to, home string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the API redirected to another origin (%s) than %s: not followed (Options.AllowCrossOriginRedirects follows it)", e.to, e.home)
}

// origin is scheme://host[:port] of u, lowercased, without a default
// port.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// callError says why a request failed, naming a timeout as one.
func (a *api) callError(ctx context.Context, o *operation, err error) error {
	if a.opts.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: no answer within %v", o.method, o.path, a.opts.Timeout)
	}
	if re := (*redirectError)(nil); errors.As(err, &re) {
		return fmt.Errorf("%s %s: %w", o.method, o.path, re) // without the *url.Error's URL
	}
	return fmt.Errorf("%s %s: %w", o.method, o.path, err)
}

// validate checks req against the document with openapi3filter and names
// the argument at fault.
func (a *api) validate(req *http.Request, o *operation, pathParams map[string]string) error {
	var payload []byte
	if req.Body != nil {
		payload, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(payload))
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: pathParams,
		Route:      &routers.Route{Spec: a.doc, Path: o.path, PathItem: o.item, Method: o.method, Operation: o.op},
		Options: &openapi3filter.Options{
			AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
			SkipSettingDefaults: true,
		},
	}
	if b := o.body; b != nil && b.raw {
		// A body kin-openapi cannot decode (CBOR, octets) is sent as
		// given: only its presence is checked, by the input schema.
		media, _, _ := strings.Cut(b.media, ";")
		in.Options.ExcludeRequestBody = openapi3filter.RegisteredBodyDecoder(strings.TrimSpace(media)) == nil
	}
	err := openapi3filter.ValidateRequest(req.Context(), in)
	if payload != nil {
		req.Body = io.NopCloser(bytes.NewReader(payload))
		req.ContentLength = int64(len(payload))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(payload)), nil }
	}
	if err == nil {
		return nil
	}
	return o.argumentError(err)
}

// argumentError turns a validation error into an [ArgumentError] naming
// the argument.
func (o *operation) argumentError(err error) error {
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return &ArgumentError{Arg: "arguments", Reason: err.Error()}
	}
	reason := re.Reason
	var se *openapi3.SchemaError
	var ptr []string
	if errors.As(re.Err, &se) {
		se, ptr = innermostSchemaError(se)
		reason = se.Reason
		if len(ptr) > 0 && re.RequestBody != nil {
			reason = "/" + strings.Join(ptr, "/") + ": " + se.Reason
		}
	} else if reason == "" && re.Err != nil {
		reason = re.Err.Error()
	}
	if reason == "" {
		reason = re.Error()
	}
	switch {
	case re.Parameter != nil:
		return &ArgumentError{Arg: o.paramArg(re.Parameter), Reason: reason}
	case re.RequestBody != nil && o.body == nil:
		return &ArgumentError{Arg: "body", Reason: reason + " (this operation's body media type is not supported)"}
	case re.RequestBody != nil:
		return o.bodyArgumentError(se, ptr, reason)
	}
	return &ArgumentError{Arg: "arguments", Reason: reason}
}

// innermostSchemaError follows se through the errors of allOf, anyOf and
// oneOf members, which wrap the error of their member: the innermost says
// what is wrong, and where below theirs. It returns that error and the
// JSON pointer to the value it is about.
func innermostSchemaError(se *openapi3.SchemaError) (*openapi3.SchemaError, []string) {
	ptr := se.JSONPointer()
	for {
		var inner *openapi3.SchemaError
		if se.Origin == nil || !errors.As(se.Origin, &inner) || inner == se {
			return se, ptr
		}
		se = inner
		if ip := inner.JSONPointer(); len(ip) >= len(ptr) && slices.Equal(ip[:len(ptr)], ptr) {
			ptr = ip
		} else {
			ptr = append(ptr, ip...)
		}
	}
}

// paramArg is the argument of o that holds parameter p, or p's name when
// none does.
func (o *operation) paramArg(p *openapi3.Parameter) string {
	for _, op := range o.params {
		if op.p.Name == p.Name && op.p.In == p.In {
			return op.arg
		}
	}
	return p.Name
}

// bodyArgumentError names the argument of a body that failed validation:
// for a body whose properties are the arguments, the property the
// schema error se points into (ptr), else the body's argument.
func (o *operation) bodyArgumentError(se *openapi3.SchemaError, ptr []string, reason string) error {
	if o.body.key != "" || se == nil || len(ptr) == 0 {
		return &ArgumentError{Arg: o.body.argName(), Reason: reason}
	}
	field := ptr[0]
	if rest := strings.Join(ptr[1:], "/"); rest != "" {
		return &ArgumentError{Arg: field, Reason: "/" + rest + ": " + se.Reason}
	}
	return &ArgumentError{Arg: field, Reason: se.Reason}
}

// toolFunc is the body of o's tool.
func (a *api) toolFunc(o *operation) mcp.RawToolFunc {
	return func(ctx context.Context, c *mcp.Context, raw json.RawMessage) (*mcp.ContentResult, error) {
		args, err := decodeArgs(raw)
		if err != nil {
			return nil, &mcp.UserError{Message: err.Error()}
		}
		ans, err := a.call(ctx, c, o, args)
		if err != nil {
			return nil, &mcp.UserError{Message: err.Error()}
		}
		return a.toolResult(o, ans)
	}
}

// toolResult maps an answer to the tool's result.
func (a *api) toolResult(o *operation, ans *answer) (*mcp.ContentResult, error) {
	if ans.status < 200 || ans.status > 299 {
		return nil, &mcp.UserError{Message: fmt.Sprintf("%s %s: the API answered %d %s: %s", o.method, o.path,
			ans.status, http.StatusText(ans.status), excerpt(ans.body, a.opts.MaxErrorExcerpt))}
	}
	text := string(ans.body)
	if len(bytes.TrimSpace(ans.body)) == 0 {
		text = strconv.Itoa(ans.status) + " " + http.StatusText(ans.status)
	}
	res := &mcp.ContentResult{Content: []mcp.Content{mcp.Text(text)}}
	if ans.isJSON() {
		var obj map[string]any
		if json.Unmarshal(ans.body, &obj) == nil && obj != nil {
			res.StructuredContent = obj
		}
	}
	if o.output != nil && res.StructuredContent == nil {
		// The tool promised an object; an answer without one would break
		// a client that checks structuredContent against the schema.
		return nil, &mcp.UserError{Message: fmt.Sprintf("%s %s: the API answered %d with no JSON object (%s): %s",
			o.method, o.path, ans.status, ans.ctype, excerpt(ans.body, a.opts.MaxErrorExcerpt))}
	}
	return res, nil
}

// excerpt is at most max bytes of b, cut at a rune boundary, marked when
// cut.
func excerpt(b []byte, max int) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "(empty body)"
	}
	if len(b) <= max {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD") + fmt.Sprintf("… (%d bytes in all)", len(b))
}

// resourceURI is the URI (template) of o's path: the prefix, then the
// path without its leading slash, path parameters as variables.
func (a *api) resourceURI(o *operation) (string, map[string]string) {
	vars := map[string]string{}
	uri := strings.TrimPrefix(o.path, "/")
	for _, p := range o.params {
		if p.p.In != openapi3.ParameterInPath {
			continue
		}
		v := varName(p.arg, vars)
		uri = strings.ReplaceAll(uri, "{"+p.p.Name+"}", "{"+v+"}")
	}
	return a.opts.URIPrefix + uri, vars
}

var nonVarChars = regexp.MustCompile(`[^A-Za-z0-9_]`)

// varName is an RFC 6570 variable name for arg, recorded in vars.
func varName(arg string, vars map[string]string) string {
	v := nonVarChars.ReplaceAllString(arg, "_")
	for i := 2; ; i++ {
		if _, dup := vars[v]; !dup {
			break
		}
		v = nonVarChars.ReplaceAllString(arg, "_") + strconv.Itoa(i)
	}
	vars[v] = arg
	return v
}

func (a *api) mimeType(o *operation) string {
	if r := successResponse(o.op); r != nil {
		if media, _ := jsonMedia(r.Content); media != "" && media != "*/*" {
			return media
		}
		for _, k := range sortedKeys(r.Content) {
			return k
		}
	}
	return ""
}

// resource is the MCP resource of o (a GET without path parameters).
func (a *api) resource(o *operation) mcp.Resource {
	uri, _ := a.resourceURI(o)
	return mcp.Resource{URI: uri, Name: o.name, Description: o.description, MIMEType: a.mimeType(o), Tags: o.op.Tags,
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			return a.read(ctx, c, o, uri, map[string]any{})
		}}
}

// template is the MCP resource template of o (a GET with path parameters).
func (a *api) template(o *operation) mcp.ResourceTemplate {
	uri, vars := a.resourceURI(o)
	var query []string
	for _, p := range o.params {
		if p.p.In == openapi3.ParameterInQuery {
			query = append(query, varName(p.arg, vars))
		}
	}
	if len(query) > 0 {
		uri += "{?" + strings.Join(query, ",") + "}"
	}
	t := mcp.ResourceTemplate{URITemplate: uri, Name: o.name, Description: o.description, MIMEType: a.mimeType(o), Tags: o.op.Tags}
	for _, v := range sortedKeys(vars) {
		arg := vars[v]
		for _, p := range o.params {
			if p.arg == arg {
				t.Arguments = append(t.Arguments, mcp.TemplateArgument{Name: v, Description: p.schema.Description,
					Required: p.p.In == openapi3.ParameterInPath})
			}
		}
	}
	t.Load = func(ctx context.Context, c *mcp.Context, got map[string]string) ([]mcp.ResourceContents, error) {
		args := map[string]any{}
		for v, s := range got {
			arg, ok := vars[v]
			if !ok || s == "" {
				continue
			}
			for _, p := range o.params {
				if p.arg == arg {
					args[arg] = typedValue(p.schema, s)
				}
			}
		}
		return a.read(ctx, c, o, "", args)
	}
	return t
}

// typedValue reads a template variable as the JSON value its parameter's
// schema asks for: a number, a boolean, a comma-separated list; text that
// does not parse stays text (and validation names it).
func typedValue(s *jsonschema.Schema, v string) any {
	typ := s.Type
	if typ == "" && len(s.Types) > 0 {
		typ = s.Types[0]
	}
	switch typ {
	case "integer", "number":
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return json.Number(v)
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	case "array":
		var list []any
		for _, it := range strings.Split(v, ",") {
			if s.Items != nil {
				list = append(list, typedValue(s.Items, it))
			} else {
				list = append(list, it)
			}
		}
		return list
	}
	return v
}

// read calls o for a resource read and returns its contents.
func (a *api) read(ctx context.Context, c *mcp.Context, o *operation, uri string, args map[string]any) ([]mcp.ResourceContents, error) {
	ans, err := a.call(ctx, c, o, args)
	if err != nil {
		return nil, err
	}
	if ans.status < 200 || ans.status > 299 {
		return nil, fmt.Errorf("%s %s: the API answered %d %s: %s", o.method, o.path, ans.status,
			http.StatusText(ans.status), excerpt(ans.body, a.opts.MaxErrorExcerpt))
	}
	return []mcp.ResourceContents{{URI: uri, MIMEType: ans.ctype, Text: string(ans.body)}}, nil
}
