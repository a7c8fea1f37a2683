package openapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/openapi"
)

func text(t *testing.T, r *mcp.ContentResult) string {
	t.Helper()
	require.NotEmpty(t, r.Content)
	return r.Content[0].(mcp.TextContent).Text
}

// TestErrorMapping: what the API answers becomes the tool's result.
func TestErrorMapping(t *testing.T) {
	srv, mock := petstoreServer(t, openapi.Options{MaxErrorExcerpt: 40})
	s := mcptest.NewSession(t, srv, nil)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		isError bool
		want    []string
		struc   bool
	}{
		{"404 JSON", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			w.Write([]byte(`{"code":404,"message":"no such pet"}`))
		}, true, []string{"GET /pets/{id}: the API answered 404 Not Found:", `"no such pet"`}, false},
		{"500 long body bounded", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(500)
			w.Write([]byte(strings.Repeat("x", 5000)))
		}, true, []string{"500 Internal Server Error", "… (5000 bytes in all)"}, false},
		{"200 JSON object", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write([]byte(`{"id":1,"name":"Rex"}`))
		}, false, []string{`{"id":1,"name":"Rex"}`}, true},
		{"200 without JSON for an object schema", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(`Rex`))
		}, true, []string{"no JSON object", "Rex"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mock.Handle("find pet by id", tc.handler)
			r := s.CallTool("find_pet_by_id", map[string]any{"id": 1}, nil)
			require.Equal(t, tc.isError, r.IsError, text(t, r))
			for _, w := range tc.want {
				require.Contains(t, text(t, r), w)
			}
			if !tc.isError {
				require.Less(t, len(text(t, r)), 200)
			} else {
				require.Less(t, len(text(t, r)), 200, "the excerpt is bounded")
			}
			require.Equal(t, tc.struc, r.StructuredContent != nil)
		})
	}
}

// TestTimeout: an API slower than Options.Timeout is a tool error naming
// the limit, and the call returns at the limit.
func TestTimeout(t *testing.T) {
	srv, mock := petstoreServer(t, openapi.Options{Timeout: 100 * time.Millisecond})
	release := make(chan struct{})
	defer close(release)
	mock.Handle("findPets", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	s := mcptest.NewSession(t, srv, nil)
	start := time.Now()
	r := s.CallTool("findPets", map[string]any{}, nil)
	require.True(t, r.IsError)
	require.Contains(t, text(t, r), "GET /pets: no answer within 100ms")
	require.Less(t, time.Since(start), 5*time.Second)
}

// TestHeaderForwarding: nothing of the MCP caller reaches the API by
// default; Options.Headers adds what it returns.
func TestHeaderForwarding(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(context.Context, *mcp.Context) http.Header
		want string
	}{
		{"default", nil, ""},
		{"from the MCP context", func(_ context.Context, c *mcp.Context) http.Header {
			return http.Header{"X-Mcp-Client": {c.Client.Name}}
		}, "mcptest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, mock := petstoreServer(t, openapi.Options{Headers: tc.fn})
			s := mcptest.NewSession(t, srv, nil)
			r := s.CallTool("findPets", map[string]any{}, nil)
			require.False(t, r.IsError, text(t, r))
			h := mock.Last().Header
			require.Equal(t, tc.want, h.Get("X-Mcp-Client"))
			require.Empty(t, h.Get("Authorization"))
			require.Empty(t, h.Get("Mcp-Session-Id"))
		})
	}
}

