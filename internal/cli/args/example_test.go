package args_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpchain/mcp/internal/cli/args"
)

// The key=value arguments of `mcpchain call` take the types of the
// tool's input schema.
func ExampleTool() {
	schema := json.RawMessage(`{"type":"object","properties":{
		"city":{"type":"string"},"days":{"type":"integer"},
		"metric":{"type":"boolean"},"hours":{"type":"array"}}}`)
	a, err := args.Tool(schema, "", []string{"city=Paris", "days=3", "metric=true", "hours=[9,18]"})
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(a)
	fmt.Println(string(b))
	// Output: {"city":"Paris","days":3,"hours":[9,18],"metric":true}
}
