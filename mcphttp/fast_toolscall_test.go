package mcphttp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// fullToolsCall is what doToolsCall's full decode reads.
func fullToolsCall(raw []byte) (name string, args json.RawMessage, meta bool, err error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      *requestMeta    `json:"_meta"`
	}
	err = decodeParams(raw, &p)
	return p.Name, p.Arguments, p.Meta != nil, err
}

func TestScanToolsCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params string
		ok     bool
		name   string
		args   string
	}{
		{`{"name":"add","arguments":{"a":1,"b":2}}`, true, "add", `{"a":1,"b":2}`},
		{` { "arguments" : [1, "x"] , "name" : "add" } `, true, "add", `[1, "x"]`},
		{`{"name":"add"}`, true, "add", ``},
		{`{"name":"add","arguments":null,"other":{"x":[1]}}`, true, "add", `null`},
		{`{"name":"add","_meta":{"progressToken":1}}`, false, "", ""}, // _meta: the full decode
		{`{"Name":"add"}`, false, "", ""},                             // a case variant: the full decode refuses it
		{`{"name":"add","ARGUMENTS":{}}`, false, "", ""},              // likewise
		{`{"n\u0061me":"add"}`, false, "", ""},                        // an escaped name
		{`{"name":"a\u0064d"}`, false, "", ""},                        // an escaped value
		{"{\"name\":\"\x8e\"}", false, "", ""},                        // not UTF-8: encoding/json repairs it
		{`{"name":1}`, false, "", ""},                                 // not a string
		{`{"arguments":{}}`, false, "", ""},                           // no name
		{`["add"]`, false, "", ""},                                    // not an object
		{``, false, "", ""},                                           // no params
	}
	for _, tt := range tests {
		name, args, ok := scanToolsCall([]byte(tt.params))
		require.Equal(t, tt.ok, ok, "%s", tt.params)
		if !ok {
			continue
		}
		assert.Equal(t, tt.name, name, "%s", tt.params)
		assert.Equal(t, tt.args, string(args), "%s", tt.params)
		fname, fargs, meta, err := fullToolsCall([]byte(tt.params))
		require.NoError(t, err)
		assert.Equal(t, fname, name)
		assert.Equal(t, string(fargs), string(args))
		assert.False(t, meta)
	}
}

// FuzzScanToolsCall: whatever scanToolsCall reads, the full decode reads
// the same (name, arguments, no _meta) without an error.
func FuzzScanToolsCall(f *testing.F) {
	for _, seed := range []string{
		`{"name":"add","arguments":{"a":1,"b":2}}`, `{"name":"add"}`, `{"Name":"add"}`, `{"name":"add","_meta":{}}`,
		`{"name":"x","arguments":null,"y":[{"name":2}]}`, `{"name":"\u0061"}`, `[]`, `{"name":"add","arguments":"s"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if strictjson.Check(raw, 0) != nil {
			return // the envelope decode refuses it before doToolsCall
		}
		name, args, ok := scanToolsCall(raw)
		if !ok {
			return
		}
		fname, fargs, meta, err := fullToolsCall(raw)
		if err != nil || fname != name || string(fargs) != string(args) || meta {
			t.Fatalf("%s: scan read %q %s, the full decode %q %s meta=%v err=%v", raw, name, args, fname, fargs, meta, err)
		}
	})
}