// TestRoutes: ordered route rules make resources, templates, exclusions;
// the first match decides.
func TestRoutes(t *testing.T) {
	srv, mock := petstoreServer(t, openapi.Options{Routes: []openapi.Route{
		{Methods: []string{"get"}, Path: `^/pets$`, Kind: openapi.RouteResource},
		{Methods: []string{"GET"}, Path: `\{id\}`, Kind: openapi.RouteResourceTemplate},
		{Methods: []string{"DELETE"}, Kind: openapi.RouteExclude},
		{Methods: []string{"DELETE"}, Kind: openapi.RouteTool}, // never reached
	}})
	ctx := t.Context()
	var tools []string
	for _, tl := range srv.ListTools(ctx, nil) {
		tools = append(tools, tl.Name)
	}
	require.Equal(t, []string{"addPet"}, tools)
	s := mcptest.NewSession(t, srv, nil)
	res := s.ListResources()
	require.Len(t, res, 1)
	require.Equal(t, "openapi://pets", res[0].URI)
	require.Equal(t, "findPets", res[0].Name)
	require.Equal(t, "application/json", res[0].MIMEType)
	tpl := s.ListResourceTemplates()
	require.Len(t, tpl, 1)
	require.Equal(t, "openapi://pets/{id}", tpl[0].URITemplate)

	r := s.ReadResource("openapi://pets/42")
	require.Len(t, r.Contents, 1)
	require.Equal(t, "/api/pets/42", mock.Last().Path)
	require.Contains(t, r.Contents[0].Text, `"name"`)
	r = s.ReadResource("openapi://pets")
	require.Equal(t, "/api/pets", mock.Last().Path)
	require.True(t, strings.HasPrefix(r.Contents[0].Text, "["))

	// A non-2xx answer to a read is an error of resources/read, with the
	// status.
	mock.Handle("findPets", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("down for maintenance"))
	})
	c := clients(t, srv)["inprocess"]
	_, err := c.ReadResource(ctx, "openapi://pets")
	require.Error(t, err)
	require.Contains(t, err.Error(), "503")
}

// TestRouteTags: a route's tags must all be on the operation.
func TestRouteTags(t *testing.T) {
	spec := []byte(`openapi: 3.0.0
info: {title: t, version: "1"}
servers: [{url: "http://127.0.0.1:1"}]
paths:
  /a: {get: {operationId: a, tags: [admin, internal], responses: {"200": {description: ok}}}}
  /b: {get: {operationId: b, tags: [admin], responses: {"200": {description: ok}}}}
  /c: {get: {operationId: c, responses: {"200": {description: ok}}}}
`)
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.Register(srv, spec, openapi.Options{Routes: []openapi.Route{
		{Tags: []string{"admin", "internal"}, Kind: openapi.RouteExclude},
	}}))
	var tools []string
	for _, tl := range srv.ListTools(t.Context(), nil) {
		tools = append(tools, tl.Name)
	}
	require.Equal(t, []string{"b", "c"}, sorted(tools))
}

// TestRegisterErrors: a bad document, route or option is a registration
// error naming it, and nothing is registered.
func TestRegisterErrors(t *testing.T) {
	pet := string(readSpec(t, "petstore-expanded.yaml"))
	for _, tc := range []struct {
		name, spec string
		opts       openapi.Options
		want       string
	}{
		{"empty", "", openapi.Options{}, "empty document"},
		{"not YAML", "{{{", openapi.Options{}, "openapi:"},
		{"Swagger 2.0", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n", openapi.Options{}, "not an OpenAPI 3 document"},
		{"invalid", "openapi: 3.0.0\ninfo: {title: t}\npaths: {}\n", openapi.Options{}, "invalid document"},
		{"external ref", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'http://example.com/x.yaml'}\n", openapi.Options{}, "openapi:"},
		{"no server", strings.Replace(pet, "servers:\n  - url: http://petstore.swagger.io/api\n", "", 1), openapi.Options{}, "names no server"},
		{"bad route pattern", pet, openapi.Options{Routes: []openapi.Route{{Path: "("}}}, "route 0: path pattern"},
		{"bad route method", pet, openapi.Options{Routes: []openapi.Route{{Methods: []string{"FETCH"}}}}, `route 0: method 0: "FETCH"`},
		{"resource for POST", pet, openapi.Options{Routes: []openapi.Route{{Path: "^/pets$", Kind: openapi.RouteResource}}},
			"maps POST /pets to a resource: only GET"},
		{"resource with path params", pet, openapi.Options{Routes: []openapi.Route{{Methods: []string{"GET"}, Kind: openapi.RouteResource}}},
			"GET /pets/{id} to a resource, but it has path parameters"},
		{"template without", pet, openapi.Options{Routes: []openapi.Route{{Methods: []string{"GET"}, Kind: openapi.RouteResourceTemplate}}},
			"GET /pets to a resource template, but it has no path parameters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			err := openapi.Register(srv, []byte(tc.spec), tc.opts)
			require.ErrorContains(t, err, tc.want)
			require.Empty(t, srv.ListTools(t.Context(), nil))
		})
	}
	// A name taken by a tool already on the server: everything this
	// Register added is taken back.
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddRawTool(mcp.Tool{Name: "findPets"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) { return nil, nil })
	err := openapi.Register(srv, []byte(pet), openapi.Options{})
	require.ErrorContains(t, err, "GET /pets")
	require.Len(t, srv.ListTools(t.Context(), nil), 1)
}

