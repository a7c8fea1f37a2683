package openapi_test

import (
	"log/slog"
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
	for _, path := range doc.Paths.Keys() {
		for method, op := range doc.Paths.Value(path).Operations() {
			args := map[string]any{}
			for _, p := range append(op.Parameters, doc.Paths.Value(path).Parameters...) {
				if p.Value.Required || p.Value.In == "path" {
					args[p.Value.Name] = openapitest.Value(p.Value.Schema)
				}
			}
			if rb := op.RequestBody; rb != nil && rb.Value.Required {
				for media, mt := range rb.Value.Content {
					switch v := openapitest.Value(mt.Schema).(type) {
					case map[string]any:
						if media == "application/json" {
							for k, x := range v {
								args[k] = x // flattened
							}
							continue
						}
						args["body"] = v
					default:
						args["body"] = v
					}
				}
			}
			name := op.OperationID // ipfs_add
			if name == "" {
				name = toolNameOf(t, tools, method, path)
			}
			r := s.CallTool(name, args)
			if r.IsError {
				failed++
				t.Errorf("%s %s (%s): %s", method, path, name, text(t, r))
			}
		}
	}
	require.Zero(t, failed)
}
