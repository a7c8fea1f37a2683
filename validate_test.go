package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

type flatArgs struct {
	A    float64 `json:"a"`
	N    int     `json:"n,omitempty"`
	S    string  `json:"s" enum:"x,y"`
	B    *bool   `json:"b,omitempty"`
	Opt  *int    `json:"opt,omitempty"`
	Name string  `json:"name,omitempty" default:"anon"`
}

// taggedArgs carries a constraint of each kind the mcp tag sets.
type taggedArgs struct {
	A float64 `json:"a" mcp:"exclusiveMinimum=0,maximum=1e3"`
	N int     `json:"n,omitempty" mcp:"minimum=-2,maximum=7"`
	S string  `json:"s" mcp:"minLength=1,maxLength=10,pattern=^[a-z]+$"`
	L []int   `json:"l,omitempty" mcp:"maxItems=4,uniqueItems,minimum=0"`
}

type nestedArgs struct {
	Inner struct {
		X int `json:"x"`
	} `json:"inner"`
	List []string `json:"list"`
}

func schemaOf[T any](t testing.TB) *jsonschema.Schema {
	s, err := inferSchema(reflect.TypeFor[T]())
	require.NoError(t, err)
	return s
}

func TestCompileFlatAcceptsOnlyFlatSchemas(t *testing.T) {
	t.Parallel()
	require.NotNil(t, compileFlat(schemaOf[flatArgs](t)))
	require.NotNil(t, compileFlat(schemaOf[struct{}](t)))
	require.Nil(t, compileFlat(schemaOf[nestedArgs](t)), "nested objects and arrays need the full validator")
	min := 1.0
	require.Nil(t, compileFlat(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "number", Minimum: &min}}}))
	require.Nil(t, compileFlat(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "string", Pattern: "^x"}}}))
}

// FuzzFlatValidator checks that the reflection-free validator agrees with
// jsonschema-go on every input: the same verdict, and on failure a message
// naming the same property.
func FuzzFlatValidator(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"s":"x"}`, `{"a":1.5,"s":"y","n":3,"b":true,"opt":null}`, `{"a":"1","s":"x"}`,
		`{"s":"x"}`, `{"a":1,"s":"z"}`, `{"a":1,"s":"x","extra":1}`, `{"a":1,"s":"x","n":1.5}`,
		`{"a":1,"s":"x","b":null}`, `{"a":null,"s":"x"}`, `{"a":1,"s":"x","opt":2.0}`, `{}`, `{"a":[],"s":{}}`,
		`{"a":1e400,"s":"x"}`, `{"a":-0,"s":"x","n":-2}`,
		`{"a":1,"s":"x","n":null,"name":null}`, `{"a":1,"s":null}`, `{"a":null,"s":null,"n":null,"b":null,"opt":null}`,
	} {
		f.Add([]byte(seed))
	}
	s := schemaOf[flatArgs](f)
	flat := compileFlat(s)
	require.NotNil(f, flat)
	res, err := s.Resolve(nil)
	require.NoError(f, err)
	// The same arguments against the constraints of the mcp tag, which
	// jsonschema-go checks: a refusal reads as an argument error.
	tagged, err := schemaOf[taggedArgs](f).Resolve(nil)
	require.NoError(f, err)
	f.Add([]byte(`{"a":0,"s":"abcdefghijk","n":-1.5}`))
	f.Add([]byte(`{"a":1,"s":"q","l":[1,1,2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		fast := flat.validate(m)
		full := res.Validate(m)
		if (fast == nil) != (full == nil) {
			t.Fatalf("verdicts differ on %s: flat %v, jsonschema-go %v", data, fast, full)
		}
		// And once null for an optional argument is taken as absent.
		if drop, _ := optionalNulls(s, m, 0); drop {
			dropNullsRef(s, m)
			fast, full = flat.validate(m), res.Validate(m)
			if (fast == nil) != (full == nil) {
				t.Fatalf("verdicts differ on %s less its nulls: flat %v, jsonschema-go %v", data, fast, full)
			}
		}
		if err := tagged.Validate(m); err != nil {
			if msg := describeValidation(err); !strings.HasPrefix(msg, "argument") {
				t.Fatalf("%s: the message does not name the argument: %q", data, msg)
			}
		}
	})
}

