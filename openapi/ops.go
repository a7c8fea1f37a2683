package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
)

// methods is the order in which the operations of one path are taken
// (and so the order that settles a name collision).
var methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

// operation is what Register and Generate know of one operation.
type operation struct {
	method, path string
	item         *openapi3.PathItem
	op           *openapi3.Operation
	name         string
	description  string
	params       []param
	body         *body
	input        *jsonschema.Schema
	output       *jsonschema.Schema
	kind         RouteKind
}

// param is one parameter of an operation and the argument that carries it.
type param struct {
	arg    string
	p      *openapi3.Parameter
	schema *jsonschema.Schema
}

// body is how the JSON request body is carried: under key, or flattened
// (its properties are arguments of their own) when key is "".
type body struct {
	raw      bool // not JSON: the string argument is the body
	key      string
	flat     []string
	required bool
	media    string
	schema   *jsonschema.Schema
}

// operations lists the operations of doc in path then method order, with
// their tool names (collisions settled in that order) and input and output
// schemas.
func operations(doc *openapi3.T, bodyKey string) ([]*operation, error) {
	var ops []*operation
	if doc.Paths == nil {
		return nil, nil
	}
	taken := map[string]bool{}
	paths := doc.Paths.Keys()
	slices.Sort(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		if item == nil {
			continue
		}
		for _, m := range methods {
			op := item.GetOperation(m)
			if op == nil {
				continue
			}
			o := &operation{method: m, path: path, item: item, op: op}
			o.name = uniqueName(toolName(op.OperationID, m, path), taken)
			o.description = describe(op)
			if err := o.plan(bodyKey); err != nil {
				return nil, fmt.Errorf("openapi: %s %s: %w", m, path, err)
			}
			ops = append(ops, o)
		}
	}
	return ops, nil
}

// describe joins an operation's summary and description.
func describe(op *openapi3.Operation) string {
	s, d := strings.TrimSpace(op.Summary), strings.TrimSpace(op.Description)
	switch {
	case s == "":
		return d
	case d == "" || d == s:
		return s
	}
	return s + "\n\n" + d
}

var invalidNameChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// toolName is the MCP tool name of an operation: its operationId with
// every run of characters outside A-Z a-z 0-9 _ - . replaced by one _,
// or, without an operationId, the method and the path's segments
// ("get_pets_id" for GET /pets/{id}); at most 128 characters.
func toolName(operationID, method, path string) string {
	name := strings.Trim(invalidNameChars.ReplaceAllString(operationID, "_"), "_")
	if name == "" {
		name = strings.ToLower(method) + "_" + strings.Trim(invalidNameChars.ReplaceAllString(path, "_"), "_")
		name = strings.TrimSuffix(name, "_")
	}
	if len(name) > 128 {
		name = name[:128]
	}
	return name
}

// uniqueName returns name, or name_2, name_3, … when it is taken, and
// marks the result taken.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		suffix := "_" + strconv.Itoa(i)
		out = name[:min(len(name), 128-len(suffix))] + suffix
	}
	taken[out] = true
	return out
}

// plan decides the arguments of o and builds its input and output schemas.
func (o *operation) plan(bodyKey string) error {
	in := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	ps := o.parameters()
	names := map[string]int{}
	for _, p := range ps {
		names[p.Name]++
	}
	for _, p := range ps {
		arg := p.Name
		if names[p.Name] > 1 && p.In != openapi3.ParameterInPath {
			arg = p.In + "_" + p.Name
		}
		s := paramSchema(p)
		o.params = append(o.params, param{arg: arg, p: p, schema: s})
		addProperty(in, arg, s, p.Required || p.In == openapi3.ParameterInPath)
	}
	if rb := o.op.RequestBody; rb != nil && rb.Value != nil {
		o.body = planBody(in, rb.Value, bodyKey)
	}
	if len(in.Properties) == 0 {
		in.Properties = nil
	}
	o.input = in
	o.output = outputSchema(o.op)
	return nil
}

// parameters lists the operation's parameters, path first, then query,
// header and cookie: the operation's own override the path item's of the
// same name and location.
func (o *operation) parameters() []*openapi3.Parameter {
	var ps []*openapi3.Parameter
	seen := map[string]bool{}
	for _, list := range []openapi3.Parameters{o.op.Parameters, o.item.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			p := ref.Value
			if seen[p.In+"\x00"+p.Name] {
				continue
			}
			seen[p.In+"\x00"+p.Name] = true
			ps = append(ps, p)
		}
	}
	order := map[string]int{openapi3.ParameterInPath: 0, openapi3.ParameterInQuery: 1, openapi3.ParameterInHeader: 2, openapi3.ParameterInCookie: 3}
	slices.SortStableFunc(ps, func(a, b *openapi3.Parameter) int { return order[a.In] - order[b.In] })
	return ps
}

