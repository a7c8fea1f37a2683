package openapitest_test

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/openapi/openapitest"
)

// TestValue: the made-up values of schemas a real-world document has
// (Discord's snowflake pattern, colours, a minProperties map, unique
// items, an enum named through allOf, a oneOf whose first member's value
// matches two members) conform to them.
func TestValue(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         string // JSON
	}{
		{"snowflake", `{"type":"string","pattern":"^(0|[1-9][0-9]*)$","format":"snowflake"}`, `"1"`},
		{"colour", `{"type":"string","pattern":"^#(([0-9a-fA-F]{2}){3}|([0-9a-fA-F]){3})$"}`, `"#ffffff"`},
		{"pattern and maxLength", `{"type":"string","pattern":"^[a-z]+$","maxLength":2}`, `"a"`},
		{"foreign pattern", `{"type":"string","pattern":"^(?=x)"}`, `"string"`},
		{"format", `{"type":"string","format":"uuid"}`, `"3fa85f64-5717-4562-b3fc-2c963f66afa6"`},
		{"minProperties", `{"type":"object","additionalProperties":{"type":"integer"},"minProperties":2}`, `{"key1":1,"key2":1}`},
		{"uniqueItems", `{"type":"array","items":{"type":"string","pattern":"^[0-9]+$"},"minItems":3,"uniqueItems":true}`, `["1","2","3"]`},
		{"unique words", `{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}`, `["string","string1"]`},
		{"allOf enum", `{"type":"string","enum":[],"allOf":[{"type":"string","enum":["STARTED","REJECTED"]}]}`, `"STARTED"`},
		{"oneOf", `{"oneOf":[{"type":"string"},{"type":"string","pattern":"^s"},{"type":"integer"}]}`, `1`},
		{"optional that cannot fit", `{"type":"object","required":["x"],"properties":{"x":{"type":"integer"},"y":{"type":"string","pattern":"^Q{3}$"}}}`, `{"x":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s openapi3.Schema
			require.NoError(t, json.Unmarshal([]byte(tc.schema), &s))
			v := openapitest.Value(openapi3.NewSchemaRef("", &s))
			b, err := json.Marshal(v)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(b))
			if tc.name != "foreign pattern" {
				require.NoError(t, s.VisitJSON(roundTrip(t, v)))
			}
		})
	}
}

func roundTrip(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}
