package openapi_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/openapi"
)

// bigSpec is a document of n operations (n/4 paths of four methods each),
// with path, query and header parameters, bodies and answers that refer
// to shared component schemas.
func bigSpec(n int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: big, version: '1'}\nservers: [{url: 'http://127.0.0.1:1/v1'}]\npaths:\n")
	for i := range n / 4 {
		fmt.Fprintf(&b, "  /r%d/{id}:\n", i)
		fmt.Fprintf(&b, "    parameters: [{name: id, in: path, required: true, schema: {type: integer, minimum: 1}}]\n")
		fmt.Fprintf(&b, "    get:\n      operationId: get%d\n      summary: Get r%d\n      parameters:\n", i, i)
		b.WriteString("        - {name: fields, in: query, schema: {type: array, items: {type: string, enum: [a, b, c]}}}\n")
		b.WriteString("        - {name: X-Request-Id, in: header, schema: {type: string, format: uuid}}\n")
		b.WriteString("      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}}\n")
		fmt.Fprintf(&b, "    put:\n      operationId: put%d\n      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/NewItem'}}}}\n", i)
		b.WriteString("      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}}\n")
		fmt.Fprintf(&b, "    post:\n      operationId: post%d\n      requestBody: {content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/NewItem'}}}}}\n", i)
		b.WriteString("      responses: {'201': {description: made}}\n")
		fmt.Fprintf(&b, "    delete:\n      operationId: delete%d\n      responses: {'204': {description: gone}}\n", i)
	}
	b.WriteString(`components:
  schemas:
    NewItem:
      type: object
      required: [name]
      properties:
        name: {type: string, minLength: 1, maxLength: 80}
        tags: {type: array, items: {type: string}}
        size: {type: number, minimum: 0}
        owner: {$ref: '#/components/schemas/Owner'}
    Item:
      allOf:
        - $ref: '#/components/schemas/NewItem'
        - type: object
          required: [id]
          properties:
            id: {type: integer, readOnly: true}
            created: {type: string, format: date-time}
    Owner:
      type: object
      properties:
        login: {type: string}
        manager: {$ref: '#/components/schemas/Owner'}
`)
	return []byte(b.String())
}

// BenchmarkRegister1000 loads, validates and registers a document of
// 1,000 operations.
func BenchmarkRegister1000(b *testing.B) {
	spec := bigSpec(1000)
	for b.Loop() {
		srv := mcp.NewServer(mcp.Options{Name: "big", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
		if err := openapi.Register(srv, spec, openapi.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate1000 generates the Go source of the same document.
func BenchmarkGenerate1000(b *testing.B) {
	spec := bigSpec(1000)
	for b.Loop() {
		if _, err := openapi.Generate(spec, openapi.GenOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBigSpecRegisters: the benchmark's document registers its 1,000
// tools.
func TestBigSpecRegisters(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "big", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	if err := openapi.Register(srv, bigSpec(1000), openapi.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.ListTools(t.Context(), nil)); n != 1000 {
		t.Fatalf("%d tools, want 1000", n)
	}
}

// BenchmarkRegisterDiscord loads, validates and registers Discord's
// document (242 operations, 607 KB of JSON; testdata/discord.json).
func BenchmarkRegisterDiscord(b *testing.B) {
	spec := readSpec(b, "discord.json")
	for b.Loop() {
		srv := mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
		if err := openapi.Register(srv, spec, openapi.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateDiscord generates the Go source of the same document,
// split as openapi/internal/discord is.
func BenchmarkGenerateDiscord(b *testing.B) {
	spec := readSpec(b, "discord.json")
	for b.Loop() {
		if _, err := openapi.Generate(spec, openapi.GenOptions{Package: "discord", MaxFileBytes: discordMaxFileBytes}); err != nil {
			b.Fatal(err)
		}
	}
}
