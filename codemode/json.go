package codemode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// toJSON encodes a Starlark value as JSON, refusing one that has no JSON
// form (a function, a set, a dict with a key that is not a string, a
// float that is not finite), is nested deeper than maxDepth, or encodes
// to more than limit bytes.
func toJSON(v starlark.Value, limit int) ([]byte, error) {
	e := &encoder{limit: limit}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.b.Bytes(), nil
}

type encoder struct {
	b     bytes.Buffer
	limit int
}

func (e *encoder) over() error {
	if e.b.Len() > e.limit {
		return fmt.Errorf("more than %d bytes as JSON", e.limit)
	}
	return nil
}

func (e *encoder) value(v starlark.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested more than %d deep", maxDepth)
	}
	switch x := v.(type) {
	case starlark.NoneType:
		e.b.WriteString("null")
	case starlark.Bool:
		e.b.WriteString(strconv.FormatBool(bool(x)))
	case starlark.Int:
		e.b.WriteString(x.String())
	case starlark.Float:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("%v has no JSON form", x)
		}
		e.b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case starlark.String:
		if len(x) > e.limit {
			return fmt.Errorf("more than %d bytes as JSON", e.limit)
		}
		q, _ := json.Marshal(string(x)) // invalid UTF-8 becomes U+FFFD
		e.b.Write(q)
	case *starlark.Dict:
		if err := e.dict(x, depth); err != nil {
			return err
		}
	case starlark.Indexable: // list, tuple
		if err := e.list(x, depth); err != nil {
			return err
		}
	default:
		return fmt.Errorf("a value of type %s has no JSON form", v.Type())
	}
	return e.over()
}

// dict writes a dict as a JSON object, its keys (strings only) in order.
func (e *encoder) dict(x *starlark.Dict, depth int) error {
	e.b.WriteByte('{')
	for i, item := range x.Items() {
		k, ok := item[0].(starlark.String)
		if !ok {
			return fmt.Errorf("a dict key of type %s has no JSON form (keys must be strings)", item[0].Type())
		}
		if i > 0 {
			e.b.WriteByte(',')
		}
		if err := e.value(k, depth+1); err != nil {
			return err
		}
		e.b.WriteByte(':')
		if err := e.value(item[1], depth+1); err != nil {
			return err
		}
	}
	e.b.WriteByte('}')
	return nil
}

// list writes a list or tuple as a JSON array; another indexable value
// (a range, say) has no JSON form.
func (e *encoder) list(x starlark.Indexable, depth int) error {
	if _, ok := x.(*starlark.List); !ok {
		if _, ok := x.(starlark.Tuple); !ok {
			return fmt.Errorf("a value of type %s has no JSON form", x.Type())
		}
	}
	e.b.WriteByte('[')
	for i := range x.Len() {
		if i > 0 {
			e.b.WriteByte(',')
		}
		if err := e.value(x.Index(i), depth+1); err != nil {
			return err
		}
	}
	e.b.WriteByte(']')
	return nil
}

// fromJSON decodes JSON into Starlark values: objects become dicts (in
// the order of their members), arrays lists, integers ints of any size.
func fromJSON(b []byte) (starlark.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (starlark.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(t), nil
	case string:
		return starlark.String(t), nil
	case json.Number:
		return decodeNumber(t.String())
	case json.Delim:
		switch t {
		case '{':
			return decodeObject(dec, depth)
		case '[':
			return decodeArray(dec, depth)
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// decodeNumber makes a JSON number an int (of any size) when it is
// written as an integer, else a float.
func decodeNumber(s string) (starlark.Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return starlark.MakeInt64(i), nil
		}
		if i, ok := new(big.Int).SetString(s, 10); ok {
			return starlark.MakeBigInt(i), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, err
	}
	return starlark.Float(f), nil
}

// decodeObject decodes the members of a JSON object, after its '{', into
// a dict in their order.
func decodeObject(dec *json.Decoder, depth int) (starlark.Value, error) {
	d := starlark.NewDict(0)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		v, err := decodeValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		if err := d.SetKey(starlark.String(k), v); err != nil {
			return nil, err
		}
	}
	_, err := dec.Token()
	return d, err
}

// decodeArray decodes the elements of a JSON array, after its '[', into
// a list.
func decodeArray(dec *json.Decoder, depth int) (starlark.Value, error) {
	var elems []starlark.Value
	for dec.More() {
		v, err := decodeValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
	}
	_, err := dec.Token()
	return starlark.NewList(elems), err
}
