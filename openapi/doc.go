// Package openapi turns the operations of an OpenAPI 3.0 or 3.1 document
// into MCP tools, resources and resource templates that call the API: at
// run time with [Register], or as typed Go source with [Generate].
//
// # Run time
//
// [Register] loads the document (YAML or JSON; $refs inside the document
// are resolved, external ones refused), and for each operation, in path
// then method order, applies the first matching [Route] of
// [Options.Routes] (none matching: a tool). A tool:
//
//   - is named by the operationId, made a valid MCP tool name (characters
//     other than A-Z a-z 0-9 _ - . become _, at most 128); an operation
//     without one is named from its method and path ("get_pets_id" for
//     GET /pets/{id}); a name already taken gets _2, _3, … in that order;
//   - is described by the summary and the description (joined by a blank
//     line);
//   - takes one object: each path, query, header and cookie parameter under
//     its name (a name used twice, as a path and a header parameter say,
//     is prefixed by its location: "header_id"), and the JSON request body
//     flattened into the object when it is an object schema whose property
//     names collide with no parameter, else under [Options.BodyKey]
//     ("body");
//   - has an output schema when its first 2xx response is an object in
//     JSON (MCP output schemas must be objects);
//   - has the annotations its method implies: GET read-only, DELETE
//     destructive, PUT idempotent.
//
// A call builds the HTTP request (path parameters in simple style, query
// in form style, the body as JSON), validates it against the document with
// kin-openapi's openapi3filter (a bad argument is a tool error naming it),
// and sends it through [Options.Client] to [Options.BaseURL] (by default
// the first server of the document) within [Options.Timeout]. Nothing of
// the MCP caller's request reaches the API unless [Options.Headers] adds
// it. A 2xx JSON object answer becomes structuredContent and its text; any
// other 2xx answer its text; any other status an isError result naming the
// status with a bounded excerpt of the body.
//
// # Generated
//
// [Generate] writes the same tools as Go source: an input struct per
// operation whose tags carry the schema mcpchain infers (json, enum,
// default, `mcp:"…"` keywords), an output struct when the response is an
// object, a handler that builds the HTTP request from the struct, and one
// Register function.
package openapi