// TestOpenAPI31Call: a 3.1 document (type arrays, numeric exclusive
// bounds) registers and its tool validates and calls.
func TestOpenAPI31Call(t *testing.T) {
	spec := []byte(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /items/{n}:
    get:
      operationId: getItem
      parameters:
        - {name: n, in: path, required: true, schema: {type: integer, exclusiveMinimum: 0}}
        - {name: note, in: query, schema: {type: [string, "null"]}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, required: [n], properties: {n: {type: integer}, note: {type: [string, "null"]}}}
`)
	doc, err := openapi.Load(spec)
	require.NoError(t, err)
	mock := newMock(t, doc)
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.RegisterDoc(srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}))
	s := mcptest.NewSession(t, srv, nil)
	r := s.CallTool("getItem", map[string]any{"n": 3, "note": "hi"}, nil)
	require.False(t, r.IsError, text(t, r))
	require.Equal(t, "/items/3", mock.Last().Path)
	require.Equal(t, "note=hi", mock.Last().Query)
	r = s.CallTool("getItem", map[string]any{"n": 0}, nil)
	require.True(t, r.IsError)
	require.Contains(t, text(t, r), "n")

	// As a resource template, the query parameters are a {?…} form query.
	srv = mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.RegisterDoc(srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client(),
		URIPrefix: "items+api://", Routes: []openapi.Route{{Path: "^/items/", Kind: openapi.RouteResourceTemplate}}}))
	ts := mcptest.NewSession(t, srv, nil)
	tpl := ts.ListResourceTemplates()
	require.Len(t, tpl, 1)
	require.Equal(t, "items+api://items/{n}{?note}", tpl[0].URITemplate)
	rr := ts.ReadResource("items+api://items/5?note=x%20y")
	require.Equal(t, "/items/5", mock.Last().Path)
	require.Equal(t, "note=x+y", mock.Last().Query)
	require.Contains(t, rr.Contents[0].Text, `"n"`)
}

func TestAnnotations(t *testing.T) {
	srv, _ := petstoreServer(t, openapi.Options{})
	for _, tl := range srv.ListTools(t.Context(), nil) {
		a := tl.Annotations
		switch tl.Name {
		case "findPets", "find_pet_by_id":
			require.True(t, a.ReadOnlyHint, tl.Name)
			require.Nil(t, a.DestructiveHint, tl.Name)
		case "deletePet":
			require.True(t, *a.DestructiveHint)
			require.True(t, a.IdempotentHint)
		case "addPet":
			require.Nil(t, a, "POST: no hint")
		}
	}
	spec := []byte(`openapi: 3.0.0
info: {title: t, version: "1"}
servers: [{url: "http://127.0.0.1:1"}]
paths:
  /a: {put: {operationId: put, responses: {"200": {description: ok}}}, patch: {operationId: patch, responses: {"200": {description: ok}}}}
`)
	srv = mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.Register(srv, spec, openapi.Options{}))
	for _, tl := range srv.ListTools(t.Context(), nil) {
		if tl.Name == "put" {
			require.True(t, tl.Annotations.IdempotentHint)
			require.False(t, tl.Annotations.ReadOnlyHint)
		} else {
			require.Nil(t, tl.Annotations)
		}
	}
}

// TestLenient: a real-world document that breaks a rule of its version is
// refused by default, naming the way around, and loads when lenient.
func TestLenient(t *testing.T) {
	spec := readSpec(t, "blockfrost.yaml")
	_, err := openapi.Load(spec)
	require.ErrorContains(t, err, `unsupported 'type' value "null"`)
	require.ErrorContains(t, err, "Lenient")
	doc, err := openapi.LoadLenient(spec)
	require.NoError(t, err)
	require.Equal(t, "3.0.3", doc.OpenAPI)
	_, err = openapi.Generate(spec, openapi.GenOptions{})
	require.ErrorContains(t, err, "Lenient")
}
