// Package openapitest serves a mock of an API from its OpenAPI document,
// for testing what calls it: each request is matched to an operation by
// its path and method, validated against the document with kin-openapi's
// openapi3filter (a bad one is answered 400 with the reason), recorded,
// and answered with the operation's first 2xx response: its example when
// the document has one that conforms to its schema, else a value made
// from the schema.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Request is one request the server received.
type Request struct {
	// Operation is the operationId of the operation it matched ("" when it
	// has none); Method and Path (escaped, with the base path) and Query
	// (raw) are as received.
	Operation, Method, Path, Query string
	// PathParams are the path parameters matched, unescaped.
	PathParams map[string]string
	// Header holds the request's headers.
	Header http.Header
	// Body is the request body.
	Body []byte
}

// Server is a running mock API.
type Server struct {
	*httptest.Server
	doc    *openapi3.T
	base   string
	routes []mockRoute
	mu     sync.Mutex
	reqs   []Request
	hooks  map[string]http.HandlerFunc
}

type mockRoute struct {
	re     *regexp.Regexp
	names  []string
	path   string
	item   *openapi3.PathItem
	method string
	op     *openapi3.Operation
	params int
}

var paramPattern = regexp.MustCompile(`\{[^}/]+\}`)

// NewServer starts a mock of doc on 127.0.0.1 (stop it with Close). It
// serves under the path of the document's first server ("/api" for
// "http://petstore.swagger.io/api"); [Server.BaseURL] is the URL to call.
func NewServer(doc *openapi3.T) *Server {
	s := &Server{doc: doc, hooks: map[string]http.HandlerFunc{}}
	if len(doc.Servers) > 0 && doc.Servers[0] != nil {
		raw := doc.Servers[0].URL
		for name, v := range doc.Servers[0].Variables {
			if v != nil {
				raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
			}
		}
		if u, err := url.Parse(raw); err == nil {
			s.base = strings.TrimSuffix(u.Path, "/")
		}
	}
	if doc.Paths != nil {
		for _, path := range doc.Paths.Keys() {
			item := doc.Paths.Value(path)
			for method, op := range item.Operations() {
				r := mockRoute{path: path, item: item, method: method, op: op}
				expr := "^" + regexp.QuoteMeta(s.base)
				last := 0
				for _, loc := range paramPattern.FindAllStringIndex(path, -1) {
					expr += regexp.QuoteMeta(path[last:loc[0]]) + "([^/]+)"
					r.names = append(r.names, path[loc[0]+1:loc[1]-1])
					last = loc[1]
				}
				r.re = regexp.MustCompile(expr + regexp.QuoteMeta(path[last:]) + "$")
				r.params = len(r.names)
				s.routes = append(s.routes, r)
			}
		}
	}
	// Literal paths before templated ones, then by path: /pets/mine
	// before /pets/{id}.
	slices.SortFunc(s.routes, func(a, b mockRoute) int {
		if a.params != b.params {
			return a.params - b.params
		}
		return strings.Compare(a.path+a.method, b.path+b.method)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the URL the API is served at: the server's URL and the base
// path.
func (s *Server) BaseURL() string { return s.URL + s.base }

// Handle answers the operation with this operationId with h instead of
// the made-up response (after validation and recording): for errors,
// slow answers, particular bodies.
func (s *Server) Handle(operationID string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks[operationID] = h
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Last returns the last request received (the zero Request when none).
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return Request{}
	}
	return s.reqs[len(s.reqs)-1]
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	var found *mockRoute
	var params map[string]string
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.method != r.Method {
			continue
		}
		m := rt.re.FindStringSubmatch(r.URL.EscapedPath())
		if m == nil {
			continue
		}
		params = map[string]string{}
		for j, name := range rt.names {
			v, err := url.PathUnescape(m[j+1])
			if err != nil {
				v = m[j+1]
			}
			params[name] = v
		}
		found = rt
		break
	}
	if found == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"code": 404, "message": "no operation for " + r.Method + " " + r.URL.Path})
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Operation: found.op.OperationID, Method: r.Method, Path: r.URL.EscapedPath(),
		Query: r.URL.RawQuery, PathParams: params, Header: r.Header.Clone(), Body: body})
	hook := s.hooks[found.op.OperationID]
	s.mu.Unlock()
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params,
		Route:   &routers.Route{Spec: s.doc, Path: found.path, PathItem: found.item, Method: found.method, Operation: found.op},
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if media, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); len(body) > 0 && openapi3filter.RegisteredBodyDecoder(media) == nil {
		in.Options.ExcludeRequestBody = true // a media type the validator cannot read (CBOR)
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 400, "message": err.Error()})
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if hook != nil {
		hook(w, r)
		return
	}
	status, media, value := response(found.op)
	if media == "" {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", media)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(value)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// response is the first 2xx response of op: its status, JSON media type
// ("" for none) and value.
func response(op *openapi3.Operation) (int, string, any) {
	if op.Responses == nil {
		return http.StatusOK, "", nil
	}
	for code := 200; code < 300; code++ {
		ref := op.Responses.Value(fmt.Sprint(code))
		if ref == nil || ref.Value == nil {
			continue
		}
		for _, media := range sortedMedia(ref.Value.Content) {
			mt := ref.Value.Content[media]
			if !strings.Contains(media, "json") && media != "*/*" {
				continue
			}
			if media == "*/*" {
				media = "application/json"
			}
			if conforms(mt.Schema, mt.Example) {
				return code, media, mt.Example
			}
			for _, name := range sortedKeys(mt.Examples) {
				if ex := mt.Examples[name]; ex != nil && ex.Value != nil && conforms(mt.Schema, ex.Value.Value) {
					return code, media, ex.Value.Value
				}
			}
			return code, media, Value(mt.Schema)
		}
		return code, "", nil
	}
	return http.StatusOK, "", nil
}

func sortedMedia(c openapi3.Content) []string {
	keys := sortedKeys(c)
	// application/json first.
	slices.SortStableFunc(keys, func(a, b string) int {
		return boolInt(b == "application/json") - boolInt(a == "application/json")
	})
	return keys
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// conforms reports whether the example v (nil: none) is valid against
// the schema: real-world documents carry examples that are not.
func conforms(sr *openapi3.SchemaRef, v any) bool {
	if v == nil {
		return false
	}
	if sr == nil || sr.Value == nil {
		return true
	}
	// Through JSON: YAML gives integers where the validator wants float64.
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var j any
	if json.Unmarshal(b, &j) != nil {
		return false
	}
	// FailFast: only whether it conforms counts here, and the reasons it
	// does not (a oneOf's formats each member's) are most of the cost.
	return sr.Value.VisitJSON(j, openapi3.FailFast()) == nil
}

// Value makes a value that conforms to the schema (as far as a made-up
// value can): its example (when valid) or default when it has one, the first enum value, the first member of oneOf/anyOf, every
// property of an object (to a depth of 4), one item of an array (or
// minItems), a string of its format or, for a pattern, the first of a
// few common strings ("1", "abc", "#ffffff", …) that matches it. An
// optional property whose made-up value does not conform is left out.
func Value(sr *openapi3.SchemaRef) any { return value(sr, 0) }

func value(sr *openapi3.SchemaRef, depth int) any {
	if sr == nil || sr.Value == nil || depth > 8 {
		return nil
	}
	if v, ok := givenValue(sr, depth); ok {
		return v
	}
	s := sr.Value
	switch valueType(s) {
	case "object":
		return objectValue(s, depth)
	case "array":
		return arrayValue(s, depth)
	case "integer":
		if s.Min != nil {
			return int64(*s.Min) + 1
		}
		return 1
	case "number":
		if s.Min != nil {
			return *s.Min + 1
		}
		return 1.5
	case "boolean":
		return true
	case "string":
		return stringValue(s)
	}
	return nil
}

// valueType is the type of the values value makes for s: its first type
// other than null, or object when it has none but has properties.
func valueType(s *openapi3.Schema) string {
	if s.Type != nil {
		for _, t := range *s.Type {
			if t != "null" {
				return t
			}
		}
	}
	if len(s.Properties) > 0 {
		return "object"
	}
	return ""
}

// arrayValue makes an array of s's items: one, or minItems, each distinct
// when the items must be unique.
func arrayValue(s *openapi3.Schema, depth int) []any {
	n := max(1, int(s.MinItems))
	list := make([]any, 0, n)
	for i := range n {
		v := value(s.Items, depth+1)
		if s.UniqueItems {
			v = distinct(v, i)
		}
		list = append(list, v)
	}
	return list
}

// givenValue is the value the schema names (an example that fits, the
// default, the first of an enum, the const) or that one of its
// combinations makes; false when it names none.
func givenValue(sr *openapi3.SchemaRef, depth int) (any, bool) {
	s := sr.Value
	switch {
	case conforms(sr, s.Example):
		return s.Example, true
	case len(s.Examples) > 0 && conforms(sr, s.Examples[0]):
		return s.Examples[0], true
	case s.Default != nil:
		return s.Default, true
	case len(s.Enum) > 0:
		return s.Enum[0], true
	case s.Const != nil:
		return s.Const, true
	case len(s.OneOf) > 0:
		return firstConforming(sr, s.OneOf, depth), true
	case len(s.AnyOf) > 0:
		return firstConforming(sr, s.AnyOf, depth), true
	case len(s.AllOf) > 0:
		obj := map[string]any{}
		for _, part := range s.AllOf {
			switch v := value(part, depth+1).(type) {
			case map[string]any:
				for k, x := range v {
					obj[k] = x
				}
			case nil:
			default:
				return v, true // an allOf that names a scalar (an enum) is that scalar
			}
		}
		return obj, true
	}
	return nil, false
}

// objectValue makes an object: its properties' values (beyond depth 4
// only the required ones; an optional one whose value does not fit is
// left out), and keys up to minProperties.
func objectValue(s *openapi3.Schema, depth int) map[string]any {
	obj := map[string]any{}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if depth >= 4 && !slices.Contains(s.Required, name) {
			continue
		}
		if p != nil && p.Value != nil && p.Value.WriteOnly {
			continue
		}
		v := value(p, depth+1)
		if !slices.Contains(s.Required, name) && !conforms(p, v) {
			continue // an optional property whose made-up value does not fit is left out
		}
		obj[name] = v
	}
	if ap := s.AdditionalProperties.Schema; ap != nil {
		for i := 1; uint64(len(obj)) < s.MinProps; i++ {
			obj[fmt.Sprintf("key%d", i)] = value(ap, depth+1)
		}
	}
	return obj
}

// stringCandidates are the strings stringValue tries against a pattern,
// after the one of the schema's format: identifiers (Discord's
// snowflakes, ^(0|[1-9][0-9]*)$), words, colours, dates, codes.
var stringCandidates = []string{"string", "1", "0", "abc", "a", "A", "ABC", "a1", "#ffffff", "#fff",
	"2024-01-02", "2024-01-02T03:04:05Z", "user@example.com", "https://example.com/",
	"3fa85f64-5717-4562-b3fc-2c963f66afa6", "en-US", "abc_123", "a-b"}

// formatStrings is a string of each format stringValue knows.
var formatStrings = map[string]string{
	"date-time": "2024-01-02T03:04:05Z",
	"date":      "2024-01-02",
	"uuid":      "3fa85f64-5717-4562-b3fc-2c963f66afa6",
	"email":     "user@example.com",
	"uri":       "https://example.com/",
	"url":       "https://example.com/",
}

// stringValue is a string of s's format, or one that matches its pattern
// within its length bounds; a pattern that no candidate matches (or that
// Go's regexp cannot compile) gets the format's string all the same.
func stringValue(s *openapi3.Schema) string {
	str, ok := formatStrings[s.Format]
	if !ok {
		str = "string"
	}
	fits := func(c string) bool {
		n := uint64(len([]rune(c)))
		return n >= s.MinLength && (s.MaxLength == nil || n <= *s.MaxLength)
	}
	var re *regexp.Regexp
	if s.Pattern != "" {
		re, _ = regexp.Compile(s.Pattern) // nil: a pattern Go cannot compile is not followed
	}
	matches := func(c string) bool { return re == nil || re.MatchString(c) }
	if !matches(str) || !fits(str) {
		for _, c := range stringCandidates {
			if matches(c) && fits(c) {
				return c
			}
		}
	}
	if s.MinLength > uint64(len(str)) {
		str = strings.Repeat("s", int(s.MinLength))
	}
	return str
}

// firstConforming is the value of the first member of a oneOf or anyOf
// whose value conforms to the whole schema (a oneOf's value must match
// only one member); none: the first member's.
func firstConforming(sr *openapi3.SchemaRef, members openapi3.SchemaRefs, depth int) any {
	first := value(members[0], depth+1)
	if conforms(sr, first) {
		return first
	}
	for _, m := range members[1:] {
		if v := value(m, depth+1); conforms(sr, v) {
			return v
		}
	}
	return first
}

// distinct makes the i-th item of an array with uniqueItems differ from
// the others: a number plus i, a decimal string counted up from its
// value, another string with i appended.
func distinct(v any, i int) any {
	if i == 0 {
		return v
	}
	switch x := v.(type) {
	case int64:
		return x + int64(i)
	case int:
		return x + i
	case float64:
		return x + float64(i)
	case string:
		if n, err := strconv.ParseUint(x, 10, 63); err == nil {
			return strconv.FormatUint(n+uint64(i), 10)
		}
		return x + strconv.Itoa(i)
	}
	return v
}
