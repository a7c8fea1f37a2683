package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type primArgs struct {
	S    string  `json:"s"`
	B    bool    `json:"b,omitempty"`
	F    float64 `json:"f"`
	F32  float32 `json:"f32"`
	I    int     `json:"i"`
	I8   int8    `json:"i8"`
	U16  uint16  `json:"u16"`
	Name string
	skip int //nolint:unused // an unexported field is not decoded
	Dash int `json:"-"`
}

type textLevel string

func (l *textLevel) UnmarshalText(b []byte) error { *l = textLevel("level:" + string(b)); return nil }

// TestNewFlatDecoder: only structs of exported primitive fields decoded
// the plain way get a decoder.
func TestNewFlatDecoder(t *testing.T) {
	type embedded struct{ A int }
	tests := []struct {
		name string
		typ  reflect.Type
		ok   bool
	}{
		{"primitives", reflect.TypeFor[primArgs](), true},
		{"not a struct", reflect.TypeFor[map[string]any](), false},
		{"empty struct", reflect.TypeFor[struct{}](), false},
		{"nested struct", reflect.TypeFor[struct{ In struct{ A int } }](), false},
		{"pointer field", reflect.TypeFor[struct{ A *int }](), false},
		{"slice field", reflect.TypeFor[struct{ A []string }](), false},
		{"embedded", reflect.TypeFor[struct{ embedded }](), false},
		{"string option", reflect.TypeFor[struct {
			A int `json:"a,string"`
		}](), false},
		{"text unmarshaler", reflect.TypeFor[struct{ L textLevel }](), false},
		{"case clash", reflect.TypeFor[struct {
			A int `json:"x"`
			B int `json:"X"`
		}](), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.ok, newFlatDecoder(tt.typ) != nil)
		})
	}
}

// TestFlatDecoderMatchesEncodingJSON: whatever the decoder accepts, it
// decodes as encoding/json does; what it refuses is left to encoding/json.
func TestFlatDecoderMatchesEncodingJSON(t *testing.T) {
	d := newFlatDecoder(reflect.TypeFor[primArgs]())
	require.NotNil(t, d)
	tests := []struct {
		name string
		args string
		fast bool // decoded without encoding/json
	}{
		{"all fields", `{"s":"hé","b":true,"f":-1.5e3,"f32":0.25,"i":-7,"i8":127,"u16":65535,"Name":"n"}`, true},
		{"spaces", " { \"f\" : 1 ,\n\"i\":2 } ", true},
		{"empty object", `{}`, true},
		{"null leaves zero", `{"s":null,"i":null}`, true},
		{"false", `{"b":false}`, true},
		{"escaped string", `{"s":"a\nb"}`, false},
		{"invalid UTF-8", "{\"s\":\"\xff\"}", false},
		{"unknown member", `{"zzz":1}`, false},
		{"case variant", `{"S":"x"}`, false},
		{"unexported name", `{"skip":1}`, false},
		{"dash field", `{"Dash":1}`, false},
		{"fraction into int", `{"i":1.5}`, false},
		{"int8 overflow", `{"i8":128}`, false},
		{"negative uint", `{"u16":-1}`, false},
		{"float32 overflow", `{"f32":1e39}`, false},
		{"float64 overflow", `{"f":1e400}`, false},
		{"string into number", `{"f":"1"}`, false},
		{"number into string", `{"s":1}`, false},
		{"number into bool", `{"b":1}`, false},
		{"object value", `{"s":{}}`, false},
		{"not an object", `[1]`, false},
		{"trailing text", `{"i":1} 2`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got primArgs
			fast := d.decode([]byte(tt.args), reflect.ValueOf(&got).Elem())
			require.Equal(t, tt.fast, fast)
			if !fast {
				return
			}
			var want primArgs
			require.NoError(t, json.Unmarshal([]byte(tt.args), &want))
			assert.Equal(t, want, got)
		})
	}
}

// FuzzFlatDecoder: on any valid JSON the decoder accepts, the result is
// encoding/json's.
func FuzzFlatDecoder(f *testing.F) {
	for _, s := range []string{`{"s":"x","f":1,"i":2,"u16":3,"b":true}`, `{}`, `{"i8":-128,"f32":3.4e38}`, `{"f":-0.0,"i":-0}`} {
		f.Add(s)
	}
	d := newFlatDecoder(reflect.TypeFor[primArgs]())
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		var got primArgs
		if !d.decode([]byte(args), reflect.ValueOf(&got).Elem()) {
			return
		}
		var want primArgs
		require.NoError(t, json.Unmarshal([]byte(args), &want), "decoded %s, encoding/json refuses it", args)
		require.Equal(t, want, got, "args %s", args)
	})
}
