package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/argschema"
	"github.com/mcpchain/mcp/internal/strictjson"
)

type nullItem struct {
	Name string `json:"name"`
	Note string `json:"note,omitempty"`
}

// nullFuzzArgs has optional and required fields at several depths.
type nullFuzzArgs struct {
	Q     string              `json:"q"`
	N     int                 `json:"n,omitempty"`
	Tags  []string            `json:"tags,omitempty"`
	Ptr   *nullItem           `json:"ptr,omitempty"`
	Items []nullItem          `json:"items,omitempty"`
	ByKey map[string]nullItem `json:"byKey,omitempty"`
}

// dropNullsRef is the reference of what withoutOptionalNulls drops, on
// the decoded value: simple, and slow.
func dropNullsRef(s *jsonschema.Schema, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			ps := s.Properties[k]
			if ps == nil {
				if s.AdditionalProperties != nil && val != nil {
					dropNullsRef(s.AdditionalProperties, val)
				}
				continue
			}
			required := false
			for _, r := range s.Required {
				required = required || r == k
			}
			if val == nil && !argschema.AdmitsNull(ps) && !required {
				delete(x, k)
				continue
			}
			dropNullsRef(ps, val)
		}
	case []any:
		if s.Items != nil {
			for _, el := range x {
				dropNullsRef(s.Items, el)
			}
		}
	}
}

func TestWithoutOptionalNulls(t *testing.T) {
	t.Parallel()
	s := schemaOf[nullFuzzArgs](t)
	tests := []struct{ in, want string }{
		{`{"q":"x"}`, `{"q":"x"}`},
		{`{"q":"x","n":null}`, `{"q":"x"}`},
		{`{"n":null,"q":"x"}`, `{"q":"x"}`},
		{` { "n" : null , "q" : "x" , "tags" : null } `, `{"q":"x"}`},
		{`{"q":null,"n":null}`, `{"q":null}`}, // required: kept, and refused by prepare
		{`{"q":"x","ptr":{"name":"a","note":null}}`, `{"q":"x","ptr":{"name":"a"}}`},
		{`{"q":"x","items":[{"name":"a","note":null},{"name":"b"}]}`, `{"q":"x","items":[{"name":"a"},{"name":"b"}]}`},
		{`{"q":"x","byKey":{"k":{"name":"a","note":null},"z":null}}`, `{"q":"x","byKey":{"k":{"name":"a"},"z":null}}`},
		{`{"q":"x","\u006e":null}`, `{"q":"x"}`},             // an escaped name
		{`{"q":"x","other":null}`, `{"q":"x","other":null}`}, // not a property: the validator decides
		{`{"q":12345678901234567890,"n":null}`, `{"q":12345678901234567890}`},
	}
	for _, tt := range tests {
		got := withoutOptionalNulls(s, []byte(tt.in), 0)
		assert.Equal(t, tt.want, string(got), tt.in)
	}
}

// FuzzOptionalNulls: on any JSON without duplicate members, the bytes
// withoutOptionalNulls returns are valid JSON that decodes as the input
// less the members the reference drops; the walk over the decoded value
// agrees on whether there is one to drop, and finds none left after.
func FuzzOptionalNulls(f *testing.F) {
	for _, seed := range []string{
		`{"q":"x"}`, `{"q":"x","n":null}`, `{"q":null}`, `{"q":"x","tags":null,"ptr":null,"items":null,"byKey":null}`,
		`{"q":"x","ptr":{"name":null,"note":null}}`, `{"q":"x","items":[{"name":"a","note":null},null,{"note":null}]}`,
		`{"q":"x","byKey":{"a":{"note":null},"b":null}}`, `[{"q":null}]`, `null`, `{"q":"x","\u0074ags":null}`,
		`{"q":"x","tags":[null,"a"]}`, ` {"n" :null} `, `{"q":1e400,"n":null}`,
	} {
		f.Add([]byte(seed))
	}
	s := schemaOf[nullFuzzArgs](f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data, 0) != nil {
			return
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		drop, _ := optionalNulls(s, v, 0)
		out := withoutOptionalNulls(s, data, 0)
		if !drop {
			require.Equal(t, string(data), string(out), "nothing to drop, yet the bytes changed")
			return
		}
		var got any
		require.NoError(t, json.Unmarshal(out, &got), "not JSON: %s from %s", out, data)
		dropNullsRef(s, v)
		require.Equal(t, v, got, "%s from %s", out, data)
		again, _ := optionalNulls(s, got, 0)
		require.False(t, again, "%s still has a member to drop", out)
	})
}
