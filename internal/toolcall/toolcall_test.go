package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params string
		want   Params
		ok     bool
	}{
		{"plain", `{"name":"echo","arguments":{"a":1}}`, Params{Name: "echo", Arguments: json.RawMessage(`{"a":1}`)}, true},
		{"meta", `{"name":"e","_meta":{"k":"v"}}`, Params{Name: "e", Meta: json.RawMessage(`{"k":"v"}`)}, true},
		{"an escaped name value", `{"name":"\u0065cho"}`, Params{Name: "echo"}, true},
		{"task", `{"name":"e","task":{"ttl":1}}`, Params{Name: "e", Other: true}, true},
		{"no name", `{"arguments":{}}`, Params{}, false},
		{"name not a string", `{"name":1}`, Params{}, false},
		{"escaped member name", `{"n\u0061me":"e"}`, Params{}, false},
		{"case variant", `{"name":"e","Name":"f"}`, Params{}, false},
		{"duplicate", `{"name":"e","name":"f"}`, Params{}, false},
		{"not an object", `["name"]`, Params{}, false},
		{"not JSON", `{"name":`, Params{}, false},
		{"too deep", `{"name":"e","arguments":` + deep(100) + `}`, Params{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Parse([]byte(tt.params))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func deep(n int) string {
	s := ""
	for range n {
		s += "["
	}
	for range n {
		s += "]"
	}
	return s
}

// FuzzParse: no input panics or hangs Parse, and what it accepts is an
// object whose "name" member encoding/json reads the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"name":"echo","arguments":{"a":1}}`, `{"name":"\u0065"}`, `{"Name":"x"}`, `{"name":"e","task":{}}`, `[`, `{"name":"e","_meta":{"progressToken":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, ok := Parse(b)
		if !ok {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", b, err)
		}
		var name string
		if err := json.Unmarshal(m["name"], &name); err != nil || name != p.Name {
			t.Fatalf("%q: name %q, encoding/json reads %q (%v)", b, p.Name, name, err)
		}
	})
}
