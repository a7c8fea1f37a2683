package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func nested(depth int) string {
	return `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		max     int
		wantErr any // nil, or a pointer to the error type
		wantMsg string
	}{
		{name: "object", in: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`},
		{name: "white space", in: " \t\r\n{ \"a\" : [ 1 , 2 ] }\n"},
		{name: "numbers", in: `[0,-0,1.5,-2e10,3E+2,4e-1,123456789]`},
		{name: "escapes", in: `["\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"]`},
		{name: "scalar", in: `"x"`},
		{name: "same name in sibling objects", in: `[{"a":1},{"a":2}]`},
		{name: "same name at two levels", in: `{"a":{"a":1}}`},
		{name: "names differing only in case", in: `{"name":1,"Name":2}`},
		{name: "exactly at the limit", in: nested(64), max: 64},
		{name: "past the limit", in: nested(65), max: 64, wantErr: &DepthError{}, wantMsg: "deeper than 64"},
		{name: "default limit", in: nested(DefaultMaxDepth + 1), wantErr: &DepthError{}},
		{name: "10,000 deep", in: nested(10000), wantErr: &DepthError{}},
		{name: "duplicate", in: `{"name":"add","name":"echo"}`, wantErr: &DuplicateError{}, wantMsg: `duplicate member "name"`},
		{name: "duplicate nested", in: `{"p":{"x":1,"y":2,"x":3}}`, wantErr: &DuplicateError{}},
		{name: "duplicate through an escape", in: `{"name":1,"n\u0061me":2}`, wantErr: &DuplicateError{}, wantMsg: `"name"`},
		{name: "duplicate in a large object", in: bigObject(40, true), wantErr: &DuplicateError{}},
		{name: "large object without duplicates", in: bigObject(40, false)},
		{name: "a child's names are not its parent's", in: `{"a":{"b":1,"c":{"d":1}},"b":1,"d":2}`},
		{name: "duplicate after a child object", in: `{"a":{"b":1},"c":2,"a":3}`, wantErr: &DuplicateError{}, wantMsg: `"a"`},
		{name: "open objects with more names than the shared stack", in: nestedNames(5, 10, -1)},
		{name: "duplicate in an object past the shared stack", in: nestedNames(5, 10, 4), wantErr: &DuplicateError{}, wantMsg: `"l4k0"`},
		{name: "duplicate in an object within the shared stack", in: nestedNames(5, 10, 1), wantErr: &DuplicateError{}, wantMsg: `"l1k0"`},
		{name: "syntax wins over an earlier duplicate", in: `{"a":1,"a":2,}`, wantErr: &SyntaxError{}},
		{name: "empty", in: ``, wantErr: &SyntaxError{}},
		{name: "trailing garbage", in: `{} x`, wantErr: &SyntaxError{}},
		{name: "leading zero", in: `[01]`, wantErr: &SyntaxError{}},
		{name: "bare minus", in: `[-]`, wantErr: &SyntaxError{}},
		{name: "bad escape", in: `["\x"]`, wantErr: &SyntaxError{}},
		{name: "control character", in: "[\"a\x01\"]", wantErr: &SyntaxError{}},
		{name: "unterminated", in: `{"a":[1,2}`, wantErr: &SyntaxError{}},
		{name: "truncated literal", in: `[tru]`, wantErr: &SyntaxError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check([]byte(tt.in), tt.max)
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.IsType(t, tt.wantErr, err)
			if tt.wantMsg != "" {
				assert.Contains(t, err.Error(), tt.wantMsg)
			}
		})
	}
}

func bigObject(n int, dup bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strings.Repeat("x", i) + `":1`)
	}
	if dup {
		b.WriteString(`,"kxxxxx":2`)
	}
	b.WriteByte('}')
	return b.String()
}

func TestDuplicateNameIsCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 10000)
	err := Check([]byte(`{"`+long+`":1,"`+long+`":2}`), 0)
	var de *DuplicateError
	require.ErrorAs(t, err, &de)
	assert.Less(t, len(err.Error()), 200, "the error quotes a short prefix, not 10 KB")
}

func TestQuote(t *testing.T) {
	t.Parallel()
	assert.Contains(t, Quote("visible\uFFFDHIDDEN"), "HIDDEN", "nothing after a replacement character disappears")
	assert.Contains(t, Quote("a\xffb"), `\xff`, "an invalid byte is escaped, not swallowed")
	assert.Contains(t, Quote("x\x1b[31my"), `\x1b`, "terminal escapes are escaped")
	q := Quote(strings.Repeat("z", 4<<20))
	assert.Less(t, len(q), 140)
	assert.True(t, strings.HasSuffix(q, "…"))
}

