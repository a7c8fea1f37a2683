package args

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

const schema = `{"type":"object","properties":{
 "n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},
 "s":{"type":"string"},"a":{"type":"array","items":{"type":"number"}},
 "o":{"type":"object"},"opt":{"type":["integer","null"]},
 "u":{"anyOf":[{"type":"integer"},{"type":"string"}]}}}`

func TestToolConvertsBySchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		base string
		kvs  []string
		want string
		err  string
	}{
		{"number", "", []string{"n=1.5"}, `{"n":1.5}`, ""},
		{"integer", "", []string{"i=42"}, `{"i":42}`, ""},
		{"boolean", "", []string{"b=true"}, `{"b":true}`, ""},
		{"string keeps digits", "", []string{"s=007"}, `{"s":"007"}`, ""},
		{"array", "", []string{"a=[1,2]"}, `{"a":[1,2]}`, ""},
		{"object", "", []string{`o={"k":"v"}`}, `{"o":{"k":"v"}}`, ""},
		{"type list", "", []string{"opt=null"}, `{"opt":null}`, ""},
		{"anyOf falls back to string", "", []string{"u=abc"}, `{"u":"abc"}`, ""},
		{"anyOf integer", "", []string{"u=3"}, `{"u":3}`, ""},
		{"unknown key text", "", []string{"x=1"}, `{"x":"1"}`, ""},
		{"unknown key json", "", []string{"x=[1]"}, `{"x":[1]}`, ""},
		{"value with =", "", []string{"s=a=b"}, `{"s":"a=b"}`, ""},
		{"json base merged", `{"n":2,"keep":true}`, []string{"i=1"}, `{"n":2,"keep":true,"i":1}`, ""},
		{"bad number", "", []string{"n=abc"}, "", `argument n: "abc" is not a number`},
		{"bad integer", "", []string{"i=1.5"}, "", `argument i: "1.5" is not an integer`},
		{"bad boolean", "", []string{"b=yes"}, "", `argument b: "yes" is not a boolean`},
		{"bad array", "", []string{"a={}"}, "", `argument a: "{}" is not a JSON array`},
		{"no equals", "", []string{"n"}, "", `argument "n": want key=value`},
		{"bad base", `[1]`, nil, "", `--json: want a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Tool(json.RawMessage(schema), tc.base, tc.kvs)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(b))
		})
	}
}

func TestStrings(t *testing.T) {
	got, err := Strings([]string{"a=1", "b=x=y"})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "1", "b": "x=y"}, got)
	_, err = Strings([]string{"=1"})
	require.Error(t, err)
}

// FuzzTool: no schema and no argument text makes Tool panic, and what it
// returns always encodes as JSON.
func FuzzTool(f *testing.F) {
	f.Add(schema, `{"n":1}`, "n=2")
	f.Add(`{"properties":{"x":{"type":["array","string"]}}}`, "", "x=[")
	f.Add(`{"properties":{"x":{"anyOf":[{"type":"object"}]}}}`, "", "x={}")
	f.Add("not json", "{", "=")
	f.Fuzz(func(t *testing.T, schema, base, kv string) {
		got, err := Tool(json.RawMessage(schema), base, []string{kv})
		if err != nil {
			return
		}
		_, err = json.Marshal(got)
		require.NoError(t, err)
	})
}
