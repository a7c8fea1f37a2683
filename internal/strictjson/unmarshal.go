package strictjson

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// CaseError means an object member's name matches a struct field only
// when case is ignored.
type CaseError struct {
	Name string // the member's name, cut to 128 bytes
	Want string // the field's JSON name
}

// Error implements error.
func (e *CaseError) Error() string {
	return fmt.Sprintf("member %s is not %q: member names are case-sensitive", Quote(e.Name), e.Want)
}

// Unmarshal is json.Unmarshal into v that first refuses, anywhere the type
// of v gives the shape, a member whose name equals a field's JSON name
// only case-insensitively (a *CaseError), so {"Name": "x"} never fills the
// field "name". It does not check syntax, depth or duplicates: run
// [Check] on the whole message first. Members of maps, of interface values
// and of types with their own UnmarshalJSON are not checked.
func Unmarshal(data []byte, v any) error {
	if err := CheckCase(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// CheckCase walks data (valid JSON) along the shape of t and returns a
// *CaseError for the first member whose name matches a struct field of t
// only case-insensitively.
func CheckCase(data []byte, t reflect.Type) error {
	w := walker{data: data}
	w.ws()
	return w.value(t)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fieldSet is the JSON names of a struct type's fields.
type fieldSet struct {
	names []string
	types []reflect.Type
}

var fieldCache sync.Map // reflect.Type → *fieldSet

func fieldsOf(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{}
	collectFields(t, fs, 0)
	actual, _ := fieldCache.LoadOrStore(t, fs)
	return actual.(*fieldSet)
}

func collectFields(t reflect.Type, fs *fieldSet, level int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && level < 8 {
				collectFields(et, fs, level+1) // promoted fields
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs.names = append(fs.names, name)
		fs.types = append(fs.types, ft)
	}
}

// opaque reports whether t decodes itself (or is free-form), so its
// members are not ours to check.
func opaque(t reflect.Type) bool {
	if t == nil || t.Kind() == reflect.Interface {
		return true
	}
	return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

type walker struct {
	data []byte
	pos  int
}

func (w *walker) ws() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\r', '\n':
			w.pos++
		default:
			return
		}
	}
}

// skip moves past one value.
func (w *walker) skip() { w.pos = Skip(w.data, w.pos) }

// Skip returns the position just past the JSON value that starts at pos
// in data, which must be valid JSON (as [Check] leaves it): a string, an
// object or array with everything nested in it, or a literal. It
// allocates nothing; strings are stepped over, not decoded.
func Skip(data []byte, pos int) int {
	if pos >= len(data) {
		return pos
	}
	switch data[pos] {
	case '"':
		return skipString(data, pos)
	case '{', '[':
		depth := 0
		for pos < len(data) {
			switch data[pos] {
			case '"':
				pos = skipString(data, pos)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return pos + 1
				}
			}
			pos++
		}
		return pos
	default:
		for pos < len(data) {
			switch data[pos] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return pos
			}
			pos++
		}
		return pos
	}
}

// skipString returns the position just past the string that starts (with
// its opening quote) at pos.
func skipString(data []byte, pos int) int {
	for pos++; pos < len(data); pos++ {
		switch data[pos] {
		case '\\':
			pos++
		case '"':
			return pos + 1
		}
	}
	return pos
}

func (w *walker) str() string {
	start := w.pos
	w.pos++
	escaped := false
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case '\\':
			escaped = true
			w.pos += 2
			continue
		case '"':
			w.pos++
			if !escaped {
				return string(w.data[start+1 : w.pos-1])
			}
			return string(unescape(w.data[start:w.pos]))
		}
		w.pos++
	}
	return ""
}

func (w *walker) value(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if w.pos >= len(w.data) {
		return nil
	}
	if opaque(t) {
		w.skip()
		return nil
	}
	switch w.data[w.pos] {
	case '{':
		switch t.Kind() {
		case reflect.Struct:
			return w.object(fieldsOf(t), nil)
		case reflect.Map:
			return w.object(nil, t.Elem())
		}
	case '[':
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			return w.array(t.Elem())
		}
	}
	w.skip()
	return nil
}

func (w *walker) array(elem reflect.Type) error {
	w.pos++
	for {
		w.ws()
		if w.pos >= len(w.data) || w.data[w.pos] == ']' {
			w.pos++
			return nil
		}
		if err := w.value(elem); err != nil {
			return err
		}
		w.ws()
		if w.pos < len(w.data) && w.data[w.pos] == ',' {
			w.pos++
		}
	}
}

// object walks an object: a struct's (fs set) or a map's (elem set).
func (w *walker) object(fs *fieldSet, elem reflect.Type) error {
	w.pos++
	for {
		w.ws()
		if w.pos >= len(w.data) || w.data[w.pos] == '}' {
			w.pos++
			return nil
		}
		name := w.str()
		w.ws()
		w.pos++ // ':'
		w.ws()
		vt := elem
		if fs != nil {
			vt = nil
			for i, fn := range fs.names {
				if fn == name {
					vt = fs.types[i]
					break
				}
			}
			if vt == nil {
				for _, fn := range fs.names {
					if strings.EqualFold(fn, name) {
						return &CaseError{Name: truncate(name), Want: fn}
					}
				}
			}
		}
		if vt == nil {
			w.skip() // an unknown member: encoding/json ignores it too
		} else if err := w.value(vt); err != nil {
			return err
		}
		w.ws()
		if w.pos < len(w.data) && w.data[w.pos] == ',' {
			w.pos++
		}
	}
}

// SkipSpace returns the position of the first byte at or after i in b
// that is not JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// Members calls member for each member of the JSON object raw, which must
// be valid JSON (as [Check] leaves it), in order, with its name as written
// (between the quotes, escapes kept) and its value's bytes. It returns
// false when raw is not an object or member returned false, and
// allocates nothing of its own: the scanners of the hot path (a tool's
// arguments, initialize's params) read the bytes with it instead of
// decoding them.
func Members(raw []byte, member func(key, val []byte) bool) bool {
	i := SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = SkipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		end := Skip(raw, i)
		if end-1 <= i || end > len(raw) {
			return false
		}
		key := raw[i+1 : end-1]
		i = SkipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = SkipSpace(raw, i+1)
		start := i
		i = Skip(raw, i)
		if i <= start || i > len(raw) {
			return false
		}
		if !member(key, raw[start:i]) {
			return false
		}
		i = SkipSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = SkipSpace(raw, i+1)
			continue
		}
		break
	}
	return i < len(raw) && raw[i] == '}' && SkipSpace(raw, i+1) == len(raw)
}
