package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
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
	t.Parallel()
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

// TestGenerateKeepsPathsOutOfTheCode: a path of the document is text in
// the generated code, never code: a newline in it cannot end a comment
// and a quote cannot end a string literal (a hostile document otherwise
// puts a function call that runs at the program's start into the code a
// user commits).
func TestGenerateKeepsPathsOutOfTheCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, path string }{
		{"newline ends a comment", "/a\nvar _ = Injected()\n//"},
		{"carriage return and newline", "/a\r\nvar _ = Injected()\r\n//"},
		{"quote ends the error's literal", `/a" + Injected() + "`},
		{"backquote and newline", "/a`\nvar _ = Injected()\n//`"},
		{"percent verbs in the error's format", "/a%d%w%s"},
	} {
		for _, output := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/output=%v", tc.name, output), func(t *testing.T) {
				t.Parallel()
				src := generateForPath(t, tc.path, output)
				require.NotContains(t, identifiers(t, src), "Injected", "the path became code:\n%s", src)
			})
		}
	}
}

// FuzzGeneratePath: whatever a path holds, the generated code has the
// declarations and identifiers of the code generated for a plain path.
func FuzzGeneratePath(f *testing.F) {
	for _, p := range []string{"/x", "/a\nvar _ = Injected()\n//", `/a" + Injected() + "`, "/%w", "/a\u2028b", "/*/", "/a*/ b /*"} {
		f.Add(p, true)
	}
	base := map[bool]map[string]bool{}
	for _, output := range []bool{false, true} {
		src, err := generateForPathErr("/x", output)
		if err != nil {
			f.Fatal(err)
		}
		ids, err := identifiersErr(src)
		if err != nil {
			f.Fatal(err)
		}
		base[output] = ids
	}
	f.Fuzz(func(t *testing.T, path string, output bool) {
		src, err := generateForPathErr("/"+path, output)
		if err != nil {
			return // refused (an invalid document, or source that does not parse)
		}
		ids, err := identifiersErr(src)
		require.NoError(t, err)
		for id := range ids {
			require.True(t, base[output][id], "identifier %q comes from the path %q:\n%s", id, path, src)
		}
	})
}

// generateForPath generates the code of a document with one GET
// operation at path (with a JSON object answer when output).
func generateForPath(t *testing.T, path string, output bool) []byte {
	t.Helper()
	src, err := generateForPathErr(path, output)
	require.NoError(t, err)
	return src
}

func generateForPathErr(path string, output bool) ([]byte, error) {
	resp := map[string]any{"description": "ok"}
	if output {
		resp["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{
			"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}}
	}
	doc := map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "t", "version": "1"},
		"servers": []any{map[string]any{"url": "https://api.example.com"}},
		"paths": map[string]any{path: map[string]any{"get": map[string]any{"operationId": "op",
			"responses": map[string]any{"200": resp}}}}}
	spec, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	files, err := openapi.Generate(spec, openapi.GenOptions{Package: "x", Lenient: true})
	if err != nil {
		return nil, err
	}
	return files["openapi_gen.go"], nil
}

// identifiers are the identifiers of a Go source file.
func identifiers(t *testing.T, src []byte) map[string]bool {
	t.Helper()
	ids, err := identifiersErr(src)
	require.NoError(t, err, "%s", src)
	return ids
}

func identifiersErr(src []byte) (map[string]bool, error) {
	file, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, 0)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			ids[id.Name] = true
		}
		return true
	})
	return ids, nil
}
