package mcp

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// flatDecoder decodes a tool's arguments into a struct of primitive fields
// (string, bool, the integer and float kinds) straight from the bytes,
// without encoding/json's reflection walk: the hot path of a typed tool
// whose arguments prepare already validated. It decodes only what it
// surely decodes as encoding/json would (members named exactly as a
// field, strings without escapes, numbers that fit the field); for
// anything else decode reports false and the caller uses encoding/json,
// which decides and words the error.
type flatDecoder struct {
	fields map[string]flatField
}

type flatField struct {
	index int
	kind  reflect.Kind
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newFlatDecoder returns the decoder of struct type t, or nil when t is
// not a struct of exported primitive fields without embedding, custom
// decoding, the ",string" option or names that clash.
func newFlatDecoder(t reflect.Type) *flatDecoder {
	if t.Kind() != reflect.Struct || t.NumField() == 0 {
		return nil
	}
	d := &flatDecoder{fields: make(map[string]flatField, t.NumField())}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // promoted fields: encoding/json's rules
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return nil
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if !flatFieldType(ft) {
			return nil
		}
		for other := range d.fields {
			if strings.EqualFold(other, name) {
				return nil // clashing names: encoding/json's rules
			}
		}
		d.fields[name] = flatField{index: i, kind: ft.Kind()}
	}
	if len(d.fields) == 0 {
		return nil
	}
	return d
}

// flatFieldType reports whether a field of type ft can be decoded flat: a
// string, bool or number kind that does not decode itself (as JSON or
// text).
func flatFieldType(ft reflect.Type) bool {
	if ft.Implements(jsonUnmarshalerType) || reflect.PointerTo(ft).Implements(jsonUnmarshalerType) ||
		ft.Implements(textUnmarshalerType) || reflect.PointerTo(ft).Implements(textUnmarshalerType) {
		return false
	}
	switch ft.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// decode fills the struct v (addressable, zero) from args, which must be
// valid JSON without duplicate members (prepare and the envelope's strict
// decode saw to both). It reports false, leaving v partly filled, for
// anything it does not surely decode as encoding/json would.
func (d *flatDecoder) decode(args []byte, v reflect.Value) bool {
	return strictjson.Members(args, func(key, val []byte) bool {
		f, ok := d.fields[string(key)]
		// An unknown, escaped or case-variant name: encoding/json decides.
		return ok && setFlat(v.Field(f.index), f.kind, val)
	})
}

// setFlat stores the JSON value raw in the field fv of kind k. null leaves
// the field as it is, as encoding/json does for a non-pointer.
func setFlat(fv reflect.Value, k reflect.Kind, raw []byte) bool {
	if string(raw) == "null" {
		return true
	}
	switch k {
	case reflect.String:
		if len(raw) < 2 || raw[0] != '"' {
			return false
		}
		s := raw[1 : len(raw)-1]
		// Escapes and invalid UTF-8 (which encoding/json replaces) take
		// the full way.
		if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
			return false
		}
		fv.SetString(string(s))
	case reflect.Bool:
		switch string(raw) {
		case "true":
			fv.SetBool(true)
		case "false":
			fv.SetBool(false)
		default:
			return false
		}
	case reflect.Float32, reflect.Float64:
		if !isNumberStart(raw[0]) {
			return false
		}
		if k == reflect.Float64 {
			if n, ok := exactFloat(raw); ok {
				fv.SetFloat(n)
				return true
			}
		}
		n, err := strconv.ParseFloat(string(raw), fv.Type().Bits())
		if err != nil || fv.OverflowFloat(n) {
			return false
		}
		fv.SetFloat(n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isNumberStart(raw[0]) {
			return false
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return false
		}
		fv.SetInt(n)
	default: // the unsigned kinds
		if !isNumberStart(raw[0]) {
			return false
		}
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return false
		}
		fv.SetUint(n)
	}
	return true
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat decodes a JSON number of the plain form -?digits(.digits)?
// with at most 15 significant digits, the common case, without
// strconv.ParseFloat: its mantissa and the power of ten are exact
// float64s, so one division is the correctly rounded value, as
// ParseFloat's own fast path computes it. It also spares the request's
// stack ParseFloat's 1 KB frame. Anything else reports false.
func exactFloat(raw []byte) (float64, bool) {
	i, neg := 0, false
	if raw[0] == '-' {
		i, neg = 1, true
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= '0' && c <= '9':
			if m != 0 || c != '0' {
				digits++
			}
			if digits > 15 {
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false // an exponent, or not a number
		}
	}
	if frac >= len(pow10) {
		return 0, false // 0.000…: more places than exact powers of ten
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

func isNumberStart(c byte) bool { return c == '-' || (c >= '0' && c <= '9') }
