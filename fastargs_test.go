package mcp

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
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
	skip int //lint:ignore U1000 an unexported field is not decoded
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
		{"null for every kind", `{"s":null,"b":null,"f":null,"f32":null,"i":null,"i8":null,"u16":null,"Name":null}`, true},
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
	for _, s := range []string{`{"s":"x","f":1,"i":2,"u16":3,"b":true}`, `{}`, `{"i8":-128,"f32":3.4e38}`, `{"f":-0.0,"i":-0}`,
		`{"s":null,"b":null,"f":null,"f32":null,"i":null,"i8":null,"u16":null,"Name":null}`, `{"s":"x","i":null,"s":null}`} {
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

// exactFloat decodes what it accepts exactly as strconv.ParseFloat does,
// and leaves the rest (exponents, more than 15 significant digits, more
// places than exact powers of ten) to it.
func TestExactFloat(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"1", true}, {"-17", true}, {"0.5", true}, {"1234567.5", true},
		{"0.1", true}, {"0.3", true}, {"-2.675", true}, {"999999999999999", true}, {"99999999999999.9", true},
		{"0.0000000000000000000001", true}, // 22 places
		{"0.00000000000000000000001", false}, {"1234567890123456", false}, {"1e5", false}, {"1E-2", false},
		{"0.1234567890123456", false}, {"00000000000000000000000000001", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := exactFloat([]byte(tt.in))
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			want, err := strconv.ParseFloat(tt.in, 64)
			require.NoError(t, err)
			assert.Equal(t, math.Float64bits(want), math.Float64bits(got), "%s: %v, want %v", tt.in, got, want)
		})
	}
}

func FuzzExactFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "0.5", "1234567.5", "0.1", "-2.675", "99999999999999.9", "0.0000000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || !json.Valid([]byte(s)) || !isNumberStart(s[0]) {
			return
		}
		got, ok := exactFloat([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("exactFloat accepted %q, which ParseFloat refuses: %v", s, err)
		}
		if math.Float64bits(want) != math.Float64bits(got) {
			t.Fatalf("exactFloat(%q) = %v, ParseFloat says %v", s, got, want)
		}
	})
}
