package mcphttp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// fullInitialize is what the full decode of initialize params reads.
func fullInitialize(raw []byte) (initializeParams, error) {
	var p initializeParams
	err := decodeParams(raw, &p)
	return p, err
}

func TestScanInitialize(t *testing.T) {
	t.Parallel()
	harness := initializeParams{ProtocolVersion: "2025-06-18", ClientInfo: mcp.Implementation{Name: "mcp-load", Version: "0.1"}}
	tests := []struct {
		name   string
		params string
		ok     bool
		want   initializeParams
	}{
		{"the harness's", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-load","version":"0.1"}}`, true, harness},
		{"spaced, reordered", ` { "clientInfo" : { "version" : "0.1" , "name" : "mcp-load" } , "capabilities" : { } , "protocolVersion" : "2025-06-18" } `, true, harness},
		{"title, ignored members", `{"protocolVersion":"2025-06-18","_meta":{"x":[1]},"clientInfo":{"name":"n","title":"T","version":"1","description":"d"}}`, true,
			initializeParams{ProtocolVersion: "2025-06-18", ClientInfo: mcp.Implementation{Name: "n", Title: "T", Version: "1"}}},
		{"websiteUrl", `{"protocolVersion":"2025-11-25","clientInfo":{"name":"n","version":"1","websiteUrl":"https://x.example"}}`, true,
			initializeParams{ProtocolVersion: "2025-11-25", ClientInfo: mcp.Implementation{Name: "n", Version: "1", WebsiteURL: "https://x.example"}}},
		{"icons go to the full decode", `{"protocolVersion":"2025-11-25","clientInfo":{"name":"n","version":"1","icons":[{"src":"x"}]}}`, false, initializeParams{}},
		{"case-variant icons", `{"protocolVersion":"2025-11-25","clientInfo":{"name":"n","version":"1","ICONS":[]}}`, false, initializeParams{}},
		{"empty object", `{}`, true, initializeParams{}},
		{"declared capabilities", `{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"n","version":"1"}}`, false, initializeParams{}},
		{"null capabilities", `{"protocolVersion":"2025-06-18","capabilities":null}`, false, initializeParams{}},
		{"case variant", `{"ProtocolVersion":"2025-06-18"}`, false, initializeParams{}},
		{"case variant in clientInfo", `{"clientInfo":{"Name":"n"}}`, false, initializeParams{}},
		{"folded variant (long s)", `{"protocolVerſion":"2025-06-18"}`, false, initializeParams{}},
		{"escaped member name", `{"protocol\u0056ersion":"2025-06-18"}`, false, initializeParams{}},
		{"escaped value", `{"protocolVersion":"2025-06-1\u0038"}`, false, initializeParams{}},
		{"invalid UTF-8", "{\"clientInfo\":{\"name\":\"\x8e\"}}", false, initializeParams{}},
		{"not a string", `{"protocolVersion":20250618}`, false, initializeParams{}},
		{"null version", `{"protocolVersion":null}`, false, initializeParams{}},
		{"clientInfo not an object", `{"clientInfo":"n"}`, false, initializeParams{}},
		{"not an object", `["2025-06-18"]`, false, initializeParams{}},
		{"no params", ``, false, initializeParams{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := scanInitialize([]byte(tt.params))
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			assert.Equal(t, tt.want, p)
			full, err := fullInitialize([]byte(tt.params))
			require.NoError(t, err)
			assert.Equal(t, full, p, "the scan must read what the full decode reads")
		})
	}
}

// FuzzScanInitialize checks that whatever the scan reads, the full decode
// reads the same.
func FuzzScanInitialize(f *testing.F) {
	for _, seed := range []string{
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-load","version":"0.1"}}`,
		`{"protocolVersion":"x","capabilities":{"roots":{"listChanged":true}}}`, `{"clientInfo":{"Name":"n","title":"t"}}`,
		`{"protocolVersion":"\u0061","_meta":{}}`, `[]`, `{"capabilities":{ },"clientInfo":{"version":"1","x":null}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if strictjson.Check(raw, 0) != nil {
			return // the envelope decode refuses it before doInitialize
		}
		p, ok := scanInitialize(raw)
		if !ok {
			return
		}
		full, err := fullInitialize(raw)
		if err != nil || !reflect.DeepEqual(full, p) {
			t.Fatalf("%s: scan read %+v, the full decode %+v err=%v", raw, p, full, err)
		}
	})
}

func TestMayHaveMeta(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params string
		want   bool
	}{
		{`{"protocolVersion":"2025-06-18","capabilities":{}}`, false},
		{`{"name":"add","arguments":{"a_b":1,"_x":2}}`, false},
		{`{"_meta":{"progressToken":1}}`, true},
		{`{"_META":{}}`, true},                           // encoding/json matches any case
		{`{"\u005fmeta":{}}`, true},                      // or an escape
		{`{"name":"x","arguments":{"s":"_meta"}}`, true}, // in a value: a false alarm, the decode decides
		{`{"name":"_met"}`, false},
		{`_`, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mayHaveMeta([]byte(tt.params)), "%s", tt.params)
		if !tt.want {
			m, ok := requestMetaOf([]byte(tt.params))
			assert.False(t, ok, "%s", tt.params)
			assert.Nil(t, m)
		}
	}
}

// FuzzMayHaveMeta checks that params mayHaveMeta rules out have no _meta
// encoding/json would find.
func FuzzMayHaveMeta(f *testing.F) {
	for _, seed := range []string{`{"_meta":{"a":1}}`, `{"_Meta":{}}`, `{"\u005fmeta":{}}`, `{"x":"_met"}`, `{}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if mayHaveMeta(raw) {
			return
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Meta != nil {
			t.Fatalf("%s: ruled out, but encoding/json finds _meta %v", raw, p.Meta)
		}
	})
}
