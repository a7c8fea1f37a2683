package openapi_test

import (
	"bytes"
	"flag"
	"go/parser"
	"go/token"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/internal/blockfrost"
)

var update = flag.Bool("update", false, "rewrite the golden files of the generated code")

// TestGenerateGolden: the generated code for the Petstore, Blockfrost
// and Discord is the committed code (go test -update rewrites it), which
// the build compiles (and go vet checks) as the packages under
// openapi/internal. Discord's (2.2 MB) is split by GenOptions.MaxFileBytes
// into files under the repository's 1 MiB limit.
func TestGenerateGolden(t *testing.T) {
	for _, tc := range []struct {
		spec, pkg string
		lenient   bool
		maxBytes  int
		files     int
	}{
		{"petstore-expanded.yaml", "petstore", false, 0, 1},
		{"blockfrost.yaml", "blockfrost", true, 0, 1},
		{"discord.json", "discord", false, discordMaxFileBytes, 3},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			opts := openapi.GenOptions{Package: tc.pkg, Lenient: tc.lenient, MaxFileBytes: tc.maxBytes}
			files, err := openapi.Generate(readSpec(t, tc.spec), opts)
			require.NoError(t, err)
			require.Equal(t, tc.files, len(files), "files")
			again, err := openapi.Generate(readSpec(t, tc.spec), opts)
			require.NoError(t, err)
			dir := "internal/" + tc.pkg
			if *update {
				old, _ := filepath.Glob(dir + "/openapi_gen*.go")
				for _, f := range old {
					require.NoError(t, os.Remove(f))
				}
			}
			for name, src := range files {
				require.True(t, bytes.HasPrefix(src, []byte(openapi.GenHeader+"\n")), "header")
				_, err = parser.ParseFile(token.NewFileSet(), "x.go", src, parser.ParseComments)
				require.NoError(t, err)
				require.Equal(t, string(src), string(again[name]), "deterministic")
				if tc.maxBytes > 0 {
					require.LessOrEqual(t, len(src), tc.maxBytes, name)
				}
				golden := dir + "/" + name
				if *update {
					require.NoError(t, os.WriteFile(golden, src, 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err)
				require.Equal(t, string(want), string(src), "%s is stale: go test -run TestGenerateGolden -update ./openapi", golden)
			}
			committed, err := filepath.Glob(dir + "/openapi_gen*.go")
			require.NoError(t, err)
			require.Len(t, committed, len(files), "no stale generated file in %s", dir)
		})
	}
}

// discordMaxFileBytes bounds the files of the generated Discord tools,
// below the repository's limit of 1 MiB a file.
const discordMaxFileBytes = 900_000

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

// TestGenerateSplit: GenOptions.MaxFileBytes spreads the operations over
// files of at most that many bytes (one operation a file when the bound
// is below any), each importing what it uses; without it, one file.
func TestGenerateSplit(t *testing.T) {
	spec := readSpec(t, "petstore-expanded.yaml")
	one, err := openapi.Generate(spec, openapi.GenOptions{Package: "p"})
	require.NoError(t, err)
	require.Len(t, one, 1)
	for _, tc := range []struct {
		max   int
		files []string
	}{
		{1, []string{"openapi_gen.go", "openapi_gen_1.go", "openapi_gen_2.go", "openapi_gen_3.go", "openapi_gen_4.go"}},
		{1 << 20, []string{"openapi_gen.go", "openapi_gen_1.go"}},
	} {
		files, err := openapi.Generate(spec, openapi.GenOptions{Package: "p", MaxFileBytes: tc.max})
		require.NoError(t, err)
		require.Equal(t, tc.files, sorted(slices.Collect(maps.Keys(files))), "max %d", tc.max)
		for name, src := range files {
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
			require.NoError(t, err)
			require.Equal(t, "p", f.Name.Name)
			require.True(t, bytes.HasPrefix(src, []byte(openapi.GenHeader+"\n")), name)
			if name == "openapi_gen.go" {
				require.Contains(t, string(src), "func Register(srv *mcp.Server")
				require.Contains(t, string(src), "func oaString(")
				continue
			}
			require.NotContains(t, string(src), "func Register(")
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				require.Contains(t, string(src), path[strings.LastIndex(path, "/")+1:]+".", "%s imports %s unused", name, path)
			}
			if tc.max > 1 {
				require.LessOrEqual(t, len(src), tc.max)
			}
		}
	}
	// The parts hold the operations in order: findPets before addPet.
	files, err := openapi.Generate(spec, openapi.GenOptions{Package: "p", MaxFileBytes: 1})
	require.NoError(t, err)
	require.Contains(t, string(files["openapi_gen_1.go"]), "func handleFindPets(")
	require.Contains(t, string(files["openapi_gen_2.go"]), "func handleAddPet(")
}
