package proxy

import (
	"encoding/json"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/eliciturl"
)

// FuzzURLElicitationRelay: whatever data an upstream's -32042 error
// carries, the downstream client gets -32042 only when every URL in it
// passes eliciturl.Check, and the gateway never panics on it.
func FuzzURLElicitationRelay(f *testing.F) {
	for _, s := range []string{
		`{"elicitations":[{"mode":"url","url":"https://example.com/x","elicitationId":"e","message":"m"}]}`,
		`{"elicitations":[{"url":"javascript:alert(1)"}]}`,
		`{"elicitations":[{"url":"https://a.example/"},{"url":"data:,x"}]}`,
		`{"elicitations":null}`, `[]`, `"x"`, `{"elicitations":[{"url":1}]}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := &upstreamError{name: "up", rpc: &mcp.Error{Code: mcp.CodeURLElicitationRequired, Message: "m", Data: data}}
		got := e.rpcError()
		if got.Code != mcp.CodeURLElicitationRequired {
			return
		}
		var d struct {
			Elicitations []struct {
				URL string `json:"url"`
			} `json:"elicitations"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("relayed data that does not decode: %q", data)
		}
		for _, el := range d.Elicitations {
			if err := eliciturl.Check(el.URL); err != nil {
				t.Fatalf("relayed %q: %v", el.URL, err)
			}
		}
	})
}
