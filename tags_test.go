package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPTagSchema checks what each keyword of the mcp tag puts in the
// inferred schema of one property.
func TestMCPTagSchema(t *testing.T) {
	t.Parallel()
	type args struct {
		Count   int      `json:"count" mcp:"minimum=1,maximum=10"`
		Ratio   float64  `json:"ratio" mcp:"exclusiveMinimum=0,exclusiveMaximum=1"`
		Small   uint8    `json:"small" mcp:"minimum=-5,maximum=300"`
		Name    string   `json:"name" mcp:"minLength=2, maxLength=8"`
		Code    string   `json:"code" mcp:"pattern=^[a-z]{2,3}$"`
		When    string   `json:"when" mcp:"format=date-time"`
		Tags    []string `json:"tags" mcp:"minItems=1,maxItems=3,uniqueItems,maxLength=5"`
		Scores  []int    `json:"scores" mcp:"uniqueItems=false,minimum=0"`
		Opt     *int     `json:"opt,omitempty" mcp:"maximum=3"`
		Plain   string   `json:"plain"`
		Desc    string   `json:"desc" jsonschema:"a description" mcp:"minLength=1"`
		Default int      `json:"dflt,omitempty" default:"5" mcp:"minimum=1"`
	}
	s := schemaOf[args](t)
	want := map[string]string{
		"count":  `{"type":"integer","minimum":1,"maximum":10}`,
		"ratio":  `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`,
		"small":  `{"type":"integer","minimum":0,"maximum":255}`, // the type's bounds are tighter
		"name":   `{"type":"string","minLength":2,"maxLength":8}`,
		"code":   `{"type":"string","pattern":"^[a-z]{2,3}$"}`,
		"when":   `{"type":"string","format":"date-time"}`,
		"tags":   `{"type":"array","items":{"type":"string","maxLength":5},"minItems":1,"maxItems":3,"uniqueItems":true}`,
		"scores": `{"type":"array","items":{"type":"integer","minimum":0}}`,
		"opt":    `{"type":"integer","maximum":3}`,
		"plain":  `{"type":"string"}`,
		"desc":   `{"type":"string","description":"a description","minLength":1}`,
		"dflt":   `{"type":"integer","minimum":1,"default":5}`,
	}
	for name, w := range want {
		b, err := json.Marshal(s.Properties[name])
		require.NoError(t, err)
		assert.JSONEq(t, w, string(b), name)
	}
	assert.Nil(t, compileFlat(s), "constraints take the full validator")
	assert.NotNil(t, compileFlat(schemaOf[struct {
		Plain string `json:"plain"`
	}](t)), "a tool without tags keeps the flat one")
}

// TestMCPTagErrors checks that a bad tag is an error naming the field and
// the rule.
func TestMCPTagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"unknown keyword", reflect.TypeFor[struct {
			N int `mcp:"minimun=1"`
		}](), `field N: mcp tag: unknown keyword "minimun"`},
		{"minimum on a string", reflect.TypeFor[struct {
			S string `mcp:"minimum=1"`
		}](), "field S: mcp tag: minimum applies to numbers, and the field is a string"},
		{"minLength on a number", reflect.TypeFor[struct {
			N float64 `mcp:"minLength=1"`
		}](), "field N: mcp tag: minLength applies to strings"},
		{"minItems on a string", reflect.TypeFor[struct {
			S string `mcp:"minItems=1"`
		}](), "field S: mcp tag: minItems applies to arrays"},
		{"minimum on a struct", reflect.TypeFor[struct {
			X struct{ A int } `mcp:"minimum=1"`
		}](), "field X: mcp tag: minimum applies to numbers"},
		{"pattern does not compile", reflect.TypeFor[struct {
			S string `mcp:"pattern=[a-"`
		}](), "field S: mcp tag: pattern: does not compile"},
		{"not a number", reflect.TypeFor[struct {
			N int `mcp:"maximum=ten"`
		}](), `field N: mcp tag: maximum: "ten" is not a number`},
		{"negative count", reflect.TypeFor[struct {
			S string `mcp:"maxLength=-1"`
		}](), `field S: mcp tag: maxLength: "-1" is not a count`},
		{"unknown format", reflect.TypeFor[struct {
			S string `mcp:"format=datetime"`
		}](), `field S: mcp tag: format: "datetime" is not a JSON Schema format`},
		{"format on a number", reflect.TypeFor[struct {
			N int `mcp:"format=date"`
		}](), "field N: mcp tag: format applies to strings"},
		{"no value", reflect.TypeFor[struct {
			N int `mcp:"minimum"`
		}](), "field N: mcp tag: minimum needs a value"},
		{"twice", reflect.TypeFor[struct {
			N int `mcp:"minimum=1,minimum=2"`
		}](), "field N: mcp tag: minimum given twice"},
		{"min above max", reflect.TypeFor[struct {
			N int `mcp:"minimum=5,maximum=1"`
		}](), "field N: mcp tag: minimum 5 is above maximum 1"},
		{"minLength above maxLength", reflect.TypeFor[struct {
			S string `mcp:"minLength=5,maxLength=1"`
		}](), "field S: mcp tag: minLength 5 is above maxLength 1"},
		{"exclusive bounds meet", reflect.TypeFor[struct {
			N float64 `mcp:"exclusiveMinimum=1,exclusiveMaximum=1"`
		}](), "field N: mcp tag: exclusiveMinimum 1 is not below exclusiveMaximum 1"},
		{"uniqueItems not a bool", reflect.TypeFor[struct {
			L []int `mcp:"uniqueItems=yes"`
		}](), `field L: mcp tag: uniqueItems: "yes" is not true or false`},
		{"enum belongs in its tag", reflect.TypeFor[struct {
			S string `mcp:"enum=a"`
		}](), "field S: mcp tag: enum has a tag of its own"},
		{"keyword as a tag of its own", reflect.TypeFor[struct {
			N int `minimum:"1"`
		}](), "field N: tag minimum:\"1\": JSON Schema keywords go in the mcp tag: `mcp:\"minimum=1\"`"},
		{"nested field", reflect.TypeFor[struct {
			Inner struct {
				N int `mcp:"minimum=x"`
			}
		}](), `field Inner.N: mcp tag: minimum: "x" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := inferSchema(tt.typ)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
