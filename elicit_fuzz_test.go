package mcp

import (
	"encoding/json"
	"testing"
)

// FuzzClientCapabilitiesElicitation: any capabilities object decodes
// without panicking, and the elicitation modes survive a re-encoding (a
// session record stored and read back).
func FuzzClientCapabilitiesElicitation(f *testing.F) {
	for _, s := range []string{`{"elicitation":{}}`, `{"elicitation":{"url":{}}}`, `{"elicitation":{"form":{},"url":{}}}`,
		`{"elicitation":{"url":null}}`, `{"elicitation":{"url":true}}`, `{"elicitation":[]}`, `{"elicitation":null}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c ClientCapabilities
		if json.Unmarshal(data, &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("re-encoding %s: %v", data, err)
		}
		var d ClientCapabilities
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("decoding the re-encoding %s: %v", b, err)
		}
		if (c.Elicitation == nil) != (d.Elicitation == nil) || c.Elicitation.FormMode() != d.Elicitation.FormMode() || c.Elicitation.URLMode() != d.Elicitation.URLMode() {
			t.Fatalf("%s: modes changed on re-encoding to %s", data, b)
		}
	})
}