func BenchmarkValidateArgs(b *testing.B) {
	s := schemaOf[flatArgs](b)
	flat := compileFlat(s)
	res, _ := s.Resolve(nil)
	m := map[string]any{"a": 1.0, "s": "x", "n": 2.0}
	b.Run("flat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := flat.validate(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonschema-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := res.Validate(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// rawArgs has no enum and no default, so validRaw decides its arguments.
type rawArgs struct {
	A   float64 `json:"a"`
	N   int     `json:"n,omitempty"`
	S   string  `json:"s"`
	B   *bool   `json:"b,omitempty"`
	Opt *int    `json:"opt,omitempty"`
}

// rawVerdict is what prepare's full way decides: decode, no case variant,
// validate.
func rawVerdict(s *jsonschema.Schema, flat *flatSchema, data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if path, _ := caseVariant(s, m, 0); path != "" {
		return false
	}
	return flat.validate(m) == nil
}

func TestFlatValidRaw(t *testing.T) {
	t.Parallel()
	s := schemaOf[rawArgs](t)
	flat := compileFlat(s)
	require.NotNil(t, flat)
	tests := []struct {
		args string
		want bool
	}{
		{`{"a":1,"s":"x"}`, true},
		{` { "a" : -1.5 , "s" : "" , "n" : 7, "b" : false, "opt": 3 } `, true},
		{`{"a":1e3,"s":"x"}`, false},                    // an exponent: the full way decides
		{`{"a":1000000000000000000000,"s":"x"}`, false}, // long: the full way decides
		{`{"s":"x","a":2}`, true},
		{`{"a":1}`, false},                         // s is required
		{`{"a":"1","s":"x"}`, false},               // a string for a number
		{`{"a":1,"s":"x","n":1.5}`, false},         // n is an integer
		{`{"a":1,"s":"x","n":1.0}`, false},         // integral but written as a decimal: the full way decides
		{`{"a":1,"s":"x","extra":1}`, false},       // additionalProperties false
		{`{"a":1,"s":"x","A":1}`, false},           // a case variant of a
		{`{"a":1,"s":"x","b":null}`, false},        // null for an optional argument: the full way drops it
		{`{"a":1,"s":{}}`, false},                  // an object for a string
		{`{"a":1,"\u0073":"x"}`, false},            // an escaped name: the full way decides
		{`{"a":1,"s":"x"`, false},                  // not JSON
		{`[{"a":1,"s":"x"}]`, false},               // not an object
		{`{}`, false},                              // a and s missing
		{`{"a":1,"s":"x"} {"a":1,"s":"x"}`, false}, // two values
	}
	for _, tt := range tests {
		got := flat.validRaw([]byte(tt.args))
		require.Equal(t, tt.want, got, "%s", tt.args)
		if got {
			require.True(t, rawVerdict(s, flat, []byte(tt.args)), "validRaw passed what the full way refuses: %s", tt.args)
		}
	}
	none := compileFlat(schemaOf[struct{}](t))
	require.True(t, none.validRaw([]byte(`{}`)))
}

// FuzzFlatValidRaw: whatever validRaw passes, the full way (decode, case
// variants, validate) passes too.
func FuzzFlatValidRaw(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"s":"x"}`, `{"a":1.5,"s":"y","n":3,"b":true,"opt":null}`, `{"a":"1","s":"x"}`,
		`{"s":"x"}`, `{"a":1,"s":"x","extra":1}`, `{"a":1,"s":"x","n":1.5}`, `{"a":1,"S":"x","s":"x"}`,
		`{"a":1,"s":"x","b":null}`, `{"a":null,"s":"x"}`, `{"a":1,"s":"x","opt":2.0}`, `{}`, `{"a":[],"s":{}}`,
		`{"a":1e400,"s":"x"}`, `{"a":-0,"s":"x","n":-2}`, `{"a":1,"s":"x","a":"dup"}`,
		`{"a":1,"s":"x","n":null}`, `{"a":1,"s":null}`, `{"a":null,"s":"x","opt":null}`,
	} {
		f.Add([]byte(seed))
	}
	s := schemaOf[rawArgs](f)
	flat := compileFlat(s)
	require.NotNil(f, flat)
	f.Fuzz(func(t *testing.T, data []byte) {
		if flat.validRaw(data) && !rawVerdict(s, flat, data) {
			t.Fatalf("validRaw passed %s, which the full way refuses", data)
		}
	})
}
