package jsonrpc_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp/internal/jsonrpc"
)

func TestPrefixID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, data, want string
	}{
		{"number first", `{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"x":"`, `7`},
		{"Go SDK order", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"arguments":{"s":"aaaa`, `23`},
		{"string id", `{"jsonrpc":"2.0","id":"a\"b","method":`, `"a\"b"`},
		{"after an object", ` { "params" : {"a":[1,{"b":"}"}]}, "id" : -4.5e2 }`, `-4.5e2`},
		{"cut inside a number", `{"jsonrpc":"2.0","id":12`, ``},
		{"cut inside a string id", `{"jsonrpc":"2.0","id":"abc`, ``},
		{"cut before the id", `{"jsonrpc":"2.0","method":"tools/call","params":{"x":"aaaa`, ``},
		{"id after params, cut", `{"method":"tools/call","params":{"x":"aa`, ``},
		{"null id", `{"id":null,"method":"x"}`, ``},
		{"object id", `{"id":{"a":1},"method":"x"}`, ``},
		{"bad number", `{"id":1-2,"method":"x"}`, ``},
		{"not an object", `[{"id":1}]`, ``},
		{"id inside params", `{"params":{"id":5},`, ``},
		{"escaped key is not id", `{"i\u0064":5,"x":1}`, ``},
		{"missing colon", `{"id" 5,`, ``},
		{"empty", ``, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := jsonrpc.PrefixID([]byte(tt.data))
			if tt.want == "" {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func FuzzPrefixID(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{}}`,
		`{"id":"x\\"y","method":"a"}`,
		`{"params":{"a":[1,{"b":"}"}]},"id":-4.5e2}`,
		`{"id":12`,
		`{"a":"\`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id := jsonrpc.PrefixID(data)
		if id == nil {
			return
		}
		// Whatever is returned is a valid JSON string or number, so the
		// error response that echoes it stays valid JSON.
		if !json.Valid(id) || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
			t.Fatalf("PrefixID(%q) = %q, not a JSON string or number", data, id)
		}
		// A complete message's id, when it is found, is the decoder's.
		if m, err := jsonrpc.Decode(data); err == nil && m.ID != nil {
			if string(m.ID) != string(id) {
				t.Fatalf("PrefixID(%q) = %q, Decode says %q", data, id, m.ID)
			}
		}
	})
}
