package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ id, method, path, want string }{
		{"findPets", "GET", "/pets", "findPets"},
		{"find pet by id", "GET", "/pets/{id}", "find_pet_by_id"},
		{"  users/{id}::get ", "GET", "/x", "users_id_get"},
		{"a.b-c_d", "GET", "/x", "a.b-c_d"},
		{"", "GET", "/pets/{id}", "get_pets_id"},
		{"", "DELETE", "/", "delete"},
		{"", "POST", "/v1/accounts/{account}/bank_accounts", "post_v1_accounts_account_bank_accounts"},
		{"!!!", "PUT", "/a", "put_a"},
		{string(make([]byte, 0)) + "x" + string(make([]rune, 0)) + stringsRepeat("y", 200), "GET", "/", "x" + stringsRepeat("y", 127)},
	} {
		require.Equal(t, tc.want, toolName(tc.id, tc.method, tc.path), "%q %s %s", tc.id, tc.method, tc.path)
	}
}

func stringsRepeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestUniqueName(t *testing.T) {
	taken := map[string]bool{}
	var got []string
	for _, n := range []string{"a", "a", "b", "a", "a_2"} {
		got = append(got, uniqueName(n, taken))
	}
	require.Equal(t, []string{"a", "a_2", "b", "a_3", "a_2_2"}, got)
	long := stringsRepeat("z", 128)
	require.Equal(t, long, uniqueName(long, taken))
	second := uniqueName(long, taken)
	require.Len(t, second, 128)
	require.Equal(t, "_2", second[126:])
}

const schemaSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "http://api.example.com/v1"}]
paths:
  /things/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer, minimum: 1, exclusiveMinimum: true}}
    put:
      operationId: putThing
      parameters:
        - {name: id, in: header, schema: {type: string}}
        - {name: q, in: query, description: "the query", schema: {type: string, nullable: true, maxLength: 5, pattern: "^[a-z]+$", format: int64}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Thing"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Thing"}
  /things:
    post:
      operationId: makeThings
      requestBody:
        content:
          application/json:
            schema: {type: array, items: {$ref: "#/components/schemas/Thing"}}
      responses:
        "201":
          description: made
          content:
            application/json:
              schema: {type: array, items: {type: string}}
    get:
      operationId: listThings
      parameters:
        - {name: tags, in: query, explode: false, schema: {type: array, items: {type: string}}}
        - {name: filter, in: query, style: deepObject, schema: {type: object, properties: {a: {type: string}, b: {type: integer}}}}
        - {name: session, in: cookie, schema: {type: string}}
        - {name: X-Trace, in: header, schema: {type: string}}
      responses:
        "200": {description: ok}
components:
  schemas:
    Thing:
      allOf:
        - $ref: "#/components/schemas/Base"
        - type: object
          required: [name]
          properties:
            name: {type: string, enum: [a, b]}
            secret: {type: string, writeOnly: true}
            child: {$ref: "#/components/schemas/Thing"}
    Base:
      type: object
      properties:
        id: {type: integer, format: int64, readOnly: true}
`

func planned(t *testing.T, spec string) map[string]*operation {
	t.Helper()
	doc, err := Load([]byte(spec))
	require.NoError(t, err)
	ops, err := operations(doc, DefaultBodyKey)
	require.NoError(t, err)
	out := map[string]*operation{}
	for _, o := range ops {
		out[o.name] = o
	}
	return out
}

func schemaJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestSchemas: the input and output schemas made of parameters, bodies
// and responses.
func TestSchemas(t *testing.T) {
	ops := planned(t, schemaSpec)
	put := ops["putThing"]
	// A path and a header parameter both named id: the header one is
	// prefixed. The body (an allOf of objects, merged) collides with
	// neither and is flattened; readOnly id is left out of the input;
	// a recursive property becomes true (any value); exclusiveMinimum: true moves the
	// bound; the nullable q admits null; the OpenAPI format int64 and
	// (not a JSON Schema format) is dropped.
	require.JSONEq(t, `{"type":"object","required":["id","name"],"properties":{
		"id":{"type":"integer","exclusiveMinimum":1},
		"q":{"type":["string","null"],"description":"the query","maxLength":5,"pattern":"^[a-z]+$"},
		"header_id":{"type":"string"},
		"name":{"type":"string","enum":["a","b"]},
		"secret":{"type":"string"},
		"child":true}}`,
		schemaJSON(t, put.input))
	// The output leaves out writeOnly and keeps readOnly.
	require.JSONEq(t, `{"type":"object","required":["name"],"properties":{
		"id":{"type":"integer"},
		"name":{"type":"string","enum":["a","b"]},
		"child":true}}`,
		schemaJSON(t, put.output))
	require.Empty(t, put.body.key, "flattened")

	// An array body goes under "body"; an array answer is no output
	// schema.
	mk := ops["makeThings"]
	require.Equal(t, "body", mk.body.key)
	require.Equal(t, "array", mk.input.Properties["body"].Type)
	require.NotContains(t, mk.input.Required, "body", "the body is optional")
	require.Nil(t, mk.output)
	require.Nil(t, ops["listThings"].output, "no content")
}

// TestSchemas31: an OpenAPI 3.1 document's type arrays and numeric
// exclusive bounds.
func TestSchemas31(t *testing.T) {
	ops := planned(t, `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /n:
    get:
      parameters:
        - {name: n, in: query, schema: {type: [integer, "null"], exclusiveMaximum: 10, const: 3}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {v: {type: [string, "null"]}}, additionalProperties: false}
