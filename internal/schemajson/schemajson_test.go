package schemajson

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// same checks that Marshal writes what json.Marshal writes for s, or fails
// when it fails.
func same(t testing.TB, s *jsonschema.Schema) {
	t.Helper()
	want, wantErr := json.Marshal(s)
	got, err := Marshal(s)
	if wantErr != nil {
		require.Error(t, err, "json.Marshal failed (%v), Marshal wrote %s", wantErr, got)
		return
	}
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

func ptr[T any](v T) *T { return &v }

func TestMarshalCases(t *testing.T) {
	var anything any = map[string]any{"a": []any{1.5, "<b>", nil}}
	tests := []struct {
		name string
		s    *jsonschema.Schema
	}{
		{"nil", nil},
		{"empty is true", &jsonschema.Schema{}},
		{"not true is false", &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		{"type", &jsonschema.Schema{Type: "string", MinLength: ptr(1), Pattern: "^a&b<c>$"}},
		{"types, empty", &jsonschema.Schema{Types: []string{}}},
		{"types", &jsonschema.Schema{Types: []string{"null", "array"}, Items: &jsonschema.Schema{Type: "integer"}}},
		{"properties in order", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"b": {Type: "string"}, "a": {Type: "number", Minimum: ptr(0.5)}, "c": nil, "<z>": {},
		}, PropertyOrder: []string{"c", "b", "missing"}, Required: []string{"b"}}},
		{"properties empty", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{}}},
		{"items array", &jsonschema.Schema{ItemsArray: []*jsonschema.Schema{{Type: "string"}, nil}}},
		{"items array empty", &jsonschema.Schema{ItemsArray: []*jsonschema.Schema{}}},
		{"dependencies", &jsonschema.Schema{DependencySchemas: map[string]*jsonschema.Schema{"x": {Type: "string"}, "n": nil},
			DependencyStrings: map[string][]string{"a": {"b"}, "z": nil}}},
		{"defs and refs", &jsonschema.Schema{Defs: map[string]*jsonschema.Schema{"b": {Type: "string"}, "a": nil}, Ref: "#/$defs/b"}},
		{"everything", &jsonschema.Schema{ID: "x", Schema: "https://json-schema.org/draft/2020-12/schema", Comment: "c",
			Title: "t", Description: "d", Default: json.RawMessage(` { "a" : 1 } `), Deprecated: true, ReadOnly: true,
			Examples: []any{1, "x"}, Enum: []any{"a", 2.0, nil}, Const: &anything, MultipleOf: ptr(2.0),
			ExclusiveMaximum: ptr(1e21), MaxItems: ptr(3), UniqueItems: true, Contains: &jsonschema.Schema{Type: "string"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, PatternProperties: map[string]*jsonschema.Schema{"^x": {}},
			AllOf: []*jsonschema.Schema{{}, {Type: "object"}}, If: &jsonschema.Schema{}, Then: &jsonschema.Schema{Format: "email"},
			DependentRequired: map[string][]string{"a": {"b"}}, Vocabulary: map[string]bool{"v": true},
			Extra: map[string]any{"x-b": 1, "x-a": "<&>"}}},
		{"extra only", &jsonschema.Schema{Extra: map[string]any{"x-kind": "k"}}},
		{"const nil", &jsonschema.Schema{Const: new(any)}},
		{"extra duplicates a field", &jsonschema.Schema{Type: "string", Extra: map[string]any{"type": "x"}}},
		{"extra duplicates properties", &jsonschema.Schema{Extra: map[string]any{"properties": 1}}},
		{"type and types", &jsonschema.Schema{Type: "string", Types: []string{"string"}}},
		{"items and items array", &jsonschema.Schema{Items: &jsonschema.Schema{}, ItemsArray: []*jsonschema.Schema{}}},
		{"defs and definitions", &jsonschema.Schema{Defs: map[string]*jsonschema.Schema{}, Definitions: map[string]*jsonschema.Schema{}}},
		{"duplicate order", &jsonschema.Schema{PropertyOrder: []string{"a", "a"}}},
		{"dependency twice", &jsonschema.Schema{DependencySchemas: map[string]*jsonschema.Schema{"a": {}}, DependencyStrings: map[string][]string{"a": nil}}},
		{"nested error", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"a": {Type: "x", Types: []string{"y"}}}}},
		{"bad default", &jsonschema.Schema{Default: json.RawMessage(`{`)}},
		{"bad extra", &jsonschema.Schema{Extra: map[string]any{"x": make(chan int)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { same(t, tt.s) })
	}
}

// TestMarshalDocuments: every schema of the OpenAPI documents in
// openapi/testdata (Discord's among them), read as JSON Schemas.
func TestMarshalDocuments(t *testing.T) {
	files, err := filepath.Glob("../../openapi/testdata/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var n int
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var doc struct {
			Components struct {
				Schemas map[string]*jsonschema.Schema `json:"schemas"`
			} `json:"components"`
		}
		if json.Unmarshal(b, &doc) != nil {
			continue // not an OpenAPI 3 document these schemas decode from
		}
		for _, s := range doc.Components.Schemas {
			same(t, s)
			n++
		}
	}
	assert.Greater(t, n, 100, "schemas compared")
}

func FuzzMarshal(f *testing.F) {
	for _, s := range []string{
		`true`, `false`, `{}`, `{"not":{}}`, `{"type":"string","minLength":1}`,
		`{"type":["null","array"],"items":{"type":"integer"}}`,
		`{"type":"object","properties":{"b":{"type":"string"},"a":{}},"required":["b"],"additionalProperties":false}`,
		`{"items":[{"type":"string"},true]}`, `{"dependencies":{"a":["b"],"c":{"type":"string"}}}`,
		`{"$defs":{"x":{"type":"string"}},"$ref":"#/$defs/x","x-extra":"<&>"}`,
		`{"enum":["a",1,null],"const":{"k":[1,2]},"default":{"a":1},"examples":[1]}`,
		`{"anyOf":[{"type":"string"},{"type":"null"}],"if":{},"then":{"format":"email"},"else":false}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s jsonschema.Schema
		if json.Unmarshal(data, &s) != nil {
			return
		}
		same(t, &s)
	})
}
