package openapi_test

import (
	"bytes"
	"flag"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/internal/blockfrost"
)

var update = flag.Bool("update", false, "rewrite the golden files of the generated code")

// TestGenerateGolden: the generated code for the Petstore and for
// Blockfrost is the committed code (go test -update rewrites it), which
// the build compiles (and go vet checks) as the packages
// openapi/internal/petstore and openapi/internal/blockfrost.
func TestGenerateGolden(t *testing.T) {
	for _, tc := range []struct {
		spec, pkg string
		lenient   bool
	}{
		{"petstore-expanded.yaml", "petstore", false},
		{"blockfrost.yaml", "blockfrost", true},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			files, err := openapi.Generate(readSpec(t, tc.spec), openapi.GenOptions{Package: tc.pkg, Lenient: tc.lenient})
			require.NoError(t, err)
			require.Len(t, files, 1)
			src := files["openapi_gen.go"]
			require.True(t, bytes.HasPrefix(src, []byte(openapi.GenHeader+"\n")), "header")
			_, err = parser.ParseFile(token.NewFileSet(), "x.go", src, parser.ParseComments)
			require.NoError(t, err)
			again, err := openapi.Generate(readSpec(t, tc.spec), openapi.GenOptions{Package: tc.pkg, Lenient: tc.lenient})
			require.NoError(t, err)
			require.Equal(t, string(src), string(again["openapi_gen.go"]), "deterministic")
			golden := "internal/" + tc.pkg + "/openapi_gen.go"
			if *update {
				require.NoError(t, os.WriteFile(golden, src, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), string(src), "%s is stale: go test -run TestGenerateGolden -update ./openapi", golden)
		})
	}
}

// TestGeneratedBlockfrostRegisters: the generated Blockfrost tools (129
// operations) register (their struct tags are all valid) with the same
// names as at run time.
func TestGeneratedBlockfrostRegisters(t *testing.T) {
	gen := mcp.NewServer(mcp.Options{Name: "bf", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	blockfrost.Register(gen, nil, "http://127.0.0.1:1")
	run := mcp.NewServer(mcp.Options{Name: "bf", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.Register(run, readSpec(t, "blockfrost.yaml"), openapi.Options{Lenient: true}))
	var genNames, runNames []string
	for _, tl := range gen.ListTools(t.Context(), nil) {
		genNames = append(genNames, tl.Name)
	}
	for _, tl := range run.ListTools(t.Context(), nil) {
		runNames = append(runNames, tl.Name)
	}
	require.Len(t, genNames, 129)
	require.Equal(t, sorted(runNames), sorted(genNames))
	// One operation has an operationId; the others are named from their
	// method and path.
	require.Contains(t, genNames, "ipfs_add")
	require.Contains(t, genNames, "get_accounts_stake_address_addresses")
	require.Contains(t, genNames, "get", "GET /")
}

// TestGenerateTags: what the generated fields carry for the keywords of
// their schemas.
func TestGenerateTags(t *testing.T) {
	spec := []byte(`openapi: 3.0.3
info: {title: tags, version: "1"}
servers: [{url: "http://127.0.0.1:1"}]
paths:
  /s/{kind}:
    post:
      operationId: search things
      parameters:
        - {name: kind, in: path, required: true, schema: {type: string, enum: [a, b]}}
        - {name: limit, in: query, description: "limit=how many", schema: {type: integer, minimum: 1, maximum: 100, default: 10}}
        - {name: since, in: query, description: "a ` + "`" + `quoted` + "`" + ` time", schema: {type: string, format: date-time}}
        - {name: code, in: header, required: true, schema: {type: string, minLength: 2, pattern: "^[a-z]{2,8}$"}}
        - {name: ids, in: query, schema: {type: array, items: {type: integer}, minItems: 1, uniqueItems: true}}
      requestBody:
        content:
          application/json:
            schema: {type: array, items: {type: object, properties: {x: {type: number, exclusiveMinimum: true, minimum: 0}}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, required: [n], properties: {n: {type: integer}, names: {type: array, items: {type: string}}}}
`)
	files, err := openapi.Generate(spec, openapi.GenOptions{Package: "x"})
	require.NoError(t, err)
	src := string(files["openapi_gen.go"])
	for _, want := range []string{
		"type SearchThingsInput struct {",
		"Kind  string ",
		"`json:\"kind\" enum:\"a,b\"`",
		"Limit *int64",
		`jsonschema:" limit=how many" default:"10" mcp:"minimum=1,maximum=100"`, // "WORD=" would be refused
		`"json:\"since,omitempty\" jsonschema:\"a ` + "`quoted`" + ` time\" mcp:\"format=date-time\""`,
		`mcp:"minLength=2,pattern=^[a-z]{2,8}$"`,
		"Ids   []int64",
		`mcp:"minItems=1,uniqueItems"`,
		"Body  []SearchThingsBodyItem `json:\"body,omitempty\"`",
		"X *float64 `json:\"x,omitempty\" mcp:\"exclusiveMinimum=0\"`",
		"type SearchThingsOutput struct {",
		"N     int64    `json:\"n\"`",
		"Names []string `json:\"names,omitempty\"`",
		"func handleSearchThings(c *http.Client, baseURL string) mcp.ToolFunc[SearchThingsInput, *SearchThingsOutput] {",
		`mcp.AddTool(srv, mcp.Tool{Name: "search_things"}, handleSearchThings(c, baseURL))`,
	} {
		require.Contains(t, src, want)
	}
}