// paramSchema is the input schema of a parameter: its schema, or that of
// its content's media type, with its description and deprecation.
func paramSchema(p *openapi3.Parameter) *jsonschema.Schema {
	var s *jsonschema.Schema
	switch {
	case p.Schema != nil:
		s = convert(p.Schema, input)
	default:
		for _, mt := range p.Content {
			s = convert(mt.Schema, input)
			break
		}
	}
	if s == nil {
		s = &jsonschema.Schema{}
	}
	if s.Description == "" {
		s.Description = strings.TrimSpace(p.Description)
	}
	if p.Deprecated {
		s.Deprecated = true
	}
	return s
}

// addProperty adds an argument to the input schema.
func addProperty(in *jsonschema.Schema, name string, s *jsonschema.Schema, required bool) {
	in.Properties[name] = s
	in.PropertyOrder = append(in.PropertyOrder, name)
	if required {
		in.Required = append(in.Required, name)
	}
}

// freeKey is bodyKey, or bodyKey2, bodyKey3… when an argument already
// has that name.
func freeKey(in *jsonschema.Schema, bodyKey string) string {
	key := bodyKey
	for i := 2; in.Properties[key] != nil; i++ {
		key = bodyKey + strconv.Itoa(i)
	}
	return key
}

// planBody adds the request body to the input schema and says how it is
// carried: a JSON object body's properties as arguments of their own
// when none collides with a parameter (flat), else the whole body under
// a key; a body of another media type (text, CBOR, octets) as the string
// given under the key. nil: no body a tool can send.
func planBody(in *jsonschema.Schema, rb *openapi3.RequestBody, bodyKey string) *body {
	media, mt := jsonMedia(rb.Content)
	if mt == nil {
		raw := rawMedia(rb.Content)
		if raw == "" {
			return nil
		}
		s := &jsonschema.Schema{Type: "string", Description: strings.TrimSpace(rb.Description)}
		if s.Description == "" {
			s.Description = "The request body (" + raw + ")."
		}
		key := freeKey(in, bodyKey)
		addProperty(in, key, s, rb.Required)
		return &body{key: key, raw: true, required: rb.Required, media: raw, schema: s}
	}
	b := &body{required: rb.Required, media: media, schema: convert(mt.Schema, input)}
	if b.schema == nil {
		b.schema = &jsonschema.Schema{}
	}
	if b.schema.Description == "" {
		b.schema.Description = strings.TrimSpace(rb.Description)
	}
	flat := objectSchema(b.schema) && len(b.schema.Properties) > 0 && b.schema.AdditionalProperties == nil
	for name := range b.schema.Properties {
		if _, dup := in.Properties[name]; dup {
			flat = false
		}
	}
	if !flat {
		b.key = freeKey(in, bodyKey)
		addProperty(in, b.key, b.schema, b.required)
		return b
	}
	b.flat = b.schema.PropertyOrder
	for _, name := range b.flat {
		in.Properties[name] = b.schema.Properties[name]
		in.PropertyOrder = append(in.PropertyOrder, name)
	}
	if b.required {
		in.Required = append(in.Required, b.schema.Required...)
	}
	return b
}

// jsonMedia picks the JSON media type of content: application/json, else
// the first (by name) JSON-like one (application/problem+json, …).
func jsonMedia(content openapi3.Content) (string, *openapi3.MediaType) {
	if mt := content["application/json"]; mt != nil {
		return "application/json", mt
	}
	for _, name := range sortedKeys(content) {
		base, _, _ := strings.Cut(name, ";")
		if base == "application/json" || strings.HasSuffix(base, "+json") || base == "*/*" {
			return name, content[name]
		}
	}
	return "", nil
}

// rawMedia picks the media type of a body that is neither JSON nor a
// form (application/x-www-form-urlencoded, multipart/*, which are not
// supported): the first by name, "" for none.
func rawMedia(content openapi3.Content) string {
	for _, name := range sortedKeys(content) {
		base, _, _ := strings.Cut(name, ";")
		if base != "application/x-www-form-urlencoded" && !strings.HasPrefix(base, "multipart/") {
			return name
		}
	}
	return ""
}

// successResponse is the first 2xx response of op (200, 201, …, then 2XX).
func successResponse(op *openapi3.Operation) *openapi3.Response {
	if op.Responses == nil {
		return nil
	}
	for code := 200; code < 300; code++ {
		if r := op.Responses.Status(code); r != nil && r.Value != nil {
			return r.Value
		}
	}
	if r := op.Responses.Value("2XX"); r != nil && r.Value != nil {
		return r.Value
	}
	return nil
}

// outputSchema is the schema of op's first 2xx JSON response when it is an
// object (MCP output schemas must be), else nil.
func outputSchema(op *openapi3.Operation) *jsonschema.Schema {
	r := successResponse(op)
	if r == nil {
		return nil
	}
	_, mt := jsonMedia(r.Content)
	if mt == nil {
		return nil
	}
	s := convert(mt.Schema, output)
	if !objectSchema(s) {
		return nil
	}
	return s
}
