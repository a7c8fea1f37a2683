package openapi_test

import (
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/internal/blockfrost"
	"github.com/mcpchain/mcp/openapi/openapitest"
)

// TestBlockfrostCalls: every operation of a real-world document
// (Blockfrost, 129 operations, see testdata/README.md) registers as a
// tool (at run time and generated) and, called with arguments made from its parameters' schemas,
// sends a request the mock (which validates it against the same
// document) accepts, and maps the answer.
func TestBlockfrostCalls(t *testing.T) {
	t.Parallel()
	spec := readSpec(t, "blockfrost.yaml")
	doc, err := openapi.LoadLenient(spec)
	require.NoError(t, err)
	mock := openapitest.NewServer(doc)
	t.Cleanup(mock.Close)
	for _, kind := range []string{"runtime", "generated"} {
		t.Run(kind, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Options{Name: "bf", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			if kind == "runtime" {
				require.NoError(t, openapi.RegisterDoc(srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}))
			} else {
				blockfrost.Register(srv, mock.Client(), mock.BaseURL())
			}
			callEveryOperation(t, doc, srv)
		})
	}
}

func callEveryOperation(t *testing.T, doc *openapi3.T, srv *mcp.Server) {
	s := mcptest.NewSession(t, srv, nil)
	tools := s.ListTools()
	require.Len(t, tools, 129)
	failed := 0
	forEachOperation(t, doc, tools, func(method, path, name string, args map[string]any) {
		r := s.CallTool(name, args, nil)
		if r.IsError {
			failed++
			t.Errorf("%s %s (%s): %s", method, path, name, text(t, r))
		}
	})
	require.Zero(t, failed)
}

// forEachOperation calls f with each operation of doc (in path, then
// method order), the name of its tool and arguments made from the
// schemas of its required (and path) parameters and of its required
// body.
func forEachOperation(t *testing.T, doc *openapi3.T, tools []mcp.Tool, f func(method, path, name string, args map[string]any)) {
	for _, path := range doc.Paths.Keys() {
		ops := doc.Paths.Value(path).Operations()
		for _, method := range sorted(slices.Collect(maps.Keys(ops))) {
			op := ops[method]
			args := map[string]any{}
			for _, p := range append(op.Parameters, doc.Paths.Value(path).Parameters...) {
				if p.Value.Required || p.Value.In == "path" {
					args[p.Value.Name] = openapitest.Value(p.Value.Schema)
				}
			}
			if rb := op.RequestBody; rb != nil && rb.Value.Required {
				body := hasBodyArg(t, tools, op.OperationID, method, path)
				for media, mt := range rb.Value.Content {
					v := openapitest.Value(mt.Schema)
					if m, ok := v.(map[string]any); ok && media == "application/json" && !body {
						for k, x := range m {
							args[k] = x // flattened
						}
					} else if body {
						args["body"] = v
					} // else a media type the tool cannot send (multipart): no argument
				}
			}
			name := op.OperationID // ipfs_add
			if name == "" {
				name = toolNameOf(t, tools, method, path)
			}
			f(method, path, name, args)
		}
	}
}

// hasBodyArg says whether the tool of an operation takes its body under
// the key "body" rather than flattened.
func hasBodyArg(t *testing.T, tools []mcp.Tool, id, method, path string) bool {
	name := id
	if name == "" {
		name = toolNameOf(t, tools, method, path)
	}
	for _, tl := range tools {
		if tl.Name == name {
			_, ok := tl.InputSchema.Properties["body"]
			return ok
		}
	}
	t.Fatalf("no tool %q", name)
	return false
}