// TestQuoteForLogs: a quoted value holds no U+FFFD and no invalid byte, so
// a log handler that stops at the first one (tint does) shows it whole.
func TestQuoteForLogs(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"visible\uFFFDHIDDEN", "visible\xffHIDDEN", "visible\x00HIDDEN", "visible\u202eHIDDEN"} {
		q := Quote(in)
		assert.True(t, utf8.ValidString(q), "%q", q)
		assert.NotContains(t, q, "\uFFFD", "a literal replacement character is escaped")
		assert.True(t, strings.HasSuffix(q, `HIDDEN"`), "%s", q)
	}
	assert.Equal(t, `"a\ufffdb"`, Quote("a\uFFFDb"))
	assert.Equal(t, Quote("a\xffb"), QuoteBytes([]byte("a\xffb")))
}

func TestForLog(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "tools/call", ForLog("tools/call"))
	assert.Equal(t, "42", ForLogBytes([]byte("42")))
	assert.Equal(t, `"\"abc\""`, ForLog(`"abc"`), "quotes make it quoted: no ambiguity")
	assert.Equal(t, `"visible\ufffdHIDDEN"`, ForLog("visible\uFFFDHIDDEN"))
	assert.Equal(t, `"a\xffb"`, ForLogBytes([]byte("a\xffb")))
	assert.Equal(t, "a b", ForLog("a b"), "printable ASCII stays as it is")
	long := ForLogBytes(bytes.Repeat([]byte("x"), 1<<20))
	assert.Less(t, len(long), maxQuoted+8)
}

func TestQuoteCutsAtCharacter(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("a", maxQuoted-1) + "é" + "tail" // é straddles byte 128
	q := Quote(s)
	assert.True(t, utf8.ValidString(q))
	assert.NotContains(t, q, `\x`, "no half character is escaped")
	assert.Equal(t, `"`+strings.Repeat("a", maxQuoted-1)+`"…`, q)
	big := bytes.Repeat([]byte{0xff}, 4<<20)
	qb := QuoteBytes(big)
	assert.Less(t, len(qb), 4*maxQuoted+8, "each invalid byte escaped, at most 128 of them")
	assert.True(t, strings.HasSuffix(qb, "…"))
}

func TestClip(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "short", Clip("short", 0))
	c := Clip(strings.Repeat("é", 1000), 11)
	assert.Equal(t, strings.Repeat("é", 5)+"…", c)
	assert.Len(t, Clip(strings.Repeat("x", 1<<20), 0), maxQuoted+len("…"))
}

type params struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      *meta           `json:"_meta,omitempty"`
	Items     []item          `json:"items"`
	ByKey     map[string]item `json:"byKey"`
	embedded
}

type meta struct {
	Token any `json:"progressToken"`
}

type item struct {
	ID string `json:"id"`
}

type embedded struct {
	Cursor string `json:"cursor"`
}

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		wantName string // want a *CaseError for this member
	}{
		{name: "exact names", in: `{"name":"add","arguments":{"Name":"free-form"},"_meta":{"progressToken":1},"items":[{"id":"a"}],"byKey":{"K":{"id":"b"}},"cursor":"c"}`},
		{name: "unknown members are ignored", in: `{"name":"add","zzz":{"Name":1}}`},
		{name: "case variant beside the real one", in: `{"name":"add","Name":"echo"}`, wantName: "Name"},
		{name: "case variant alone", in: `{"NAME":"echo"}`, wantName: "NAME"},
		{name: "case variant in a nested struct", in: `{"_meta":{"ProgressToken":1}}`, wantName: "ProgressToken"},
		{name: "case variant in a slice element", in: `{"items":[{"id":"a"},{"Id":"b"}]}`, wantName: "Id"},
		{name: "case variant in a map value", in: `{"byKey":{"k":{"ID":"b"}}}`, wantName: "ID"},
		{name: "case variant of a promoted field", in: `{"Cursor":"c"}`, wantName: "Cursor"},
		{name: "Unicode folding (Kelvin sign)", in: `{"_meta":{"progressto\u212Aen":1}}`, wantName: "progressto\u212Aen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p params
			err := Unmarshal([]byte(tt.in), &p)
			if tt.wantName == "" {
				require.NoError(t, err)
				return
			}
			var ce *CaseError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.wantName, ce.Name)
		})
	}
}

func TestUnmarshalReportsJSONErrors(t *testing.T) {
	t.Parallel()
	var p params
	err := Unmarshal([]byte(`{"name":5}`), &p)
	var te *json.UnmarshalTypeError
	require.True(t, errors.As(err, &te))
}