`)
	o := ops["get_n"]
	require.JSONEq(t, `{"type":"object","properties":{"n":{"type":["integer","null"],"exclusiveMaximum":10,"const":3}}}`, schemaJSON(t, o.input))
	require.JSONEq(t, `{"type":"object","properties":{"v":{"type":["string","null"]}},"additionalProperties":false}`, schemaJSON(t, o.output))
}

// TestConvertDropsForeignPattern: a pattern Go cannot compile (ECMA
// lookahead), which only a lenient load lets through, is left out.
func TestConvertDropsForeignPattern(t *testing.T) {
	s := &openapi3.Schema{Type: &openapi3.Types{"string"}, Pattern: "^(?=a)", Format: "password"}
	require.JSONEq(t, `{"type":"string"}`, schemaJSON(t, convert(openapi3.NewSchemaRef("", s), input)))
	require.Nil(t, convert(nil, input))
}

// TestConvertDropsEmptyEnum: an empty enum (Discord's document has one
// beside the allOf that names the real one) would admit no value in JSON
// Schema, so the tool could never be called; it is left out, as the
// OpenAPI validator ignores it.
func TestConvertDropsEmptyEnum(t *testing.T) {
	s := &openapi3.Schema{Type: &openapi3.Types{"string"}, Enum: []any{}}
	out := convert(openapi3.NewSchemaRef("", s), input)
	require.Nil(t, out.Enum)
	rs, err := out.Resolve(nil)
	require.NoError(t, err)
	require.NoError(t, rs.Validate("STARTED"))
	withValues := convert(openapi3.NewSchemaRef("", &openapi3.Schema{Enum: []any{"a"}}), input)
	require.Equal(t, []any{"a"}, withValues.Enum)
}

// TestConvertBoundsSize: a schema whose inlined components multiply past
// maxSchemaNodes (40 × 40 × 5 objects here, as Discord's message object
// does) is cut at a smaller depth until it fits: the top stays exact, what
// is cut admits any value.
func TestConvertBoundsSize(t *testing.T) {
	obj := func(props map[string]*openapi3.SchemaRef) *openapi3.SchemaRef {
		return openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: props})
	}
	leaf := map[string]*openapi3.SchemaRef{}
	for i := range 5 {
		leaf[fmt.Sprintf("l%d", i)] = openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{"string"}})
	}
	mid := map[string]*openapi3.SchemaRef{}
	for i := range 40 {
		mid[fmt.Sprintf("m%d", i)] = obj(leaf)
	}
	top := map[string]*openapi3.SchemaRef{}
	for i := range 40 {
		top[fmt.Sprintf("t%d", i)] = obj(mid)
	}
	out := convert(obj(top), output)
	count := 0
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s.Type != "" {
			count++ // not a cut {}
		}
		for _, p := range s.Properties {
			walk(p)
		}
	}
	walk(out)
	require.LessOrEqual(t, count, maxSchemaNodes)
	require.Len(t, out.Properties, 40)
	require.Equal(t, "object", out.Properties["t0"].Type)
	require.Len(t, out.Properties["t0"].Properties, 40)
	require.Equal(t, &jsonschema.Schema{}, out.Properties["t0"].Properties["m0"], "cut: any value")

	// Under the bound nothing is cut.
	small := convert(obj(mid), output)
	require.Equal(t, "string", small.Properties["m0"].Properties["l0"].Type)
}

func testAPI(t *testing.T, spec string) *api {
	t.Helper()
	doc, err := Load([]byte(spec))
	require.NoError(t, err)
	a, err := newAPI(doc, Options{})
	require.NoError(t, err)
	return a
}

func (a *api) op(name string) *operation {
	for _, o := range a.ops {
		if o.name == name {
			return o
		}
	}
	return nil
}

// TestBuildRequest: arguments become the path, query, headers, cookies
// and body of the request.
func TestBuildRequest(t *testing.T) {
	a := testAPI(t, schemaSpec)
	for _, tc := range []struct {
		name, op string
		args     string
		url      string
		header   map[string]string
		body     string
	}{
		{"path escaped, header, flattened body", "putThing",
			`{"id":7,"header_id":"h 1","q":"xy","name":"a","child":{"name":"b"}}`,
			"http://api.example.com/v1/things/7?q=xy", map[string]string{"Id": "h 1", "Content-Type": "application/json"},
			`{"name":"a","child":{"name":"b"}}`},
		{"path parameter with a slash", "putThing", `{"id":"a/b","name":"a"}`,
			"http://api.example.com/v1/things/a%2Fb", nil, `{"name":"a"}`},
		{"big integer kept exact", "putThing", `{"id":12345678901234567890,"name":"a"}`,
			"http://api.example.com/v1/things/12345678901234567890", nil, `{"name":"a"}`},
		{"body under its key", "makeThings", `{"body":[{"name":"a"}]}`,
			"http://api.example.com/v1/things", map[string]string{"Content-Type": "application/json"}, `[{"name":"a"}]`},
		{"optional body left out", "makeThings", `{}`, "http://api.example.com/v1/things", nil, ""},
		{"form not exploded, deepObject, cookie, header", "listThings",
			`{"tags":["a","b c"],"filter":{"b":2,"a":"x"},"session":"s1","X-Trace":"t"}`,
			"http://api.example.com/v1/things?tags=a%2Cb+c&filter%5Ba%5D=x&filter%5Bb%5D=2",
			map[string]string{"Cookie": "session=s1", "X-Trace": "t"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, err := decodeArgs([]byte(tc.args))
			require.NoError(t, err)
			req, _, err := buildRequest(context.Background(), a.base, a.op(tc.op), args)
			require.NoError(t, err)
			require.Equal(t, tc.url, req.URL.String())
			for k, v := range tc.header {
				require.Equal(t, v, req.Header.Get(k), k)
			}
			if tc.body == "" {
				require.Nil(t, req.Body)
				return
			}
			b, err := io.ReadAll(req.Body)
			require.NoError(t, err)
			require.JSONEq(t, tc.body, string(b))
		})
	}
}

// TestBuildRequestErrors: arguments that cannot make a request name the
// argument.
func TestBuildRequestErrors(t *testing.T) {
	a := testAPI(t, schemaSpec)
	for _, tc := range []struct{ op, args, arg string }{
		{"putThing", `{"name":"a"}`, "id"},
		{"putThing", `{"id":{"a":{"b":1}},"name":"a"}`, "id"},
		{"putThing", `{"id":1,"header_id":"a\r\nX-Evil: 1","name":"a"}`, "header_id"},
		{"listThings", `{"filter":"notanobject"}`, "filter"},
		{"putThing", `{"id":"..","name":"a"}`, "id"},
		{"putThing", `{"id":".","name":"a"}`, "id"},
		{"listThings", `{"tags":[{"a":1}]}`, "tags"},
	} {
		args, err := decodeArgs([]byte(tc.args))
		require.NoError(t, err)
		_, _, err = buildRequest(context.Background(), a.base, a.op(tc.op), args)
		var ae *ArgumentError
		require.True(t, errors.As(err, &ae), "%s: %v", tc.args, err)
		require.Equal(t, tc.arg, ae.Arg, tc.args)
	}
}

// TestValidationNamesArgument: a request the document refuses (checked by
// openapi3filter) is an ArgumentError naming the argument, a parameter or
// a flattened body property alike.
func TestValidationNamesArgument(t *testing.T) {
	a := testAPI(t, schemaSpec)
	for _, tc := range []struct{ op, args, arg, reason string }{
		{"putThing", `{"id":0,"name":"a"}`, "id", "more than 1"},
		{"putThing", `{"id":"abc","name":"a"}`, "id", "integer"},
		{"putThing", `{"id":2,"name":"zzz"}`, "name", "one of"},
		{"putThing", `{"id":2,"q":"toolongvalue","name":"a"}`, "q", "length"},
		{"putThing", `{"id":2}`, "name", "name"},
		{"makeThings", `{"body":[{"name":3}]}`, "body", "/0/name: value is not one of the allowed values"},
	} {
		args, err := decodeArgs([]byte(tc.args))
		require.NoError(t, err)
		req, pp, err := buildRequest(context.Background(), a.base, a.op(tc.op), args)
		require.NoError(t, err)
		err = a.validate(req, a.op(tc.op), pp)
		var ae *ArgumentError
		require.True(t, errors.As(err, &ae), "%s: %v", tc.args, err)
		require.Equal(t, tc.arg, ae.Arg, "%s: %v", tc.args, err)
		require.Contains(t, ae.Reason, tc.reason, tc.args)
	}
}

func TestExcerpt(t *testing.T) {
	require.Equal(t, "(empty body)", excerpt(nil, 10))
	require.Equal(t, "short", excerpt([]byte(" short\n"), 10))
	got := excerpt([]byte("ééééééééé"), 5) // 2-byte runes: cut at 4
	require.Equal(t, "éé… (18 bytes in all)", got)
}

func TestBaseURL(t *testing.T) {
	for _, tc := range []struct{ servers, explicit, want, err string }{
		{`[{url: "https://x.example/api/{v}", variables: {v: {default: v2}}}]`, "", "https://x.example/api/v2", ""},
		{`[{url: "/relative"}]`, "", "", "not an absolute"},
		{`[]`, "", "", "names no server"},
		{`[]`, "http://127.0.0.1:8080/base", "http://127.0.0.1:8080/base", ""},
	} {
		doc, err := Load([]byte("openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: " + tc.servers + "\npaths: {}\n"))
		require.NoError(t, err)
		u, err := baseURL(doc, tc.explicit)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, u.String())
	}
	_ = url.URL{}
}