// FuzzCheck holds Check to json.Valid: with no depth limit in reach, it
// accepts exactly the valid JSON without duplicate member names.
// nestedNames returns levels objects nested in one another, each with
// per names before the next level's; the object at level dupAt (counting
// from 0, -1 for none) repeats its first name at its end.
func nestedNames(levels, per, dupAt int) string {
	var b strings.Builder
	for l := range levels {
		b.WriteByte('{')
		for k := range per {
			fmt.Fprintf(&b, `"l%dk%d":%d,`, l, k, k)
		}
		b.WriteString(`"next":`)
	}
	b.WriteString("null")
	for l := levels - 1; l >= 0; l-- {
		if l == dupAt {
			fmt.Fprintf(&b, `,"l%dk0":true`, l)
		}
		b.WriteByte('}')
	}
	return b.String()
}

// hasDuplicate reports whether valid JSON data has an object with two
// members of the same (decoded) name, the reference for FuzzCheck.
func hasDuplicate(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var value func() bool
	value = func() bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			dup := false
			for d.More() {
				name, _ := d.Token()
				s, _ := name.(string)
				dup = dup || seen[s]
				seen[s] = true
				dup = value() || dup
			}
			_, _ = d.Token()
			return dup
		case json.Delim('['):
			dup := false
			for d.More() {
				dup = value() || dup
			}
			_, _ = d.Token()
			return dup
		}
		return false
	}
	return value()
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"x",{"b":[null]}]`, `{"a":1,"a":2}`, `"\u00e9"`, `-0.5e3`, `{"a":{"b":{"c":[]}}}`, "[\"\xff\"]",
		`{"a":{"b":1},"b":2}`, `{"a":{"a":1},"a":2}`, nestedNames(5, 10, -1), nestedNames(5, 10, 4)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data, 1<<20)
		valid := json.Valid(data)
		var de *DuplicateError
		switch {
		case err == nil && !valid:
			t.Fatalf("Check accepted invalid JSON %q", data)
		case err != nil && !errors.As(err, &de) && valid:
			t.Fatalf("Check refused valid JSON %q: %v", data, err)
		case errors.As(err, &de) && !valid:
			t.Fatalf("Check reported a duplicate in invalid JSON %q", data)
		case valid && (de != nil) != hasDuplicate(data):
			t.Fatalf("Check's duplicate error %v, but the reference finds a duplicate: %v, in %q", err, hasDuplicate(data), data)
		}
		if err == nil {
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			var v any
			require.NoError(t, d.Decode(&v))
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p1"}}}`)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Check(msg, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValid(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p1"}}}`)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(msg) {
			b.Fatal("invalid")
		}
	}
}

// TestSkip: Skip steps over exactly one value of valid JSON, whatever
// nests or is escaped in it, and allocates nothing.
func TestSkip(t *testing.T) {
	for _, tt := range []struct{ in, rest string }{
		{`"a"`, ``},
		{`"a\"b\\",1`, `,1`},
		{`"\u0022]"]`, `]`},
		{`{"a":[1,{"b":"}"}],"c":"\\"} ,2`, ` ,2`},
		{`[[[]],"[",{}]]`, `]`},
		{`123.5e-3,`, `,`},
		{`true}`, `}`},
		{`null `, ` `},
		{`-1]`, `]`},
	} {
		data := []byte(tt.in)
		end := Skip(data, 0)
		if got := string(data[end:]); got != tt.rest {
			t.Errorf("Skip(%s) left %q, want %q", tt.in, got, tt.rest)
		}
	}
	data := []byte(`{"name":"add","arguments":{"a":"x\"y","b":[1,2]}}`)
	if n := testing.AllocsPerRun(100, func() { Skip(data, 0) }); n != 0 {
		t.Errorf("Skip allocates %v times per call, want 0", n)
	}
}

// Members walks an object's members in order, names as written, and
// refuses what is not an object or what its callback refuses; it
// allocates nothing.
func TestMembers(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // key=value
		ok   bool
	}{
		{"empty", ` { } `, nil, true},
		{"members", `{"a":1, "b" : {"c":[1,2]} ,"d":"x\"y"}`, []string{`a=1`, `b={"c":[1,2]}`, `d="x\"y"`}, true},
		{"escaped name kept", `{"\u0061":true}`, []string{`\u0061=true`}, true},
		{"array", `[1]`, nil, false},
		{"string", `"x"`, nil, false},
		{"trailing value", `{"a":1} 2`, []string{`a=1`}, false},
		{"stop", `{"a":1,"stop":2,"c":3}`, []string{`a=1`, `stop=2`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			ok := Members([]byte(tt.raw), func(key, val []byte) bool {
				got = append(got, string(key)+"="+string(val))
				return string(key) != "stop"
			})
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	raw := []byte(`{"a":1,"b":"two","c":[3]}`)
	n := 0
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		Members(raw, func(key, val []byte) bool { n++; return true })
	}))
}
